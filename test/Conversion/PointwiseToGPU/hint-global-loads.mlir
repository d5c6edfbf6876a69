// pw-hint-global-loads: the kernels' loads of argument memory become inline
// PTX loads with an L2 evict_last policy; everything else stays.
// RUN: pw-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(pw-hint-global-loads))' | FileCheck %s
// RUN: pw-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(pw-hint-global-loads{policy=none}))' | FileCheck %s --check-prefix=NONE
// RUN: pw-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(pw-hint-global-loads{policy=l1-evict-last}))' | FileCheck %s --check-prefix=FIRST-LEVEL
// RUN: pw-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(pw-hint-global-loads{policy=l2-evict-last evict-last-min-bytes=1000}))' | FileCheck %s --check-prefix=SECOND-LEVEL
// RUN: pw-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(pw-hint-global-loads{max-instructions-per-byte=10}))' | FileCheck %s --check-prefix=HEAVY-ALLOWED
// RUN: not pw-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(pw-hint-global-loads{policy=evict-first}))' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not pw-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(pw-hint-global-loads{evict-last-min-bytes=-1}))' 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// BAD: for the --policy option: Cannot find option named 'evict-first'!
// NEGATIVE: pw-hint-global-loads: evict-last-min-bytes must not be negative, got -1

// CHECK-LABEL: llvm.func @kernel
// One policy register per kernel, at its entry.
// CHECK: %[[POLICY:.*]] = llvm.inline_asm "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;", "=l"  : () -> i64
// CHECK-NOT: createpolicy
// A scalar f32 (aligned to its size without an alignment attribute).
// CHECK: %[[S:.*]] = llvm.inline_asm has_side_effects "ld.global.L1::evict_last.L2::cache_hint.b32 $0, [$1], $2;", "=r,l,l" %{{.*}}, %[[POLICY]] : (!llvm.ptr, i64) -> i32
// CHECK: llvm.bitcast %[[S]] : i32 to f32
// An aligned 16-byte vector: four registers, one vector, the loaded type.
// CHECK: %[[V:.*]] = llvm.inline_asm has_side_effects "ld.global.L1::evict_last.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5;", "=r,=r,=r,=r,l,l" %{{.*}}, %[[POLICY]] : (!llvm.ptr, i64) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-COUNT-4: llvm.extractvalue %[[V]]
// CHECK: llvm.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// A misaligned vector stays.
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<4xf32>
// 8 bytes: one 64-bit register.
// CHECK: llvm.inline_asm has_side_effects "ld.global.L1::evict_last.L2::cache_hint.b64 $0, [$1], $2;", "=l,l,l"
// CHECK: llvm.bitcast %{{.*}} : i64 to vector<2xf32>
// f16: one 16-bit register.
// CHECK: llvm.inline_asm has_side_effects "ld.global.L1::evict_last.L2::cache_hint.b16 $0, [$1], $2;", "=h,l,l"
// CHECK: llvm.bitcast %{{.*}} : i16 to f16
// Bytes, workgroup memory and memory that is not an argument's stay.
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i8
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NOT: llvm.load
// CHECK: llvm.return

// NONE-LABEL: llvm.func @kernel
// NONE-NOT: llvm.inline_asm
// NONE-COUNT-8: llvm.load
// NONE-NOT: llvm.inline_asm

gpu.module @kernels {
  llvm.mlir.global internal @tile() {addr_space = 3 : i32} : !llvm.array<64 x f32>
  llvm.func @kernel(%x: !llvm.ptr, %h: !llvm.ptr, %b: !llvm.ptr, %i: i64) attributes {nvvm.kernel} {
    %p = llvm.getelementptr %x[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %s = llvm.load %p : !llvm.ptr -> f32
    %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
    %m = llvm.load %p {alignment = 4 : i64} : !llvm.ptr -> vector<4xf32>
    %w = llvm.load %p {alignment = 8 : i64} : !llvm.ptr -> vector<2xf32>
    %f = llvm.load %h : !llvm.ptr -> f16
    %c = llvm.load %b : !llvm.ptr -> i8
    %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
    %ts = llvm.load %t : !llvm.ptr<3> -> f32
    %q = llvm.inttoptr %i : i64 to !llvm.ptr
    %o = llvm.load %q : !llvm.ptr -> f32
    llvm.store %s, %x : f32, !llvm.ptr
    llvm.store %v, %x {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
    llvm.store %m, %x {alignment = 4 : i64} : vector<4xf32>, !llvm.ptr
    llvm.store %w, %x {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr
    llvm.store %f, %h : f16, !llvm.ptr
    llvm.store %c, %b : i8, !llvm.ptr
    llvm.store %ts, %x : f32, !llvm.ptr
    llvm.store %o, %x : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// A kernel staging two inputs through shared-memory tiles keeps plain loads.
// CHECK-LABEL: llvm.func @two_tiles
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.return
// NONE-LABEL: llvm.func @two_tiles

gpu.module @tiles {
  llvm.mlir.global internal @tile0() {addr_space = 3 : i32} : !llvm.array<64 x f32>
  llvm.mlir.global internal @tile1() {addr_space = 3 : i32} : !llvm.array<64 x f32>
  llvm.func @two_tiles(%x: !llvm.ptr, %y: !llvm.ptr) attributes {nvvm.kernel} {
    %a = llvm.load %x : !llvm.ptr -> f32
    %b = llvm.load %y : !llvm.ptr -> f32
    %t0 = llvm.mlir.addressof @tile0 : !llvm.ptr<3>
    %t1 = llvm.mlir.addressof @tile1 : !llvm.ptr<3>
    llvm.store %a, %t0 : f32, !llvm.ptr<3>
    llvm.store %b, %t1 : f32, !llvm.ptr<3>
    llvm.return
  }
}

// -----

// Loads of an argument the kernel only reads, unaliased (pw-lower-to-gpu's
// llvm.noalias and llvm.readonly), take the coherent path like the others:
// no ld.global.nc with the hint (docs/Performance.md, row `hint-policy`).
// With the bytes per block pw-lower-to-gpu records, the policy is chosen at
// run time: evict_last when the grid reads at least evict-last-min-bytes
// (64 MiB by default), evict_normal below.
// CHECK-LABEL: llvm.func @read_only_sized
// CHECK: %[[LAST:.*]] = llvm.inline_asm "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;"
// CHECK: %[[GRID:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK: %[[BLOCKS:.*]] = llvm.zext %[[GRID]] : i32 to i64
// CHECK: %[[PER:.*]] = llvm.mlir.constant(4096 : i64) : i64
// CHECK: %[[BYTES:.*]] = llvm.mul %[[BLOCKS]], %[[PER]] : i64
// CHECK: %[[MIN:.*]] = llvm.mlir.constant(67108864 : i64) : i64
// CHECK: %[[LARGE:.*]] = llvm.icmp "uge" %[[BYTES]], %[[MIN]] : i64
// CHECK: %[[NORMAL:.*]] = llvm.inline_asm "createpolicy.fractional.L2::evict_normal.b64 $0, 1.0;"
// CHECK: %[[POLICY:.*]] = llvm.select %[[LARGE]], %[[LAST]], %[[NORMAL]] : i1, i64
// CHECK: llvm.inline_asm has_side_effects "ld.global.L1::evict_last.L2::cache_hint.b32 $0, [$1], $2;", "=r,l,l" %{{.*}}, %[[POLICY]]
// CHECK: llvm.inline_asm has_side_effects "ld.global.L1::evict_last.L2::cache_hint.b32 $0, [$1], $2;", "=r,l,l" %{{.*}}, %[[POLICY]]
// NONE-LABEL: llvm.func @read_only_sized
// NONE-NOT: llvm.inline_asm
// Only the L1 priority: no policy register.
// FIRST-LEVEL-LABEL: llvm.func @read_only_sized
// FIRST-LEVEL-NOT: createpolicy
// FIRST-LEVEL: llvm.inline_asm has_side_effects "ld.global.L1::evict_last.b32 $0, [$1];", "=r,l"
// FIRST-LEVEL: llvm.inline_asm has_side_effects "ld.global.L1::evict_last.b32 $0, [$1];", "=r,l"
// Only the L2 policy, with another threshold.
// SECOND-LEVEL-LABEL: llvm.func @read_only_sized
// SECOND-LEVEL: llvm.mlir.constant(1000 : i64) : i64
// SECOND-LEVEL: llvm.inline_asm has_side_effects "ld.global.L2::cache_hint.b32 $0, [$1], $2;", "=r,l,l"
// SECOND-LEVEL: llvm.inline_asm has_side_effects "ld.global.L2::cache_hint.b32 $0, [$1], $2;", "=r,l,l"

gpu.module @sized {
  llvm.func @read_only_sized(%x: !llvm.ptr {llvm.noalias, llvm.readonly}, %y: !llvm.ptr) attributes {nvvm.kernel, pointwise.input_bytes_per_block = 4096 : i64} {
    %a = llvm.load %x : !llvm.ptr -> f32
    %b = llvm.load %y : !llvm.ptr -> f32
    %s = llvm.fadd %a, %b : f32
    llvm.store %s, %y : f32, !llvm.ptr
    llvm.return
  }
}

// -----

// Kernels that compute much per byte moved keep plain loads: above the
// threshold (7.25 by default) the loads stay llvm.load; at it or below,
// and with a higher threshold, they are hinted.
// CHECK-LABEL: llvm.func @heavy
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-LABEL: llvm.func @at_threshold
// CHECK: llvm.inline_asm has_side_effects "ld.global.L1::evict_last.L2::cache_hint.b32
// HEAVY-ALLOWED-LABEL: llvm.func @heavy
// HEAVY-ALLOWED: llvm.inline_asm has_side_effects "ld.global.L1::evict_last.L2::cache_hint.b32
// HEAVY-ALLOWED-LABEL: llvm.func @at_threshold
// HEAVY-ALLOWED: llvm.inline_asm has_side_effects "ld.global.L1::evict_last.L2::cache_hint.b32
// NONE-LABEL: llvm.func @heavy
// NONE-NOT: llvm.inline_asm

gpu.module @work {
  llvm.func @heavy(%x: !llvm.ptr {llvm.noalias, llvm.readonly}, %y: !llvm.ptr) attributes {nvvm.kernel, pointwise.instructions_per_byte = 7.750000e+00 : f64} {
    %a = llvm.load %x : !llvm.ptr -> f32
    llvm.store %a, %y : f32, !llvm.ptr
    llvm.return
  }
  llvm.func @at_threshold(%x: !llvm.ptr {llvm.noalias, llvm.readonly}, %y: !llvm.ptr) attributes {nvvm.kernel, pointwise.instructions_per_byte = 7.250000e+00 : f64} {
    %a = llvm.load %x : !llvm.ptr -> f32
    llvm.store %a, %y : f32, !llvm.ptr
    llvm.return
  }
}
