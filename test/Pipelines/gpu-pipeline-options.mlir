// pw-gpu-pipeline checks its options before any pass runs: each bad value
// fails with a message and exit status 1, and every supported chip gets a PTX
// ISA version that ptxas accepts for it.
// RUN: not pw-opt %s --pw-gpu-pipeline="chip=" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not pw-opt %s --pw-gpu-pipeline="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not pw-opt %s --pw-gpu-pipeline="chip=sm_80a" 2>&1 | FileCheck %s --check-prefix=SUFFIX
// RUN: not pw-opt %s --pw-gpu-pipeline="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not pw-opt %s --pw-gpu-pipeline="format=elf" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not pw-opt %s --pw-gpu-pipeline="format=isa cuda-path=%t.nowhere" 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not pw-opt %s --pw-gpu-pipeline="opt-level=4" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not pw-opt %s --pw-gpu-pipeline="features=+ptx60" 2>&1 | FileCheck %s --check-prefix=PTX60
// RUN: not pw-opt %s --pw-gpu-pipeline="chip=sm_80 features=+ptx70" 2>&1 | FileCheck %s --check-prefix=PTX70
// RUN: not pw-opt %s --pw-gpu-pipeline="features=bogus" 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: not pw-opt %s --pw-gpu-pipeline="features=+ptx80,+ptx86" 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not pw-opt %s --pw-gpu-pipeline="transpose-blocks-per-sm=4294967297" 2>&1 | FileCheck %s --check-prefix=BLOCKS

// The hint's limits given with a load-policy that does not read them, even
// at their defaults, fail rather than change nothing without a word.
// RUN: not pw-opt %s --pw-gpu-pipeline="load-policy=none hint-min-bytes=0" 2>&1 | FileCheck %s --check-prefix=NONE-MIN
// RUN: not pw-opt %s --pw-gpu-pipeline="load-policy=none hint-max-instructions-per-byte=7.25" 2>&1 | FileCheck %s --check-prefix=NONE-MAX
// RUN: not pw-opt %s --pw-gpu-pipeline="hint-min-bytes=1024 load-policy=l1-evict-last" 2>&1 | FileCheck %s --check-prefix=L1-MIN

// EMPTY: error: pw-gpu-pipeline: unsupported chip ''; expected sm_80, sm_86, sm_87, sm_89, sm_90[a], sm_100[a|f], sm_103[a|f], sm_110[a|f], sm_120[a|f] or sm_121[a|f]
// OLD: error: pw-gpu-pipeline: unsupported chip 'sm_75'
// SUFFIX: error: pw-gpu-pipeline: unsupported chip 'sm_80a'
// AMD: error: pw-gpu-pipeline: unsupported chip 'gfx90a'
// FORMAT: for the --format option: Cannot find option named 'elf'!
// TOOLKIT: error: pw-gpu-pipeline: cuda-path '{{.*}}.nowhere' is not a CUDA toolkit (no {{.*}}nvvm{{/|\\}}libdevice{{/|\\}}libdevice.10.bc)
// OPT: error: pw-gpu-pipeline: opt-level must be 0 to 3, got 4
// PTX60: error: pw-gpu-pipeline: features '+ptx60': sm_90 needs PTX ISA 8.0 or newer (+ptx80)
// PTX70: error: pw-gpu-pipeline: features '+ptx70': sm_80 needs PTX ISA 7.4 or newer (+ptx74)
// BOGUS: error: pw-gpu-pipeline: features 'bogus' must be one PTX ISA version, +ptxNN (empty picks +ptx80 for sm_90)
// TWO: error: pw-gpu-pipeline: features '+ptx80,+ptx86' must be one PTX ISA version
// BLOCKS: error: pw-gpu-pipeline: transpose-blocks-per-sm must be 0 to 2147483647, got 4294967297
// NONE-MIN: error: pw-gpu-pipeline: hint-min-bytes needs load-policy=evict-last, l1-evict-last or l2-evict-last (it tunes pw-hint-global-loads' hints, and load-policy=none hints no load)
// NONE-MAX: error: pw-gpu-pipeline: hint-max-instructions-per-byte needs load-policy=evict-last, l1-evict-last or l2-evict-last
// L1-MIN: error: pw-gpu-pipeline: hint-min-bytes needs load-policy=evict-last or l2-evict-last (it decides which launches take the L2 evict_last policy, which load-policy=l1-evict-last does not use)

// RUN: pw-opt %s --pw-gpu-pipeline="chip=sm_80 format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_80 | FileCheck %s --check-prefix=SM80
// RUN: pw-opt %s --pw-gpu-pipeline="chip=sm_86 format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_86 | FileCheck %s --check-prefix=SM86
// RUN: pw-opt %s --pw-gpu-pipeline="chip=sm_90a format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90a | FileCheck %s --check-prefix=SM90A
// RUN: pw-opt %s --pw-gpu-pipeline="chip=sm_103 format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_103 | FileCheck %s --check-prefix=SM103
// RUN: pw-opt %s --pw-gpu-pipeline="chip=sm_110 format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_110 | FileCheck %s --check-prefix=SM110
// RUN: pw-opt %s --pw-gpu-pipeline="chip=sm_120f format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_120f | FileCheck %s --check-prefix=SM120F
// RUN: pw-opt %s --pw-gpu-pipeline="chip=sm_90 features=+ptx86 format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s --check-prefix=PTX86
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa load-policy=l2-evict-last hint-min-bytes=0 hint-max-instructions-per-byte=100" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s --check-prefix=L2-HINT
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa load-policy=l1-evict-last hint-max-instructions-per-byte=100" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s --check-prefix=L1-HINT --implicit-check-not=createpolicy
// REQUIRES: ptxas
// SM80: .version 7.4
// SM80: .target sm_80
// SM80: createpolicy.fractional.L2::evict_last
// SM86: .version 7.4
// SM86: .target sm_86
// SM90A: .version 8.0
// SM90A: .target sm_90a
// SM103: .version 8.8
// SM103: .target sm_103
// SM110: .version 9.0
// SM110: .target sm_110
// SM120F: .version 8.8
// SM120F: .target sm_120f
// PTX86: .version 8.6
// PTX86: .target sm_90
// L2-HINT: createpolicy.fractional.L2::evict_last
// L2-HINT: .L2::cache_hint
// L1-HINT: ld.global.L1::evict_last
func.func @scale(%x: memref<?xf32>, %y: memref<?xf32>) {
  pointwise.map ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32):
    %c = arith.constant 2.0 : f32
    %0 = arith.mulf %a, %c : f32
    pointwise.yield %0 : f32
  }
  return
}
