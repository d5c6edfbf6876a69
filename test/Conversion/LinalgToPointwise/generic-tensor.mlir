// Elementwise linalg.generic ops on tensors become maps of the tensor form
// over reshapes and slices that bufferize to views.
// RUN: pw-opt %s --pw-convert-linalg-to-pointwise | FileCheck %s

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// Unit dims for missing loops in the middle and at the end, none for the
// leading ones.
// CHECK-LABEL: func @broadcasts
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<?xf32>, %[[C:.*]]: tensor<5x8xf32>, %[[INIT:.*]]: tensor<?x5x8xf32>)
// CHECK-NEXT: %[[EA:.*]] = tensor.expand_shape %[[A]] {{\[}}[0, 1], [2]] output_shape [4, 1, 8] : tensor<4x8xf32> into tensor<4x1x8xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[B]]
// CHECK-NEXT: %[[EB:.*]] = tensor.expand_shape %[[B]] {{\[}}[0, 1, 2]] output_shape [%[[N]], 1, 1] : tensor<?xf32> into tensor<?x1x1xf32>
// CHECK-NEXT: %[[R:.*]] = pointwise.map ins(%[[EA]], %[[EB]], %[[C]] : tensor<4x1x8xf32>, tensor<?x1x1xf32>, tensor<5x8xf32>) outs(%[[INIT]] : tensor<?x5x8xf32>)
// CHECK: } -> tensor<?x5x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @broadcasts(%a: tensor<4x8xf32>, %b: tensor<?xf32>, %c: tensor<5x8xf32>, %init: tensor<?x5x8xf32>) -> tensor<?x5x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                        affine_map<(d0, d1, d2) -> (d0)>,
                                        affine_map<(d0, d1, d2) -> (d1, d2)>, #id3],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b, %c : tensor<4x8xf32>, tensor<?xf32>, tensor<5x8xf32>) outs(%init : tensor<?x5x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
    %0 = arith.addf %x, %y : f32
    %1 = arith.addf %0, %z : f32
    linalg.yield %1 : f32
  } -> tensor<?x5x8xf32>
  return %r : tensor<?x5x8xf32>
}

// The destination read in the body is an input too.
// CHECK-LABEL: func @output_read_in_body
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[INIT:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = pointwise.map ins(%[[A]], %[[INIT]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[OUT]] : f32
// CHECK-NEXT: pointwise.yield %[[P]] : f32
func.func @output_read_in_body(%a: tensor<4x8xf32>, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %0 = arith.mulf %x, %out : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// Operands that share a permutation of the loops need no transpose: the
// iteration space takes the outputs' order.
// CHECK-LABEL: func @shared_permutation
// CHECK-SAME: (%[[A:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<4xf32>, %[[INIT:.*]]: tensor<8x4xf32>)
// CHECK-NEXT: pointwise.map ins(%[[A]], %[[B]] : tensor<8x4xf32>, tensor<4xf32>) outs(%[[INIT]] : tensor<8x4xf32>)
func.func @shared_permutation(%a: tensor<8x4xf32>, %b: tensor<4xf32>, %init: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                                        affine_map<(d0, d1) -> (d0)>,
                                        affine_map<(d0, d1) -> (d1, d0)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x4xf32>, tensor<4xf32>) outs(%init : tensor<8x4xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %0 = arith.divf %x, %y : f32
    linalg.yield %0 : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// Constant-0 dims: a unit dim lines up, a dynamic one is sliced to size 1;
// a rank-0 tensor stays an input, which broadcasts.
// CHECK-LABEL: func @constant_zero_and_rank_0
// CHECK-SAME: (%[[A:.*]]: tensor<4x1xf32>, %[[B:.*]]: tensor<?x8xf32>, %[[S:.*]]: tensor<f32>, %[[INIT:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[ROW:.*]] = tensor.extract_slice %[[B]][0, 0] [1, 8] [1, 1] : tensor<?x8xf32> to tensor<1x8xf32>
// CHECK-NEXT: pointwise.map ins(%[[A]], %[[ROW]], %[[S]] : tensor<4x1xf32>, tensor<1x8xf32>, tensor<f32>) outs(%[[INIT]] : tensor<4x8xf32>)
func.func @constant_zero_and_rank_0(%a: tensor<4x1xf32>, %b: tensor<?x8xf32>, %s: tensor<f32>, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>,
                                        affine_map<(d0, d1) -> (0, d1)>,
                                        affine_map<(d0, d1) -> ()>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %s : tensor<4x1xf32>, tensor<?x8xf32>, tensor<f32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
    %0 = arith.addf %x, %y : f32
    %1 = arith.mulf %0, %z : f32
    linalg.yield %1 : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// Two results.
// CHECK-LABEL: func @two_outputs
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[I0:.*]]: tensor<4xf32>, %[[I1:.*]]: tensor<4xi1>)
// CHECK-NEXT: %[[R:.*]]:2 = pointwise.map ins(%[[A]] : tensor<4xf32>) outs(%[[I0]], %[[I1]] : tensor<4xf32>, tensor<4xi1>)
// CHECK: pointwise.yield %{{.*}}, %{{.*}} : f32, i1
// CHECK-NEXT: } -> tensor<4xf32>, tensor<4xi1>
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1
func.func @two_outputs(%a: tensor<4xf32>, %i0: tensor<4xf32>, %i1: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi1>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                          affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%i0, %i1 : tensor<4xf32>, tensor<4xi1>) {
  ^bb0(%x: f32, %o0: f32, %o1: i1):
    %0 = math.absf %x : f32
    %1 = arith.cmpf ogt, %x, %0 : f32
    linalg.yield %0, %1 : f32, i1
  } -> (tensor<4xf32>, tensor<4xi1>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi1>
}
