// pw-reduce knows the pointwise dialect: it shrinks a module to what the
// test script finds interesting (a map computing math.exp) and drops the
// function that does not matter. (Variants it rejects are reported on
// stderr as verifier errors.)
// RUN: pw-reduce %s -reduction-tree='traversal-mode=0 test=%S/Inputs/computes-exp.sh' 2> %t.rejected | FileCheck %s

// CHECK-NOT: @unrelated
// CHECK-LABEL: func.func @softplus
// CHECK: pointwise.map
// CHECK: math.exp
// CHECK-NOT: @unrelated
func.func @softplus(%a: memref<?xf32>, %c: memref<?xf32>, %d: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    %e = math.exp %x : f32
    %one = arith.constant 1.0 : f32
    %s = arith.addf %e, %one : f32
    %l = math.log %s : f32
    pointwise.yield %l : f32
  }
  pointwise.map ins(%a : memref<?xf32>) outs(%d : memref<?xf32>) {
  ^bb0(%x: f32):
    %m = arith.mulf %x, %x : f32
    pointwise.yield %m : f32
  }
  return
}

func.func @unrelated(%a: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    %n = arith.negf %x : f32
    pointwise.yield %n : f32
  }
  return
}
