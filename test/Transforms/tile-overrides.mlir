// pw-tile's options overridden per function by attributes (how pw-compile
// builds the variants of a family in one pipeline run).
// RUN: pw-opt %s --split-input-file --verify-diagnostics --pw-tile | FileCheck %s

// CHECK-LABEL: func.func @general32
// CHECK: arith.index_cast {{.*}} : index to i32
// CHECK: pointwise.strategy = "general"
func.func @general32(%x: memref<?xf32>, %y: memref<?xf32>)
    attributes {pointwise.tile_strategy = "general",
                pointwise.tile_index_bitwidth = 32 : i64} {
  pointwise.map ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// The pass options apply where no attribute says otherwise.
// CHECK-LABEL: func.func @defaults
// CHECK-NOT: i32
// CHECK: pointwise.strategy = "linear"
func.func @defaults(%x: memref<?xf32>, %y: memref<?xf32>) {
  pointwise.map ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// A transpose override where the static strides allow it. Dynamic sizes
// could be 1 at run time and broadcast, which pw-tile would spell out as
// run-time strides (pw-canonicalize-broadcast's rewrite); the functions with
// pointwise.broadcast_resolved promise the iteration shape, as pw-compile's
// variants do, so their static unit strides stay.
// CHECK-LABEL: func.func @transpose
// CHECK: memref.alloca() {pointwise.block_local} : memref<64x65xf32>
// CHECK: pointwise.strategy = "transpose"
func.func @transpose(%x: memref<?x?xf32, strided<[1, ?], offset: ?>>,
                     %y: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {pointwise.tile_strategy = "transpose",
                pointwise.broadcast_resolved} {
  pointwise.map ins(%x : memref<?x?xf32, strided<[1, ?], offset: ?>>)
                outs(%y : memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// The vector width of a rank-2 map: 16 bytes by default, 8 by attribute
// (pw-compile's linear-narrow variants).
// CHECK-LABEL: func.func @rank2_default
// CHECK: vector.load {{.*}} vector<4xf32>
// CHECK-NOT: vector<2xf32>
// CHECK-LABEL: func.func @rank2_narrow
// CHECK: vector.load {{.*}} vector<2xf32>
// CHECK-NOT: vector<4xf32>
// CHECK: pointwise.strategy = "linear"
func.func @rank2_default(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>,
                         %y: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  pointwise.map ins(%x : memref<?x?xf32, strided<[?, ?], offset: ?>>)
                outs(%y : memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}
func.func @rank2_narrow(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>,
                        %y: memref<?x?xf32, strided<[?, ?], offset: ?>>)
    attributes {pointwise.tile_strategy = "linear",
                pointwise.tile_vector_bytes = 8 : i64} {
  pointwise.map ins(%x : memref<?x?xf32, strided<[?, ?], offset: ?>>)
                outs(%y : memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// -----

// expected-error @+1 {{pointwise.tile_vector_bytes must be an integer power of two up to 32, or 0}}
func.func @bad_vector_bytes(%x: memref<?xf32>, %y: memref<?xf32>)
    attributes {pointwise.tile_vector_bytes = 12 : i64} {
  pointwise.map ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// -----

// expected-error @+1 {{pointwise.tile_vector_bytes must be an integer power of two up to 32, or 0}}
func.func @vector_bytes_not_an_integer(%x: memref<?xf32>, %y: memref<?xf32>)
    attributes {pointwise.tile_vector_bytes = "eight"} {
  pointwise.map ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// -----

// expected-error @+1 {{pointwise.tile_strategy must be "auto", "linear", "transpose" or "general"}}
func.func @bad_strategy(%x: memref<?xf32>, %y: memref<?xf32>)
    attributes {pointwise.tile_strategy = "diagonal"} {
  pointwise.map ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// -----

// expected-error @+1 {{pointwise.tile_index_bitwidth must be the integer 0, 32 or 64}}
func.func @bad_bitwidth(%x: memref<?xf32>, %y: memref<?xf32>)
    attributes {pointwise.tile_index_bitwidth = 16 : i64} {
  pointwise.map ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// -----

// The tile edge is an option: 32 gives 32x33 tiles covered in passes of 8
// rows of 32 threads.
// RUN: pw-opt %s --split-input-file --verify-diagnostics --pw-tile=tile-edge=32 | FileCheck %s --check-prefix=EDGE32
// RUN: not pw-opt %s --pw-tile=tile-edge=48 2>&1 | FileCheck %s --check-prefix=EDGE48
// EDGE32-LABEL: func.func @edge
// EDGE32: memref.alloca() {pointwise.block_local} : memref<32x33xf32>
// EDGE48: error: pw-tile: tile-edge must be 16, 32 or 64, got 48
func.func @edge(%x: memref<?x?xf32, strided<[1, ?], offset: ?>>,
                %y: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {pointwise.broadcast_resolved} {
  pointwise.map ins(%x : memref<?x?xf32, strided<[1, ?], offset: ?>>)
                outs(%y : memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// -----

// Tiles must fit in 48 KiB of static shared memory: two transposed i64
// inputs get 32x33 tiles (2 x 8448 bytes) instead of 64x65 (2 x 33280).
// CHECK-LABEL: func.func @wide_elements
// CHECK-COUNT-2: memref.alloca() {pointwise.block_local} : memref<32x33xi64>
func.func @wide_elements(%x: memref<?x?xi64, strided<[1, ?], offset: ?>>,
                         %z: memref<?x?xi64, strided<[1, ?], offset: ?>>,
                         %y: memref<?x?xi64, strided<[?, 1], offset: ?>>)
    attributes {pointwise.broadcast_resolved} {
  pointwise.map ins(%x, %z : memref<?x?xi64, strided<[1, ?], offset: ?>>,
                             memref<?x?xi64, strided<[1, ?], offset: ?>>)
                outs(%y : memref<?x?xi64, strided<[?, 1], offset: ?>>) {
  ^bb0(%a: i64, %b: i64):
    %s = arith.addi %a, %b : i64
    pointwise.yield %s : i64
  }
  return
}
