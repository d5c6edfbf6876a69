// Programs, not single maps: a tensor chain with a temporary and a returned
// buffer, maps under scf.for and scf.if, index scalars (a memref program
// with its own temporary and copy is memref-temporary-and-copy.mlir: a
// module with tensors is bufferized, and upstream's deallocation rejects
// the memref.dealloc ops of its memref functions). The CPU
// runs them here; test/Integration/GPU/pipeline.test runs the same entries
// through pw-gpu-pipeline on the GPU against the CPU reference.
// RUN: pw-run %s --entry chain --fill=iota --arg 6 --arg 6 --print --check | FileCheck %s --check-prefix=CHAIN
// RUN: pw-run %s --entry repeat --fill=iota --arg 5 --arg =3 --print --check | FileCheck %s --check-prefix=REPEAT
// RUN: pw-run %s --entry choose --fill=iota --arg 4 --arg 4 --arg =1 --print --check | FileCheck %s --check-prefix=CHOOSE
// RUN: pw-run %s --entry choose --fill=iota --arg 4 --arg 4 --arg =0 --print --check | FileCheck %s --check-prefix=OTHER

// (a + b) * b through a temporary; the result is a new buffer.
// CHAIN: result #0 (6@1+0 xf32):
// CHAIN-NEXT: [0, 2, 8, 18, 32, 50]
// CHAIN: check passed
func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %t = pointwise.map ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  %e2 = tensor.empty(%n) : tensor<?xf32>
  %r = pointwise.map ins(%t, %b : tensor<?xf32>, tensor<?xf32>) outs(%e2 : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.mulf %x, %y : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// Adds the iteration index %i, an index scalar, k times.
// REPEAT: argument #0 (5@1+0 xi64):
// REPEAT-NEXT: [3, 4, 5, 6, 7]
// REPEAT: check passed
func.func @repeat(%a: memref<?xi64>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %k step %c1 {
    %one = arith.constant 1 : index
    pointwise.map ins(%a, %one : memref<?xi64>, index) outs(%a : memref<?xi64>) {
    ^bb0(%x: i64, %step: index):
      %s = arith.index_cast %step : index to i64
      %0 = arith.addi %x, %s : i64
      pointwise.yield %0 : i64
    }
  }
  return
}

// One of two maps runs, by a flag.
// CHOOSE: argument #1 (4@1+0 xf64):
// CHOOSE-NEXT: [-0, -1, -2, -3]
// CHOOSE: check passed
// OTHER: argument #1 (4@1+0 xf64):
// OTHER-NEXT: [0, 2, 4, 6]
// OTHER: check passed
func.func @choose(%a: memref<?xf64>, %out: memref<?xf64>, %negate: i1) {
  scf.if %negate {
    pointwise.map ins(%a : memref<?xf64>) outs(%out : memref<?xf64>) {
    ^bb0(%x: f64):
      %0 = arith.negf %x : f64
      pointwise.yield %0 : f64
    }
  } else {
    pointwise.map ins(%a, %a : memref<?xf64>, memref<?xf64>) outs(%out : memref<?xf64>) {
    ^bb0(%x: f64, %y: f64):
      %0 = arith.addf %x, %y : f64
      pointwise.yield %0 : f64
    }
  }
  return
}
