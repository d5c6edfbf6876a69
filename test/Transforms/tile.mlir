// pw-tile chooses a strategy per map and writes it out as block- and
// thread-mapped loops around the code of one thread.
// RUN: pw-opt %s --split-input-file --pw-canonicalize-broadcast --pw-coalesce-dims --pw-tile | FileCheck %s

// Contiguous operands: linear, with a host-side test for the vector path,
// 8-byte aligned vector accesses of 2 f32 in blocks of 256 threads (rank 1,
// 4-byte elements: tile-linear-shape.mlir; 2 per thread for one memref
// input: tile-unroll.mlir), and a scalar path. The block loop records the
// bytes of input a block reads, for pw-hint-global-loads.
// CHECK-LABEL: func @contiguous_is_linear
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [1099511627776], strides: [1]
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK: %[[THREADS:.*]] = arith.constant 256 : index
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[THREADS]]) step (%{{.*}}) {
// CHECK: scf.if
// CHECK: scf.if
// CHECK-COUNT-2: vector.load %{{.*}} {alignment = 8 : i64} : memref<1099511627776xf32>, vector<2xf32>
// CHECK-NOT: vector.load
// CHECK: vector.store %{{.*}} {alignment = 8 : i64} : memref<1099511627776xf32>, vector<2xf32>
// CHECK: } else {
// CHECK: memref.load
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// A block reads 256 threads x 2 vectors x 8 bytes of input; an element
// costs (negf + 2 x 2 for the accesses) / 8 bytes = 0.625 instructions
// per byte (tile-work-estimate.mlir).
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>], pointwise.input_bytes_per_block = 4096 : i64, pointwise.instructions_per_byte = 6.250000e-01 : f64, pointwise.strategy = "linear"}
func.func @contiguous_is_linear(%a: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Every other column of a matrix (a stride-2 row after coalescing) is
// general, one element per step; the small static layout gets 32-bit index
// arithmetic.
// CHECK-LABEL: func @strided_slice_is_general
// CHECK-NOT: vector.load
// CHECK: arith.muli %{{.*}} : i32
// CHECK: memref.load
// CHECK: pointwise.strategy = "general"
func.func @strided_slice_is_general(%a: memref<64x32xf32>, %b: memref<64x32xf32, strided<[64, 2]>>, %c: memref<64x32xf32>) {
  pointwise.map ins(%a, %b : memref<64x32xf32>, memref<64x32xf32, strided<[64, 2]>>) outs(%c : memref<64x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// A row broadcast stays linear: the row is read with vectors, rows are
// decomposed from the linear index.
// CHECK-LABEL: func @row_broadcast_is_linear
// CHECK: arith.remui
// CHECK: vector.load
// CHECK: pointwise.strategy = "linear"
func.func @row_broadcast_is_linear(%a: memref<?x?xf32>, %r: memref<?xf32>, %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %r : memref<?x?xf32>, memref<?xf32>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// f16 storage: 8 lanes per 16-byte vector, computed in f32, rounded once.
// CHECK-LABEL: func @half_precision_computes_in_f32
// CHECK: vector.load %{{.*}} : memref<1099511627776xf16>, vector<8xf16>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: arith.mulf %{{.*}} : f16
func.func @half_precision_computes_in_f32(%a: memref<?xf16>, %c: memref<?xf16>) {
  pointwise.map ins(%a : memref<?xf16>) outs(%c : memref<?xf16>) {
  ^bb0(%x: f16):
    %0 = arith.mulf %x, %x : f16
    pointwise.yield %0 : f16
  }
  return
}

// -----

// An empty iteration space launches nothing.
// CHECK-LABEL: func @empty_iteration_space_is_guarded
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi ugt, %{{.*}}, %{{.*}}
// CHECK: scf.if %[[NONEMPTY]] {
// CHECK-NOT: }
// CHECK: scf.parallel
func.func @empty_iteration_space_is_guarded(%a: memref<?xi8>, %c: memref<?xi8>) {
  pointwise.map ins(%a : memref<?xi8>) outs(%c : memref<?xi8>) {
  ^bb0(%x: i8):
    pointwise.yield %x : i8
  }
  return
}

// -----

// NCHW + NHWC coalesces to a batched transpose: a 64x65 tile (padded
// against bank conflicts) of the transposed input only, staged by a first
// thread loop and read by a second one, 256 threads each, which reads the
// NCHW input directly; the batch dim comes from the block index.
// CHECK-LABEL: func @nchw_plus_nhwc_is_transpose
// CHECK: %[[TILE:.*]] = memref.alloca() {pointwise.block_local} : memref<64x65xf32>
// CHECK-NOT: memref.alloca
// CHECK: scf.parallel
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[C256:.*]]) step
// CHECK: memref.store %{{.*}}, %[[TILE]]
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK: memref.load %[[TILE]]
// CHECK: pointwise.strategy = "transpose"
func.func @nchw_plus_nhwc_is_transpose(%a: memref<2x64x7x7xf32>, %b: memref<2x64x7x7xf32, strided<[3136, 1, 448, 64]>>, %c: memref<2x64x7x7xf32>) {
  pointwise.map ins(%a, %b : memref<2x64x7x7xf32>, memref<2x64x7x7xf32, strided<[3136, 1, 448, 64]>>) outs(%c : memref<2x64x7x7xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}
