// pw-cpu-pipeline checks its options before any pass runs: reference=1
// (the oracle, no layout transformation) and tiled=1 (the GPU kernels'
// tiled code) name two different lowerings, so together they fail with a
// message naming both and exit status 1, without lowering anything.
// RUN: not pw-opt %s --pw-cpu-pipeline="reference=1 tiled=1" 2>&1 | FileCheck %s --check-prefix=BOTH --implicit-check-not=llvm.func
// RUN: not pw-opt %s --pw-cpu-pipeline="tiled=true reference=true strategy=general" 2>&1 | FileCheck %s --check-prefix=BOTH --implicit-check-not=llvm.func
// BOTH: error: pw-cpu-pipeline: reference=1 and tiled=1 exclude each other: reference=1 lowers the original layouts to plain loops, tiled=1 lowers to the GPU kernels' tiled code; set one of them

// strategy, index-bitwidth and tile-edge steer pw-tile, which only tiled=1
// runs: given without it, even at their defaults, they fail with a message
// naming the option, rather than lower plain loops without a word.
// RUN: not pw-opt %s --pw-cpu-pipeline="strategy=transpose" 2>&1 | FileCheck %s --check-prefix=STRATEGY --implicit-check-not=llvm.func
// RUN: not pw-opt %s --pw-cpu-pipeline="strategy=auto" 2>&1 | FileCheck %s --check-prefix=STRATEGY --implicit-check-not=llvm.func
// RUN: not pw-opt %s --pw-cpu-pipeline="tiled=0 strategy=general" 2>&1 | FileCheck %s --check-prefix=STRATEGY --implicit-check-not=llvm.func
// RUN: not pw-opt %s --pw-cpu-pipeline="reference=1 strategy=general" 2>&1 | FileCheck %s --check-prefix=STRATEGY --implicit-check-not=llvm.func
// STRATEGY: error: pw-cpu-pipeline: strategy needs tiled=1 (it steers pw-tile, which only the tiled lowering runs)
// RUN: not pw-opt %s --pw-cpu-pipeline="index-bitwidth=32" 2>&1 | FileCheck %s --check-prefix=BITWIDTH --implicit-check-not=llvm.func
// RUN: not pw-opt %s --pw-cpu-pipeline="index-bitwidth=0" 2>&1 | FileCheck %s --check-prefix=BITWIDTH --implicit-check-not=llvm.func
// BITWIDTH: error: pw-cpu-pipeline: index-bitwidth needs tiled=1 (it steers pw-tile, which only the tiled lowering runs)
// RUN: not pw-opt %s --pw-cpu-pipeline="tile-edge=32" 2>&1 | FileCheck %s --check-prefix=EDGE --implicit-check-not=llvm.func
// RUN: not pw-opt %s --pw-cpu-pipeline="reference=1 tile-edge=64" 2>&1 | FileCheck %s --check-prefix=EDGE --implicit-check-not=llvm.func
// EDGE: error: pw-cpu-pipeline: tile-edge needs tiled=1 (it steers pw-tile, which only the tiled lowering runs)

// With tiled=1 they reach pw-tile.
// RUN: pw-opt %s --pw-cpu-pipeline="tiled=1 strategy=linear index-bitwidth=32 tile-edge=32" | FileCheck %s --check-prefix=LOWERED
// RUN: pw-opt %s --pw-cpu-pipeline="tiled=1 index-bitwidth=32" | FileCheck %s --check-prefix=INDEX32
// INDEX32-LABEL: llvm.func @scale(
// INDEX32: llvm.mul %{{.*}} : i32
// RUN: not pw-opt %s --pw-cpu-pipeline="tiled=1 strategy=transpose" 2>&1 | FileCheck %s --check-prefix=TRANSPOSE
// TRANSPOSE: error: 'pointwise.map' op the transpose strategy needs outputs contiguous along the last dim and an input contiguous along another dim

// Either one alone lowers, as does one set and the other cleared.
// RUN: pw-opt %s --pw-cpu-pipeline="reference=1" | FileCheck %s --check-prefix=LOWERED
// RUN: pw-opt %s --pw-cpu-pipeline="reference=1 tiled=0" | FileCheck %s --check-prefix=LOWERED
// RUN: pw-opt %s --pw-cpu-pipeline="tiled=1" | FileCheck %s --check-prefix=LOWERED
// RUN: pw-opt %s --pw-cpu-pipeline="reference=0 tiled=1 strategy=general" | FileCheck %s --check-prefix=LOWERED
// LOWERED-LABEL: llvm.func @scale(
// LOWERED: llvm.fmul
// LOWERED: llvm.return

// tiled=1 runs pw-tile; reference=1 does not.
// RUN: pw-opt %s --pw-cpu-pipeline="tiled=1" --mlir-print-ir-after=pw-tile -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILED
// TILED: IR Dump After TilePass
// RUN: pw-opt %s --pw-cpu-pipeline="reference=1" --mlir-print-ir-after=pw-tile -o /dev/null 2>&1 | FileCheck %s --check-prefix=REFERENCE --allow-empty
// REFERENCE-NOT: IR Dump After TilePass
func.func @scale(%x: memref<?xf32>, %y: memref<?xf32>) {
  pointwise.map ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32):
    %c = arith.constant 2.0 : f32
    %0 = arith.mulf %a, %c : f32
    pointwise.yield %0 : f32
  }
  return
}
