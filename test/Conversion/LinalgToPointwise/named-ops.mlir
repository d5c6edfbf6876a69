// The named elementwise ops become maps like linalg.generic: their bodies
// (an output argument that linalg.map and linalg.fill do not read) and
// their indexing maps (linalg.transpose's permutation, linalg.broadcast's
// missing dims, linalg.fill's scalar) are those of the LinalgOp interface.
// RUN: pw-opt %s --pw-convert-linalg-to-pointwise | FileCheck %s

// CHECK-LABEL: func @map_memref
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<4x8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT: pointwise.map ins(%[[A]], %[[B]] : memref<4x8xf32>, memref<4x8xf32>) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[X]], %[[Y]] : f32
// CHECK-NEXT: pointwise.yield %[[M]] : f32
func.func @map_memref(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<4x8xf32>) {
  linalg.map ins(%a, %b : memref<4x8xf32>, memref<4x8xf32>) outs(%c : memref<4x8xf32>)
    (%x: f32, %y: f32, %out: f32) {
      %0 = arith.maximumf %x, %y : f32
      linalg.yield %0 : f32
    }
  return
}

// CHECK-LABEL: func @map_tensor
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xi32>, %[[INIT:.*]]: tensor<4x8xi32>)
// CHECK-NEXT: %[[R:.*]] = pointwise.map ins(%[[A]] : tensor<4x8xi32>) outs(%[[INIT]] : tensor<4x8xi32>)
// CHECK: arith.muli
// CHECK: } -> tensor<4x8xi32>
// CHECK-NEXT: return %[[R]]
func.func @map_tensor(%a: tensor<4x8xi32>, %init: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %r = linalg.map ins(%a : tensor<4x8xi32>) outs(%init : tensor<4x8xi32>)
    (%x: i32, %out: i32) {
      %0 = arith.muli %x, %x : i32
      linalg.yield %0 : i32
    }
  return %r : tensor<4x8xi32>
}

// CHECK-LABEL: func @elementwise_memref
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<4x8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT: pointwise.map ins(%[[A]], %[[B]] : memref<4x8xf32>, memref<4x8xf32>) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[X]], %[[Y]] : f32
// CHECK-NEXT: pointwise.yield %[[D]] : f32
func.func @elementwise_memref(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<4x8xf32>) {
  linalg.elementwise kind=#linalg.elementwise_kind<sub>
      ins(%a, %b : memref<4x8xf32>, memref<4x8xf32>) outs(%c : memref<4x8xf32>)
  return
}

// CHECK-LABEL: func @elementwise_broadcast_tensor
// CHECK-SAME: (%[[A:.*]]: tensor<8xf32>, %[[INIT:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = pointwise.map ins(%[[A]] : tensor<8xf32>) outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK: math.exp
// CHECK: return %[[R]]
func.func @elementwise_broadcast_tensor(%a: tensor<8xf32>, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.elementwise kind=#linalg.elementwise_kind<exp>
      indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
      ins(%a : tensor<8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// CHECK-LABEL: func @transpose_memref
// CHECK-SAME: (%[[A:.*]]: memref<4x8x3xf16>, %[[C:.*]]: memref<3x4x8xf16>)
// CHECK-NEXT: %[[T:.*]] = memref.transpose %[[A]] (d0, d1, d2) -> (d2, d0, d1) : memref<4x8x3xf16> to memref<3x4x8xf16, strided<[1, 24, 3]>>
// CHECK-NEXT: pointwise.map ins(%[[T]] : memref<3x4x8xf16, strided<[1, 24, 3]>>) outs(%[[C]] : memref<3x4x8xf16>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f16):
// CHECK-NEXT: pointwise.yield %[[X]] : f16
func.func @transpose_memref(%a: memref<4x8x3xf16>, %c: memref<3x4x8xf16>) {
  linalg.transpose ins(%a : memref<4x8x3xf16>) outs(%c : memref<3x4x8xf16>) permutation = [2, 0, 1]
  return
}

// CHECK-LABEL: func @broadcast_memref
// CHECK-SAME: (%[[A:.*]]: memref<4x8xi8>, %[[C:.*]]: memref<4x5x8xi8>)
// CHECK-NEXT: %[[E:.*]] = memref.expand_shape %[[A]] {{\[}}[0, 1], [2]] output_shape [4, 1, 8] : memref<4x8xi8> into memref<4x1x8xi8>
// CHECK-NEXT: pointwise.map ins(%[[E]] : memref<4x1x8xi8>) outs(%[[C]] : memref<4x5x8xi8>)
func.func @broadcast_memref(%a: memref<4x8xi8>, %c: memref<4x5x8xi8>) {
  linalg.broadcast ins(%a : memref<4x8xi8>) outs(%c : memref<4x5x8xi8>) dimensions = [1]
  return
}

// CHECK-LABEL: func @broadcast_tensor
// CHECK-SAME: (%[[A:.*]]: tensor<5xbf16>, %[[INIT:.*]]: tensor<5x3xbf16>)
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[A]] {{\[}}[0, 1]] output_shape [5, 1] : tensor<5xbf16> into tensor<5x1xbf16>
// CHECK-NEXT: %[[R:.*]] = pointwise.map ins(%[[E]] : tensor<5x1xbf16>) outs(%[[INIT]] : tensor<5x3xbf16>)
// CHECK: return %[[R]]
func.func @broadcast_tensor(%a: tensor<5xbf16>, %init: tensor<5x3xbf16>) -> tensor<5x3xbf16> {
  %r = linalg.broadcast ins(%a : tensor<5xbf16>) outs(%init : tensor<5x3xbf16>) dimensions = [1]
  return %r : tensor<5x3xbf16>
}

// CHECK-LABEL: func @copy_memref
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf64, strided<[?, ?], offset: ?>>, %[[C:.*]]: memref<?x?xf64>)
// CHECK-NEXT: pointwise.map ins(%[[A]] : memref<?x?xf64, strided<[?, ?], offset: ?>>) outs(%[[C]] : memref<?x?xf64>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f64):
// CHECK-NEXT: pointwise.yield %[[X]] : f64
func.func @copy_memref(%a: memref<?x?xf64, strided<[?, ?], offset: ?>>, %c: memref<?x?xf64>) {
  linalg.copy ins(%a : memref<?x?xf64, strided<[?, ?], offset: ?>>) outs(%c : memref<?x?xf64>)
  return
}

// CHECK-LABEL: func @copy_tensor
// CHECK-SAME: (%[[A:.*]]: tensor<?xi1>, %[[INIT:.*]]: tensor<?xi1>)
// CHECK-NEXT: %[[R:.*]] = pointwise.map ins(%[[A]] : tensor<?xi1>) outs(%[[INIT]] : tensor<?xi1>)
// CHECK: return %[[R]]
func.func @copy_tensor(%a: tensor<?xi1>, %init: tensor<?xi1>) -> tensor<?xi1> {
  %r = linalg.copy ins(%a : tensor<?xi1>) outs(%init : tensor<?xi1>) -> tensor<?xi1>
  return %r : tensor<?xi1>
}

// CHECK-LABEL: func @fill_memref
// CHECK-SAME: (%[[V:.*]]: i64, %[[C:.*]]: memref<2x3xi64>)
// CHECK-NEXT: pointwise.map ins(%[[V]] : i64) outs(%[[C]] : memref<2x3xi64>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: i64):
// CHECK-NEXT: pointwise.yield %[[X]] : i64
func.func @fill_memref(%v: i64, %c: memref<2x3xi64>) {
  linalg.fill ins(%v : i64) outs(%c : memref<2x3xi64>)
  return
}

// CHECK-LABEL: func @fill_tensor
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = tensor.empty
// CHECK-NEXT: %[[R:.*]] = pointwise.map ins(%[[ZERO]] : f32) outs(%[[INIT]] : tensor<?x4xf32>)
// CHECK: } -> tensor<?x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @fill_tensor(%d: index) -> tensor<?x4xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty(%d) : tensor<?x4xf32>
  %r = linalg.fill ins(%zero : f32) outs(%init : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
