// Passes that work on layouts leave tensor maps alone; passes that lower
// maps reject them (tensor-maps-must-be-bufferized.mlir).
// RUN: pw-opt %s --pw-canonicalize-broadcast --pw-coalesce-dims --pw-runtime-overlap-checks | FileCheck %s

// CHECK-LABEL: func @tensor_map
// CHECK-SAME: (%[[A:.*]]: tensor<4x1x8xf32>, %[[I:.*]]: tensor<4x3x8xf32>)
// CHECK-NEXT: %[[R:.*]] = pointwise.map ins(%[[A]] : tensor<4x1x8xf32>) outs(%[[I]] : tensor<4x3x8xf32>)
// CHECK: return %[[R]]
func.func @tensor_map(%a: tensor<4x1x8xf32>, %init: tensor<4x3x8xf32>) -> tensor<4x3x8xf32> {
  %r = pointwise.map ins(%a : tensor<4x1x8xf32>) outs(%init : tensor<4x3x8xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<4x3x8xf32>
  return %r : tensor<4x3x8xf32>
}
