// pw-convert-linalg-to-pointwise on each elementwise linalg op, on tensors
// and memrefs: inputs become views aligned with the outputs' dims.
// RUN: pw-opt %s --split-input-file --pw-convert-linalg-to-pointwise | FileCheck %s

// A broadcast along the trailing dim: a unit dim after the input's own.
// CHECK-LABEL: func @broadcast_trailing_dim
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4x8xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK: %[[R:.*]] = pointwise.map ins(%[[A]], %[[E]] : tensor<4x8xf32>, tensor<4x1xf32>) outs(%[[I]] : tensor<4x8xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: pointwise.yield %[[S]] : f32
// CHECK-NEXT: } -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @broadcast_trailing_dim(%a: tensor<4x8xf32>, %b: tensor<4xf32>, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<4xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %0 = arith.addf %x, %y : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Broadcasts in the middle and leading dims, dynamic sizes: a unit dim in
// the middle, none for the leading dim (the map broadcasts it).
// CHECK-LABEL: func @broadcast_middle_and_leading_dims
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf16>, %[[I:.*]]: tensor<?x?x?x?xf16>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 1, %{{.*}}] : tensor<?x?xf16> into tensor<?x1x?xf16>
// CHECK: pointwise.map ins(%[[E]] : tensor<?x1x?xf16>) outs(%[[I]] : tensor<?x?x?x?xf16>)
func.func @broadcast_middle_and_leading_dims(%a: tensor<?x?xf16>, %init: tensor<?x?x?x?xf16>) -> tensor<?x?x?x?xf16> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : tensor<?x?xf16>) outs(%init : tensor<?x?x?x?xf16>) {
  ^bb0(%x: f16, %o: f16):
    %0 = arith.negf %x : f16
    linalg.yield %0 : f16
  } -> tensor<?x?x?x?xf16>
  return %r : tensor<?x?x?x?xf16>
}

// -----

// A transposed memref input is a memref.transpose view; a body that reads
// its output gets the output as an input too; a captured value becomes a
// scalar input.
// CHECK-LABEL: func @transposed_input_output_read
// CHECK-SAME: (%[[A:.*]]: memref<8x4xf32>, %[[B:.*]]: memref<8xf32>, %[[C:.*]]: memref<4x8xf32>, %[[S:.*]]: f32)
// CHECK: %[[T:.*]] = memref.transpose %[[A]] (d0, d1) -> (d1, d0) : memref<8x4xf32> to memref<4x8xf32, strided<[1, 4]>>
// CHECK: pointwise.map ins(%[[T]], %[[B]], %[[C]], %[[S]] : memref<4x8xf32, strided<[1, 4]>>, memref<8xf32>, memref<4x8xf32>, f32) outs(%[[C]] : memref<4x8xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[O:.*]]: f32, %[[K:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[K]] : f32
// CHECK-NEXT: %[[P:.*]] = arith.addf %[[M]], %[[Y]] : f32
// CHECK-NEXT: %[[Q:.*]] = arith.addf %[[P]], %[[O]] : f32
// CHECK-NEXT: pointwise.yield %[[Q]] : f32
func.func @transposed_input_output_read(%a: memref<8x4xf32>, %b: memref<8xf32>, %c: memref<4x8xf32>, %s: f32) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<8x4xf32>, memref<8xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %0 = arith.mulf %x, %s : f32
    %1 = arith.addf %0, %y : f32
    %2 = arith.addf %1, %o : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

// A permuted output: the iteration space is the output's, the inputs follow.
// CHECK-LABEL: func @permuted_output
// CHECK-SAME: (%[[A:.*]]: memref<2x3xi32>, %[[C:.*]]: memref<3x2xi32>)
// CHECK: %[[T:.*]] = memref.transpose %[[A]] (d0, d1) -> (d1, d0)
// CHECK: pointwise.map ins(%[[T]] : memref<3x2xi32, strided<[1, 3]>>) outs(%[[C]] : memref<3x2xi32>)
func.func @permuted_output(%a: memref<2x3xi32>, %c: memref<3x2xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<2x3xi32>) outs(%c : memref<3x2xi32>) {
  ^bb0(%x: i32, %o: i32):
    linalg.yield %x : i32
  }
  return
}

// -----

// Named ops: map, elementwise, transpose (memref), broadcast, copy, fill.
// CHECK-LABEL: func @named_ops
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>, %[[V:.*]]: tensor<8xf32>, %[[M:.*]]: memref<8x4xf32>, %[[N:.*]]: memref<4x8xf32>, %[[S:.*]]: f32)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[MAP:.*]] = pointwise.map ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: arith.subf
// CHECK: %[[ELT:.*]] = pointwise.map ins(%[[MAP]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: arith.mulf
// CHECK: %[[BC:.*]] = pointwise.map ins(%[[V]] : tensor<8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: %[[CP:.*]] = pointwise.map ins(%[[BC]] : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: %[[FILL:.*]] = pointwise.map ins(%[[S]] : f32) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: %[[T:.*]] = memref.transpose %[[M]] (d0, d1) -> (d1, d0)
// CHECK: pointwise.map ins(%[[T]] : memref<4x8xf32, strided<[1, 4]>>) outs(%[[N]] : memref<4x8xf32>)
// CHECK-NOT: linalg.
func.func @named_ops(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %v: tensor<8xf32>, %m: memref<8x4xf32>, %n: memref<4x8xf32>, %s: f32) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.map ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
    (%x: f32, %y: f32, %o: f32) {
      %d = arith.subf %x, %y : f32
      linalg.yield %d : f32
    }
  %1 = linalg.elementwise kind=#linalg.elementwise_kind<mul> ins(%0, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = linalg.broadcast ins(%v : tensor<8xf32>) outs(%e : tensor<4x8xf32>) dimensions = [0]
  %3 = linalg.copy ins(%2 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = linalg.fill ins(%s : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  linalg.transpose ins(%m : memref<8x4xf32>) outs(%n : memref<4x8xf32>) permutation = [1, 0]
  return %1, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
