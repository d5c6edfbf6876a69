// The linear strategy's vectors per thread and operand: by default (unroll
// 0), when two or more memref inputs stream, the vectors that make 16 bytes
// (two of 8 bytes at rank 1 with 4-byte elements, one of 16 bytes
// otherwise), two when one input streams; an explicit unroll is kept, at
// most 16 elements per thread.
// RUN: pw-opt %s --split-input-file --pw-tile | FileCheck %s --check-prefixes=CHECK,AUTO
// RUN: pw-opt %s --split-input-file --pw-tile=unroll=3 | FileCheck %s --check-prefixes=CHECK,THREE

// Rank 1, 4-byte elements: 8-byte vectors, two per operand.
// CHECK-LABEL: func @two_inputs
// AUTO-COUNT-4: vector.load %{{.*}} : memref<1099511627776xf32>, vector<2xf32>
// THREE-COUNT-6: vector.load
// CHECK-NOT: vector.load
// CHECK: vector.store
func.func @two_inputs(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a, %b : memref<?xf32>, memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Rank 2: 16-byte vectors, one per operand.
// CHECK-LABEL: func @two_inputs_rank2
// AUTO-COUNT-2: vector.load %{{.*}} : memref<1099511627776xf32>, vector<4xf32>
// THREE-COUNT-6: vector.load
// CHECK-NOT: vector.load
// CHECK: vector.store
func.func @two_inputs_rank2(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// A scalar input streams nothing.
// CHECK-LABEL: func @one_input_and_a_scalar
// AUTO-COUNT-2: vector.load
// THREE-COUNT-3: vector.load
// CHECK-NOT: vector.load
// CHECK: vector.store
func.func @one_input_and_a_scalar(%a: memref<?xf32>, %s: f32, %c: memref<?xf32>) {
  pointwise.map ins(%a, %s : memref<?xf32>, f32) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.mulf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Vectors of 8 f16: 2 per thread at most.
// CHECK-LABEL: func @capped_f16
// CHECK-COUNT-2: vector.load %{{.*}} : memref<1099511627776xf16>, vector<8xf16>
// CHECK-NOT: vector.load
// CHECK: vector.store
func.func @capped_f16(%a: memref<?xf16>, %c: memref<?xf16>) {
  pointwise.map ins(%a : memref<?xf16>) outs(%c : memref<?xf16>) {
  ^bb0(%x: f16):
    %0 = arith.negf %x : f16
    pointwise.yield %0 : f16
  }
  return
}

// -----

// A run-time last stride decides per operand between its vectors and its
// lanes: one branch loads the operand's vectors of every chunk, so that
// they are all in flight before any computation.
// CHECK-LABEL: func @runtime_stride
// AUTO: scf.if %{{.*}} -> (vector<8xf16>, vector<8xf16>) {
// AUTO-NEXT: vector.load %{{.*}} : memref<1099511627776xf16>, vector<8xf16>
// AUTO-NEXT: vector.load %{{.*}} : memref<1099511627776xf16>, vector<8xf16>
// AUTO-NEXT: scf.yield
// AUTO: } else {
// AUTO-COUNT-16: memref.load
// AUTO: scf.yield
// AUTO-NOT: vector.load
// AUTO: vector.store
func.func @runtime_stride(%a: memref<?xf16, strided<[?], offset: ?>>, %c: memref<?xf16, strided<[?], offset: ?>>) {
  pointwise.map ins(%a : memref<?xf16, strided<[?], offset: ?>>) outs(%c : memref<?xf16, strided<[?], offset: ?>>) {
  ^bb0(%x: f16):
    %0 = arith.negf %x : f16
    pointwise.yield %0 : f16
  }
  return
}
