// pw-tile on static layouts: index arithmetic folds as it is built, so
// sizes, strides and offsets are constants, the host checks only what the
// types cannot know (the pointers' alignment), and the vector width is the
// widest the static rows allow (docs/Performance.md, row
// `static-vector-width`).
// RUN: pw-opt %s --split-input-file --pw-canonicalize-broadcast --pw-coalesce-dims --pw-tile | FileCheck %s

// Rows of 1000 floats in a buffer of 1024-float rows: 16-byte vectors. The
// vector path's condition reads the three pointers and no stride; the grid
// is a constant (1024000 elements, 128 threads x 4 lanes per block).
// CHECK-LABEL: func @row_slice_vectors
// CHECK-NOT: arith.{{.*}}%strides
// CHECK-NOT: arith.{{.*}}%offset
// CHECK: memref.extract_aligned_pointer_as_index %arg2
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK: memref.extract_aligned_pointer_as_index %arg1
// CHECK-NOT: memref.extract_aligned_pointer_as_index
// CHECK: %[[GRID:.*]] = arith.constant 2000 : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[GRID]])
// CHECK-NOT: arith.index_cast %c
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<1099511627776xf32>, vector<4xf32>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<1099511627776xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<1099511627776xf32>, vector<4xf32>
func.func @row_slice_vectors(%a: memref<1024x1000xf32, strided<[1024, 1]>>, %b: memref<1024x1000xf32>, %c: memref<1024x1000xf32>) {
  pointwise.map ins(%a, %b : memref<1024x1000xf32, strided<[1024, 1]>>, memref<1024x1000xf32>) outs(%c : memref<1024x1000xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Rows of 34 floats hold whole 2-lane vectors only.
// CHECK-LABEL: func @rows_of_two_lane_vectors
// CHECK-NOT: vector<4xf32>
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<1099511627776xf32>, vector<2xf32>
// CHECK: vector.store %{{.*}} {alignment = 8 : i64} : memref<1099511627776xf32>, vector<2xf32>
// CHECK-NOT: vector<4xf32>
func.func @rows_of_two_lane_vectors(%a: memref<64x34xf32, strided<[36, 1]>>, %c: memref<64x34xf32>) {
  pointwise.map ins(%a : memref<64x34xf32, strided<[36, 1]>>) outs(%c : memref<64x34xf32>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Rows of 33 floats hold no whole vector: one lane per access, and no
// pointer to check.
// CHECK-LABEL: func @odd_rows_one_lane
// CHECK-NOT: memref.extract_aligned_pointer_as_index
// CHECK-NOT: vector<2xf32>
// CHECK-NOT: vector<4xf32>
// CHECK: vector.load %{{.*}} {alignment = 4 : i64} : memref<1099511627776xf32>, vector<1xf32>
// CHECK-NOT: vector<2xf32>
// CHECK-NOT: vector<4xf32>
func.func @odd_rows_one_lane(%a: memref<64x33xf32, strided<[36, 1]>>, %c: memref<64x33xf32>) {
  pointwise.map ins(%a : memref<64x33xf32, strided<[36, 1]>>) outs(%c : memref<64x33xf32>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// A static transposed input: the transpose strategy, a 64 x 65 tile for it,
// a constant grid of 16 x 16 tiles, and the tile's vector path guarded by
// the pointers' alignment only.
// CHECK-LABEL: func @static_transpose
// CHECK: %[[TILE:.*]] = memref.alloca() {pointwise.block_local} : memref<64x65xf32>
// CHECK-NOT: arith.{{.*}}%strides
// CHECK: %[[GRID:.*]] = arith.constant 256 : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[GRID]])
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<1099511627776xf32>, vector<4xf32>
// CHECK: memref.store %{{.*}}, %[[TILE]]
// CHECK: pointwise.strategy = "transpose"
func.func @static_transpose(%a: memref<1024x1024xf32, strided<[1, 1024]>>, %b: memref<1024x1024xf32>, %c: memref<1024x1024xf32>) {
  pointwise.map ins(%a, %b : memref<1024x1024xf32, strided<[1, 1024]>>, memref<1024x1024xf32>) outs(%c : memref<1024x1024xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// A static unit stride along a dim of dynamic size stays a unit stride for
// the strategy choice: pw-canonicalize-broadcast writes it as
// `size == 1 ? 0 : 1`, which pw-tile reads as 1 unless the dim broadcasts.
// The input is staged through a tile; the tile's vector path also checks at
// run time that the stride is 1 (it is 0 where the input broadcasts).
// CHECK-LABEL: func @unit_stride_of_dynamic_dim_is_transposed
// CHECK: %[[ISONE:.*]] = arith.cmpi eq, %{{.*}}, %c1 : index
// CHECK: %[[STRIDE:.*]] = arith.select %[[ISONE]], %c0{{.*}}, %c1{{.*}} : index
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %arg0 {{.*}} strides: [%[[STRIDE]], %{{.*}}]
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[VIEW]]
// CHECK: memref.alloca() {pointwise.block_local} : memref<64x65xf32>
// CHECK: arith.cmpi eq, %[[STRIDES]]#0, %c1{{.*}} : index
// CHECK: pointwise.strategy = "transpose"
func.func @unit_stride_of_dynamic_dim_is_transposed(%a: memref<?x?xf32, strided<[1, ?]>>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %b : memref<?x?xf32, strided<[1, ?]>>, memref<?x?xf32>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Rows of 64 floats at a pitch of 65: the input's rows are off 16 bytes, so
// 4-byte maps take 8-byte vectors (as a family's linear-narrow variant);
// the input's rows are off 8 bytes too, so it moves lane by lane while the
// output keeps its vectors.
// CHECK-LABEL: func @misaligned_rows_lane_by_lane
// CHECK-NOT: vector<4xf32>
// CHECK: memref.load
// CHECK: memref.load
// CHECK-NOT: vector.load
// CHECK: vector.store %{{.*}} {alignment = 8 : i64} : memref<1099511627776xf32>, vector<2xf32>
// CHECK-NOT: vector<4xf32>
func.func @misaligned_rows_lane_by_lane(%a: memref<64x64xf32, strided<[65, 1]>>, %c: memref<64x64xf32>) {
  pointwise.map ins(%a : memref<64x64xf32, strided<[65, 1]>>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Rows at a pitch of 66 floats are off 16 bytes but on 8: 8-byte vectors
// for every operand.
// CHECK-LABEL: func @rows_off_16_bytes_narrow
// CHECK-NOT: vector<4xf32>
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<1099511627776xf32>, vector<2xf32>
// CHECK: vector.store %{{.*}} {alignment = 8 : i64} : memref<1099511627776xf32>, vector<2xf32>
// CHECK-NOT: vector<4xf32>
func.func @rows_off_16_bytes_narrow(%a: memref<64x64xf32, strided<[66, 1]>>, %c: memref<64x64xf32>) {
  pointwise.map ins(%a : memref<64x64xf32, strided<[66, 1]>>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Halves keep 16-byte vectors (the narrow shape is for 4-byte maps); the
// input, whose rows are off every vector, moves lane by lane.
// CHECK-LABEL: func @misaligned_half_rows
// CHECK-NOT: vector.load
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<1099511627776xf16>, vector<8xf16>
func.func @misaligned_half_rows(%a: memref<64x64xf16, strided<[65, 1]>>, %c: memref<64x64xf16>) {
  pointwise.map ins(%a : memref<64x64xf16, strided<[65, 1]>>) outs(%c : memref<64x64xf16>) {
  ^bb0(%x: f16):
    %0 = arith.addf %x, %x : f16
    pointwise.yield %0 : f16
  }
  return
}
