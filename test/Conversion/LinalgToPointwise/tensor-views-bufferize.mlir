// The reshapes and slices the conversion puts on tensor inputs bufferize to
// views: after one-shot-bufferize the maps read the arguments' buffers
// through memref.expand_shape and memref.subview, with no copy and no
// allocation.
// RUN: pw-opt %s --pw-convert-linalg-to-pointwise --one-shot-bufferize=bufferize-function-boundaries | FileCheck %s
// RUN: pw-opt %s --pw-convert-linalg-to-pointwise --one-shot-bufferize=bufferize-function-boundaries | FileCheck %s --check-prefix=NO-COPY
// NO-COPY-NOT: memref.copy
// NO-COPY-NOT: memref.alloc

// CHECK-LABEL: func @views
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32, strided<[?, ?], offset: ?>>, %[[B:.*]]: memref<?x5xf32, strided<[?, ?], offset: ?>>, %[[INIT:.*]]: memref<4x5x8xf32, strided<[?, ?, ?], offset: ?>>)
// CHECK: %[[EA:.*]] = memref.expand_shape %[[A]] {{\[}}[0, 1], [2]] output_shape [4, 1, 8]
// CHECK: %[[ROW:.*]] = memref.subview %[[B]][0, 0] [1, 5] [1, 1]
// CHECK: %[[EB:.*]] = memref.expand_shape %[[ROW]] {{\[}}[0], [1, 2]] output_shape [1, 5, 1]
// CHECK: pointwise.map ins(%[[EA]], %[[EB]] : {{.*}}) outs(%[[INIT]] : memref<4x5x8xf32, strided<[?, ?, ?], offset: ?>>)
// CHECK: return %[[INIT]]
func.func @views(%a: tensor<4x8xf32>, %b: tensor<?x5xf32>, %init: tensor<4x5x8xf32>) -> tensor<4x5x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                        affine_map<(d0, d1, d2) -> (0, d1)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<?x5xf32>) outs(%init : tensor<4x5x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %0 = arith.addf %x, %y : f32
    linalg.yield %0 : f32
  } -> tensor<4x5x8xf32>
  return %r : tensor<4x5x8xf32>
}
