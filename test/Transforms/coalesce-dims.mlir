// pw-coalesce-dims rewrites maps with static layouts into the equivalent map
// of lowest rank: memory order, unit dims dropped, contiguous dims merged.
// RUN: pw-opt %s --pw-coalesce-dims | FileCheck %s
// RUN: pw-opt %s --pw-canonicalize-broadcast --pw-coalesce-dims | FileCheck %s

// CHECK-LABEL: func @contiguous_becomes_rank_1
// CHECK-SAME: (%[[A:.*]]: memref<2x3x4xf32>, %[[B:.*]]: memref<2x3x4xf32>, %[[C:.*]]: memref<2x3x4xf32>)
// CHECK-DAG: %[[C1:.*]] = memref.reinterpret_cast %[[C]] to offset: [0], sizes: [24], strides: [1] : memref<2x3x4xf32> to memref<24xf32, strided<[1]>>
// CHECK-DAG: %[[A1:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [24], strides: [1]
// CHECK-DAG: %[[B1:.*]] = memref.reinterpret_cast %[[B]] to offset: [0], sizes: [24], strides: [1]
// CHECK: pointwise.map ins(%[[A1]], %[[B1]] : memref<24xf32, strided<[1]>>, memref<24xf32, strided<[1]>>) outs(%[[C1]] : memref<24xf32, strided<[1]>>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT: arith.addf %[[X]], %[[Y]]
func.func @contiguous_becomes_rank_1(%a: memref<2x3x4xf32>, %b: memref<2x3x4xf32>, %c: memref<2x3x4xf32>) {
  pointwise.map ins(%a, %b : memref<2x3x4xf32>, memref<2x3x4xf32>) outs(%c : memref<2x3x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @row_broadcast_stays_rank_2
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<3x4xf32>, memref<3x4xf32, strided<[0, 1]>>) outs(%{{.*}} : memref<3x4xf32>)
func.func @row_broadcast_stays_rank_2(%a: memref<3x4xf32>, %r: memref<4xf32>, %c: memref<3x4xf32>) {
  pointwise.map ins(%a, %r : memref<3x4xf32>, memref<4xf32>) outs(%c : memref<3x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// A row broadcast over a batch merges the batch dims.
// CHECK-LABEL: func @batched_row_broadcast_merges_batch_dims
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<6x4xf32, strided<[4, 1]>>, memref<6x4xf32, strided<[0, 1]>>) outs(%{{.*}} : memref<6x4xf32, strided<[4, 1]>>)
func.func @batched_row_broadcast_merges_batch_dims(%a: memref<2x3x4xf32>, %r: memref<4xf32>, %c: memref<2x3x4xf32>) {
  pointwise.map ins(%a, %r : memref<2x3x4xf32>, memref<4xf32>) outs(%c : memref<2x3x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @column_broadcast_stays_rank_2
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<3x4xf32>, memref<3x4xf32, strided<[1, 0]>>) outs(%{{.*}} : memref<3x4xf32>)
func.func @column_broadcast_stays_rank_2(%a: memref<3x4xf32>, %col: memref<3x1xf32>, %c: memref<3x4xf32>) {
  pointwise.map ins(%a, %col : memref<3x4xf32>, memref<3x1xf32>) outs(%c : memref<3x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @add_transposed_stays_rank_2
// CHECK-NOT: memref.reinterpret_cast
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<3x4xf32>, memref<3x4xf32, strided<[1, 3]>>) outs(%{{.*}} : memref<3x4xf32>)
func.func @add_transposed_stays_rank_2(%a: memref<3x4xf32>, %bt: memref<3x4xf32, strided<[1, 3]>>, %c: memref<3x4xf32>) {
  pointwise.map ins(%a, %bt : memref<3x4xf32>, memref<3x4xf32, strided<[1, 3]>>) outs(%c : memref<3x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// The outputs decide the memory order: a transposed output makes the
// iteration walk its layout, and the contiguous inputs appear transposed.
// CHECK-LABEL: func @transposed_output_orders_the_dims
// CHECK: pointwise.map ins(%{{.*}} : memref<4x3xf32, strided<[1, 4]>>) outs(%{{.*}} : memref<4x3xf32, strided<[3, 1]>>)
func.func @transposed_output_orders_the_dims(%a: memref<3x4xf32>, %ct: memref<3x4xf32, strided<[1, 3]>>) {
  pointwise.map ins(%a : memref<3x4xf32>) outs(%ct : memref<3x4xf32, strided<[1, 3]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// CHECK-LABEL: func @nchw_plus_nhwc_becomes_rank_3
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<2x3x20xf32, strided<[60, 20, 1]>>, memref<2x3x20xf32, strided<[60, 1, 3]>>) outs(%{{.*}} : memref<2x3x20xf32, strided<[60, 20, 1]>>)
func.func @nchw_plus_nhwc_becomes_rank_3(%a: memref<2x3x4x5xf32>, %b: memref<2x3x4x5xf32, strided<[60, 1, 15, 3]>>, %c: memref<2x3x4x5xf32>) {
  pointwise.map ins(%a, %b : memref<2x3x4x5xf32>, memref<2x3x4x5xf32, strided<[60, 1, 15, 3]>>) outs(%c : memref<2x3x4x5xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// a[:, ::2] of a 3x8 matrix is a uniform step of 2.
// CHECK-LABEL: func @every_other_column_becomes_rank_1
// CHECK: pointwise.map ins(%{{.*}} : memref<12xf32, strided<[2], offset: 1>>) outs(%{{.*}} : memref<12xf32, strided<[1]>>)
func.func @every_other_column_becomes_rank_1(%a: memref<3x4xf32, strided<[8, 2], offset: 1>>, %c: memref<3x4xf32>) {
  pointwise.map ins(%a : memref<3x4xf32, strided<[8, 2], offset: 1>>) outs(%c : memref<3x4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// A column slice keeps its row gap: no merge.
// CHECK-LABEL: func @column_slice_stays_rank_2
// CHECK-NOT: memref.reinterpret_cast
// CHECK: pointwise.map ins(%{{.*}} : memref<3x4xf32, strided<[8, 1], offset: 2>>) outs(%{{.*}} : memref<3x4xf32>)
func.func @column_slice_stays_rank_2(%a: memref<3x4xf32, strided<[8, 1], offset: 2>>, %c: memref<3x4xf32>) {
  pointwise.map ins(%a : memref<3x4xf32, strided<[8, 1], offset: 2>>) outs(%c : memref<3x4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// base[:, :, 1:, :, :-1] of a 2x3x5x4x6 tensor: (2, 3) and (4, 4) merge.
// CHECK-LABEL: func @rank_5_slice_becomes_rank_3
// CHECK: pointwise.map ins(%{{.*}} : memref<6x16x5xf32, strided<[120, 6, 1], offset: 24>>) outs(%{{.*}} : memref<6x16x5xf32, strided<[80, 5, 1]>>)
func.func @rank_5_slice_becomes_rank_3(%x: memref<2x3x4x4x5xf32, strided<[360, 120, 24, 6, 1], offset: 24>>, %c: memref<2x3x4x4x5xf32>) {
  pointwise.map ins(%x : memref<2x3x4x4x5xf32, strided<[360, 120, 24, 6, 1], offset: 24>>) outs(%c : memref<2x3x4x4x5xf32>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// CHECK-LABEL: func @zero_d_is_unchanged
// CHECK-NOT: memref.reinterpret_cast
// CHECK: pointwise.map ins(%{{.*}} : memref<f32>) outs(%{{.*}} : memref<f32>)
func.func @zero_d_is_unchanged(%a: memref<f32>, %c: memref<f32>) {
  pointwise.map ins(%a : memref<f32>) outs(%c : memref<f32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// Unit dims of a one-element iteration space all drop: rank 0.
// CHECK-LABEL: func @unit_dims_become_rank_0
// CHECK: pointwise.map ins(%{{.*}} : memref<f32, strided<[]>>) outs(%{{.*}} : memref<f32, strided<[]>>)
func.func @unit_dims_become_rank_0(%a: memref<1x1xf32>, %c: memref<1x1xf32>) {
  pointwise.map ins(%a : memref<1x1xf32>) outs(%c : memref<1x1xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// An empty iteration space has one canonical form: rank 1 of size 0.
// CHECK-LABEL: func @size_zero_becomes_rank_1_of_size_0
// CHECK: pointwise.map ins(%{{.*}} : memref<0xi8, strided<[1]>>) outs(%{{.*}} : memref<0xi8, strided<[1]>>)
func.func @size_zero_becomes_rank_1_of_size_0(%a: memref<3x0xi8, strided<[4, 1]>>, %c: memref<3x0xi8, strided<[1, 3]>>) {
  pointwise.map ins(%a : memref<3x0xi8, strided<[4, 1]>>) outs(%c : memref<3x0xi8, strided<[1, 3]>>) {
  ^bb0(%x: i8):
    pointwise.yield %x : i8
  }
  return
}

// flip(x) reads backwards from the last element: rank 1, stride -1.
// CHECK-LABEL: func @flip_becomes_rank_1_with_negative_stride
// CHECK: pointwise.map ins(%{{.*}} : memref<12xf32, strided<[-1], offset: 11>>) outs(%{{.*}} : memref<12xf32, strided<[1]>>)
func.func @flip_becomes_rank_1_with_negative_stride(%x: memref<3x4xf32, strided<[-4, -1], offset: 11>>, %c: memref<3x4xf32>) {
  pointwise.map ins(%x : memref<3x4xf32, strided<[-4, -1], offset: 11>>) outs(%c : memref<3x4xf32>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// Flipping only the rows breaks contiguity across rows.
// CHECK-LABEL: func @row_flip_stays_rank_2
// CHECK: pointwise.map ins(%{{.*}} : memref<3x4xf32, strided<[-4, 1], offset: 8>>) outs(%{{.*}} : memref<3x4xf32>)
func.func @row_flip_stays_rank_2(%x: memref<3x4xf32, strided<[-4, 1], offset: 8>>, %c: memref<3x4xf32>) {
  pointwise.map ins(%x : memref<3x4xf32, strided<[-4, 1], offset: 8>>) outs(%c : memref<3x4xf32>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// Scalars stay as they are; all outputs coalesce together.
// CHECK-LABEL: func @scalars_and_several_outputs
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<30xf64, strided<[1]>>, f64, i32) outs(%{{.*}}, %{{.*}} : memref<30xf64, strided<[1]>>, memref<30xi1, strided<[1]>>)
// CHECK-NEXT: ^bb0(%{{.*}}: f64, %{{.*}}: f64, %{{.*}}: i32):
func.func @scalars_and_several_outputs(%a: memref<5x6xf64>, %s: f64, %n: i32, %c: memref<5x6xf64>, %d: memref<5x6xi1>) {
  pointwise.map ins(%a, %s, %n : memref<5x6xf64>, f64, i32) outs(%c, %d : memref<5x6xf64>, memref<5x6xi1>) {
  ^bb0(%x: f64, %y: f64, %k: i32):
    %kf = arith.sitofp %k : i32 to f64
    %0 = arith.mulf %x, %y : f64
    %1 = arith.addf %0, %kf : f64
    %2 = arith.cmpf ogt, %1, %y : f64
    pointwise.yield %1, %2 : f64, i1
  }
  return
}

// A dynamic offset is carried over from the operand's metadata.
// CHECK-LABEL: func @dynamic_offset_is_kept
// CHECK-SAME: (%[[A:.*]]: memref<3x4xf32, strided<[4, 1], offset: ?>>
// CHECK: %{{.*}}, %[[OFFSET:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[A]]
// CHECK: memref.reinterpret_cast %[[A]] to offset: [%[[OFFSET]]], sizes: [12], strides: [1] : memref<3x4xf32, strided<[4, 1], offset: ?>> to memref<12xf32, strided<[1], offset: ?>>
func.func @dynamic_offset_is_kept(%a: memref<3x4xf32, strided<[4, 1], offset: ?>>, %c: memref<3x4xf32>) {
  pointwise.map ins(%a : memref<3x4xf32, strided<[4, 1], offset: ?>>) outs(%c : memref<3x4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// Dynamic sizes or strides are coalesced at run time, not here.
// CHECK-LABEL: func @dynamic_layout_is_left_to_the_runtime
// CHECK: pointwise.map ins(%{{.*}} : memref<?x4xf32{{.*}}>) outs(%{{.*}} : memref<?x4xf32>)
func.func @dynamic_layout_is_left_to_the_runtime(%a: memref<?x4xf32>, %c: memref<?x4xf32>) {
  pointwise.map ins(%a : memref<?x4xf32>) outs(%c : memref<?x4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
