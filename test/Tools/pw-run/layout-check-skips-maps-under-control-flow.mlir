// pw-run checks the arguments' layouts before the call only against the maps
// that every call runs, those of the entry block. A map under control flow
// (an scf.if, a loop) may not run with the given arguments: the pipelines'
// run-time checks check it if the run reaches it, so a map whose layouts
// are wrong does not stop a call that never runs it.

// The guarded copy's input (2 elements) does not broadcast to its output (5
// elements). With a false condition the map does not run: the output keeps
// its contents, with either lowering, and the reference agrees.
// RUN: pw-run %s --entry guarded_copy --fill=iota --arg 2 --arg 5 --arg =false --print --check | FileCheck %s --check-prefix=NOT-TAKEN
// RUN: pw-run %s --entry guarded_copy --fill=iota --arg 2 --arg 5 --arg =false --print --check --lowering=tiled | FileCheck %s --check-prefix=NOT-TAKEN
// NOT-TAKEN: argument #1 (5@1+0 xf32):
// NOT-TAKEN-NEXT: [0, 1, 2, 3, 4]
// NOT-TAKEN-NEXT: check passed

// With a true condition the map runs: the run-time check stops the run
// before it.
// RUN: not pw-run %s --entry guarded_copy --arg 2 --arg 5 --arg =true 2>&1 | FileCheck %s --check-prefix=TAKEN
// RUN: not pw-run %s --entry guarded_copy --arg 2 --arg 5 --arg =true --lowering=tiled 2>&1 | FileCheck %s --check-prefix=TAKEN
// TAKEN: ERROR: Runtime op verification failed
// TAKEN-NEXT: pointwise.map ins(%arg0
// TAKEN-NEXT: ^ input #0 dim 0 does not broadcast to iteration dim 0 (its size is neither 1 nor the iteration size)
// TAKEN-NEXT: Location: loc({{.*}}layout-check-skips-maps-under-control-flow.mlir":[[# @LINE + 23]]:5)
// TAKEN: pw-run: 'guarded_copy': a run-time check failed

// An output that overlaps itself (strides 1, 1) in a loop that runs %n
// times: no iteration, no error; one iteration, the overlap check stops it.
// RUN: pw-run %s --entry repeated_add --fill=iota --arg 3x4 --arg 4 --arg 3x4@1,1 --arg =0 --check | FileCheck %s --check-prefix=PASS
// RUN: not pw-run %s --entry repeated_add --arg 3x4 --arg 4 --arg 3x4@1,1 --arg =1 2>&1 | FileCheck %s --check-prefix=LOOP
// LOOP: pointwise.map: output operand #0 overlaps itself
// LOOP: pw-run: 'repeated_add': a run-time check failed
// PASS: check passed

// A map of the entry block is checked before the call, whatever the maps
// under control flow: the message numbers it among all of the entry's maps.
// (Here it doubles the elements of %d into %c.)
// RUN: not pw-run %s --entry guarded_then_copy --arg 2 --arg 5 --arg =false --arg 3 2>&1 | FileCheck %s --check-prefix=UNCONDITIONAL
// UNCONDITIONAL: pw-run: layout error: guarded_then_copy, pointwise.map #1: operand #1 dim 0 (size 3) does not broadcast to size 5 of iteration dim 0 (operands #0, #1 are arguments 1, 3)
// RUN: pw-run %s --entry guarded_then_copy --fill=iota --arg 2 --arg 5 --arg =false --arg 5 --print --check | FileCheck %s --check-prefix=BOTH
// BOTH: argument #1 (5@1+0 xf32):
// BOTH-NEXT: [0, 2, 4, 6, 8]
// BOTH-NEXT: check passed

func.func @guarded_copy(%a: memref<?xf32>, %c: memref<?xf32>, %run: i1) {
  scf.if %run {
    pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {
    ^bb0(%x: f32):
      pointwise.yield %x : f32
    }
  }
  return
}

func.func @repeated_add(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?xf32>,
                        %c: memref<?x?xf32, strided<[?, ?], offset: ?>>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    pointwise.map ins(%a, %b : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?xf32>)
                  outs(%c : memref<?x?xf32, strided<[?, ?], offset: ?>>) {
    ^bb0(%x: f32, %y: f32):
      %0 = arith.addf %x, %y : f32
      pointwise.yield %0 : f32
    }
  }
  return
}

func.func @guarded_then_copy(%a: memref<?xf32>, %c: memref<?xf32>, %run: i1, %d: memref<?xf32>) {
  scf.if %run {
    pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {
    ^bb0(%x: f32):
      pointwise.yield %x : f32
    }
  }
  pointwise.map ins(%d : memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  }
  return
}
