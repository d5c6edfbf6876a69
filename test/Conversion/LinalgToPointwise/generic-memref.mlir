// Elementwise linalg.generic ops on memrefs become pointwise.map ops over
// views (transposes, unit dims, unit slices) of their operands.
// RUN: pw-opt %s --pw-convert-linalg-to-pointwise | FileCheck %s

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// An input missing the leading loop needs no view: the map broadcasts
// missing leading dims.
// CHECK-LABEL: func @broadcast_leading
// CHECK-SAME: (%[[A:.*]]: memref<5x8xf32>, %[[B:.*]]: memref<4x5x8xf32>, %[[C:.*]]: memref<4x5x8xf32>)
// CHECK-NEXT: pointwise.map ins(%[[A]], %[[B]] : memref<5x8xf32>, memref<4x5x8xf32>) outs(%[[C]] : memref<4x5x8xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: pointwise.yield %[[SUM]] : f32
// CHECK-NOT: linalg
func.func @broadcast_leading(%a: memref<5x8xf32>, %b: memref<4x5x8xf32>, %c: memref<4x5x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, #id3, #id3],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : memref<5x8xf32>, memref<4x5x8xf32>) outs(%c : memref<4x5x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %0 = arith.addf %x, %y : f32
    linalg.yield %0 : f32
  }
  return
}

// A loop missing in the middle becomes a unit dim.
// CHECK-LABEL: func @broadcast_middle
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[C:.*]]: memref<4x5x8xf32>)
// CHECK-NEXT: %[[E:.*]] = memref.expand_shape %[[A]] {{\[}}[0, 1], [2]] output_shape [4, 1, 8] : memref<4x8xf32> into memref<4x1x8xf32>
// CHECK-NEXT: pointwise.map ins(%[[E]] : memref<4x1x8xf32>) outs(%[[C]] : memref<4x5x8xf32>)
// CHECK: arith.negf
func.func @broadcast_middle(%a: memref<4x8xf32>, %c: memref<4x5x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, #id3],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%c : memref<4x5x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %0 = arith.negf %x : f32
    linalg.yield %0 : f32
  }
  return
}

// Trailing missing loops become trailing unit dims, here of a dynamic,
// non-contiguous view.
// CHECK-LABEL: func @broadcast_trailing
// CHECK-SAME: (%[[A:.*]]: memref<?xf32, strided<[?], offset: ?>>, %[[C:.*]]: memref<?x5x8xf32>)
// CHECK: %[[N:.*]] = memref.dim %[[A]]
// CHECK-NEXT: %[[E:.*]] = memref.expand_shape %[[A]] {{\[}}[0, 1, 2]] output_shape [%[[N]], 1, 1] : memref<?xf32, strided<[?], offset: ?>> into memref<?x1x1xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT: pointwise.map ins(%[[E]] : memref<?x1x1xf32, strided<[?, ?, ?], offset: ?>>) outs(%[[C]] : memref<?x5x8xf32>)
func.func @broadcast_trailing(%a: memref<?xf32, strided<[?], offset: ?>>, %c: memref<?x5x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, #id3],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<?xf32, strided<[?], offset: ?>>) outs(%c : memref<?x5x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  return
}

// A transposed input becomes a strided view through memref.transpose.
// CHECK-LABEL: func @transposed_input
// CHECK-SAME: (%[[A:.*]]: memref<8x4xf32>, %[[B:.*]]: memref<4x8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT: %[[T:.*]] = memref.transpose %[[A]] (d0, d1) -> (d1, d0) : memref<8x4xf32> to memref<4x8xf32, strided<[1, 4]>>
// CHECK-NEXT: pointwise.map ins(%[[T]], %[[B]] : memref<4x8xf32, strided<[1, 4]>>, memref<4x8xf32>) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT: arith.subf %[[X]], %[[Y]] : f32
func.func @transposed_input(%a: memref<8x4xf32>, %b: memref<4x8xf32>, %c: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %0 = arith.subf %x, %y : f32
    linalg.yield %0 : f32
  }
  return
}

// A permuted and broadcast input: transpose, then a unit dim.
// CHECK-LABEL: func @transposed_and_broadcast
// CHECK-SAME: (%[[A:.*]]: memref<8x4xf32>, %[[C:.*]]: memref<4x5x8xf32>)
// CHECK-NEXT: %[[T:.*]] = memref.transpose %[[A]] (d0, d1) -> (d1, d0) : memref<8x4xf32> to memref<4x8xf32, strided<[1, 4]>>
// CHECK-NEXT: %[[E:.*]] = memref.expand_shape %[[T]] {{\[}}[0, 1], [2]] output_shape [4, 1, 8] : memref<4x8xf32, strided<[1, 4]>> into memref<4x1x8xf32, strided<[1, 1, 4]>>
// CHECK-NEXT: pointwise.map ins(%[[E]] : memref<4x1x8xf32, strided<[1, 1, 4]>>) outs(%[[C]] : memref<4x5x8xf32>)
func.func @transposed_and_broadcast(%a: memref<8x4xf32>, %c: memref<4x5x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, #id3],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<8x4xf32>) outs(%c : memref<4x5x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  return
}

// Output #0 fixes the order of the iteration space; a second output in
// another order is transposed like an input.
// CHECK-LABEL: func @permuted_outputs
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[C:.*]]: memref<8x4xf32>, %[[D:.*]]: memref<4x8xf32>)
// CHECK-NEXT: %[[TA:.*]] = memref.transpose %[[A]] (d0, d1) -> (d1, d0) : memref<4x8xf32> to memref<8x4xf32, strided<[1, 8]>>
// CHECK-NEXT: %[[TD:.*]] = memref.transpose %[[D]] (d0, d1) -> (d1, d0) : memref<4x8xf32> to memref<8x4xf32, strided<[1, 8]>>
// CHECK-NEXT: pointwise.map ins(%[[TA]] : memref<8x4xf32, strided<[1, 8]>>) outs(%[[C]], %[[TD]] : memref<8x4xf32>, memref<8x4xf32, strided<[1, 8]>>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT: pointwise.yield %[[X]], %[[NEG]] : f32, f32
func.func @permuted_outputs(%a: memref<4x8xf32>, %c: memref<8x4xf32>, %d: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1, d0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%c, %d : memref<8x4xf32>, memref<4x8xf32>) {
  ^bb0(%x: f32, %o0: f32, %o1: f32):
    %0 = arith.negf %x : f32
    linalg.yield %x, %0 : f32, f32
  }
  return
}

// A body that reads its output gets the output as an input too (in place).
// CHECK-LABEL: func @output_read_in_body
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT: pointwise.map ins(%[[A]], %[[C]] : memref<4x8xf32>, memref<4x8xf32>) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[X]], %[[OUT]] : f32
// CHECK-NEXT: pointwise.yield %[[SUM]] : f32
func.func @output_read_in_body(%a: memref<4x8xf32>, %c: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %0 = arith.addf %x, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// The broadcast maps of tosa-to-linalg: a constant 0 on a unit dim lines up
// with the loop it stands for; on a dim that is not statically 1 it reads
// element 0 through a subview.
// CHECK-LABEL: func @constant_zero_dims
// CHECK-SAME: (%[[A:.*]]: memref<4x1x8xf32>, %[[B:.*]]: memref<?x8xf32>, %[[C:.*]]: memref<4x5x8xf32>)
// CHECK-NEXT: %[[ROW:.*]] = memref.subview %[[B]][0, 0] [1, 8] [1, 1] : memref<?x8xf32> to memref<1x8xf32, strided<[8, 1]>>
// CHECK-NEXT: pointwise.map ins(%[[A]], %[[ROW]] : memref<4x1x8xf32>, memref<1x8xf32, strided<[8, 1]>>) outs(%[[C]] : memref<4x5x8xf32>)
func.func @constant_zero_dims(%a: memref<4x1x8xf32>, %b: memref<?x8xf32>, %c: memref<4x5x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>,
                                   affine_map<(d0, d1, d2) -> (0, d2)>, #id3],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : memref<4x1x8xf32>, memref<?x8xf32>) outs(%c : memref<4x5x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %0 = arith.mulf %x, %y : f32
    linalg.yield %0 : f32
  }
  return
}

// Unit dims that have no room where they stand are merged away first.
// CHECK-LABEL: func @unit_dims_collapsed
// CHECK-SAME: (%[[A:.*]]: memref<1x1x8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT: %[[V:.*]] = memref.collapse_shape %[[A]] {{\[}}[0, 1, 2]] : memref<1x1x8xf32> into memref<8xf32>
// CHECK-NEXT: pointwise.map ins(%[[V]] : memref<8xf32>) outs(%[[C]] : memref<4x8xf32>)
func.func @unit_dims_collapsed(%a: memref<1x1x8xf32>, %c: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, 0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<1x1x8xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  return
}

// Scalar operands and captured values become scalar inputs, rank-0 memrefs
// rank-0 inputs; captured constants are cloned into the body.
// CHECK-LABEL: func @scalars
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[S:.*]]: f32, %[[Z:.*]]: memref<f32>, %[[T:.*]]: f32, %[[C:.*]]: memref<4xf32>)
// CHECK: pointwise.map ins(%[[A]], %[[S]], %[[Z]], %[[T]] : memref<4xf32>, f32, memref<f32>, f32) outs(%[[C]] : memref<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[V:.*]]: f32, %[[U:.*]]: f32):
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[TWO]] : f32
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[M]], %[[Y]] : f32
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %[[V]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.subf %[[S2]], %[[U]] : f32
// CHECK-NEXT: pointwise.yield %[[R]] : f32
func.func @scalars(%a: memref<4xf32>, %s: f32, %z: memref<f32>, %t: f32, %c: memref<4xf32>) {
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>,
                                   affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a, %s, %z : memref<4xf32>, f32, memref<f32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32, %w: f32, %out: f32):
    %0 = arith.mulf %x, %two : f32
    %1 = arith.addf %0, %y : f32
    %2 = arith.addf %1, %w : f32
    %3 = arith.subf %2, %t : f32
    linalg.yield %3 : f32
  }
  return
}
