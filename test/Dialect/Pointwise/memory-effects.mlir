// pointwise.map on memrefs reads its inputs and writes its outputs, so upstream
// passes neither merge nor drop maps, and keep loads of their outputs.
// RUN: pw-opt %s --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func @identical_maps_are_not_merged
// CHECK-COUNT-2: pointwise.map
func.func @identical_maps_are_not_merged(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// CHECK-LABEL: func @loads_around_a_map_are_not_merged
// CHECK: memref.load
// CHECK: pointwise.map
// CHECK: memref.load
// CHECK: arith.subf
func.func @loads_around_a_map_are_not_merged(%a: memref<4xf32>, %c: memref<4xf32>) -> f32 {
  %i = arith.constant 0 : index
  %before = memref.load %c[%i] : memref<4xf32>
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  %after = memref.load %c[%i] : memref<4xf32>
  %d = arith.subf %after, %before : f32
  return %d : f32
}

// CHECK-LABEL: func @map_with_unused_outputs_is_kept
// CHECK: memref.alloc
// CHECK: pointwise.map
func.func @map_with_unused_outputs_is_kept(%a: memref<4xf32>) {
  %c = memref.alloc() : memref<4xf32>
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// A tensor map has no memory effects: CSE merges identical ones and an unused
// one is deleted.
// CHECK-LABEL: func @tensor_maps_are_values
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]] = pointwise.map ins(%[[A]] : tensor<4xf32>) outs(%[[I]] : tensor<4xf32>)
// CHECK-NOT: pointwise.map
// CHECK: return %[[R]], %[[R]]
func.func @tensor_maps_are_values(%a: tensor<4xf32>, %init: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r = pointwise.map ins(%a : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<4xf32>
  %s = pointwise.map ins(%a : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<4xf32>
  %unused = pointwise.map ins(%a : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32):
    %0 = math.exp %x : f32
    pointwise.yield %0 : f32
  } -> tensor<4xf32>
  return %r, %s : tensor<4xf32>, tensor<4xf32>
}
