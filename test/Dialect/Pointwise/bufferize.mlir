// One-shot bufferization turns tensor maps into memref maps, in place where
// the analysis allows. A map overwrites every element of its destination and
// never reads it, so a destination that cannot be written in place gets a new
// buffer and never a copy of its old contents.
// RUN: pw-opt %s --one-shot-bufferize=bufferize-function-boundaries --split-input-file | FileCheck %s
// The plugin's registration gives mlir-opt the same bufferization.
// RUN: mlir-opt %s --load-dialect-plugin=%pointwise_plugin --one-shot-bufferize=bufferize-function-boundaries --split-input-file | FileCheck %s

// ins(%a, %b) outs(%a): the map writes %a's buffer in place.
// CHECK-LABEL: func @in_place
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[B:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: pointwise.map ins(%[[A]], %[[B]] : {{.*}}) outs(%[[A]] : memref<?x?xf32, strided<[?, ?], offset: ?>>) {
// CHECK: arith.addf
// CHECK: }
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: return %[[A]]
func.func @in_place(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = pointwise.map ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%a : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A destination from tensor.empty: one allocation, no copy.
// CHECK-LABEL: func @empty_destination
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf16, strided<[?, ?], offset: ?>>)
// CHECK: %[[NEW:.*]] = memref.alloc() {{.*}} : memref<4x8xf16>
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: pointwise.map ins(%[[A]] : memref<4x8xf16, strided<[?, ?], offset: ?>>) outs(%[[NEW]] : memref<4x8xf16>) {
// CHECK-NOT: memref.copy
// CHECK: return %[[NEW]]
func.func @empty_destination(%a: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %e = tensor.empty() : tensor<4x8xf16>
  %r = pointwise.map ins(%a : tensor<4x8xf16>) outs(%e : tensor<4x8xf16>) {
  ^bb0(%x: f16):
    %0 = arith.negf %x : f16
    pointwise.yield %0 : f16
  } -> tensor<4x8xf16>
  return %r : tensor<4x8xf16>
}

// -----

// %a is read after the map that would update it in place: the analysis finds
// the conflict and the first map writes a new buffer (no copy: the map does
// not read its destination); the second map, the last reader, updates %a in
// place.
// CHECK-LABEL: func @read_after_in_place
// CHECK-SAME: (%[[A:.*]]: memref<?xf32, strided<[?], offset: ?>>)
// CHECK: %[[NEW:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?xf32>
// CHECK-NOT: memref.copy
// CHECK: pointwise.map ins(%[[A]] : memref<?xf32, strided<[?], offset: ?>>) outs(%[[NEW]] : memref<?xf32>) {
// CHECK: arith.negf
// CHECK: pointwise.map ins(%[[A]], %[[NEW]] : memref<?xf32, strided<[?], offset: ?>>, memref<?xf32>) outs(%[[A]] : memref<?xf32, strided<[?], offset: ?>>) {
// CHECK: arith.mulf
// CHECK-NOT: memref.copy
// CHECK: return %[[A]]
func.func @read_after_in_place(%a: tensor<?xf32>) -> tensor<?xf32> {
  %n = pointwise.map ins(%a : tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  %r = pointwise.map ins(%a, %n : tensor<?xf32>, tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.mulf %x, %y : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A broadcast input does not keep the other operands from being in place:
// %a is updated in place while %row broadcasts along its rows.
// CHECK-LABEL: func @broadcast_input_in_place
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32, strided<[?, ?], offset: ?>>, %[[ROW:.*]]: memref<8xf32, strided<[?], offset: ?>>, %[[S:.*]]: f32)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: pointwise.map ins(%[[A]], %[[ROW]], %[[S]] : {{.*}}) outs(%[[A]] : memref<4x8xf32, strided<[?, ?], offset: ?>>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: return %[[A]]
func.func @broadcast_input_in_place(%a: tensor<4x8xf32>, %row: tensor<8xf32>, %s: f32) -> tensor<4x8xf32> {
  %r = pointwise.map ins(%a, %row, %s : tensor<4x8xf32>, tensor<8xf32>, f32) outs(%a : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.mulf %y, %z : f32
    %1 = arith.addf %x, %0 : f32
    pointwise.yield %1 : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A broadcast input is not an elementwise access of the destination it
// aliases: writing %a in place while reading %a's first row, broadcast,
// would read overwritten values. The analysis finds the conflict and copies
// the row (the smaller buffer) before the map writes %a in place.
// CHECK-LABEL: func @broadcast_of_the_destination
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32, strided<[?, ?], offset: ?>>)
// CHECK: %[[SLICE:.*]] = memref.subview %[[A]][0, 0] [1, 8] [1, 1]
// CHECK: %[[ROW:.*]] = memref.alloc() {{.*}} : memref<1x8xf32>
// CHECK: memref.copy %[[SLICE]], %[[ROW]]
// CHECK: pointwise.map ins(%[[ROW]] : memref<1x8xf32>) outs(%[[A]] : memref<4x8xf32, strided<[?, ?], offset: ?>>)
func.func @broadcast_of_the_destination(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %row = tensor.extract_slice %a[0, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<1x8xf32>
  %r = pointwise.map ins(%row : tensor<1x8xf32>) outs(%a : tensor<4x8xf32>) {
  ^bb0(%y: f32):
    %0 = arith.negf %y : f32
    pointwise.yield %0 : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Two results: each destination is written in place, scalars stay scalars.
// CHECK-LABEL: func @two_results
// CHECK-SAME: (%[[A:.*]]: memref<16xf32, strided<[?], offset: ?>>, %[[M:.*]]: memref<16xi1, strided<[?], offset: ?>>)
// CHECK-NOT: memref.alloc
// CHECK: pointwise.map ins(%[[A]] : memref<16xf32, strided<[?], offset: ?>>) outs(%[[A]], %[[M]] : memref<16xf32, strided<[?], offset: ?>>, memref<16xi1, strided<[?], offset: ?>>)
// CHECK: return %[[A]], %[[M]]
func.func @two_results(%a: tensor<16xf32>, %m: tensor<16xi1>) -> (tensor<16xf32>, tensor<16xi1>) {
  %r:2 = pointwise.map ins(%a : tensor<16xf32>) outs(%a, %m : tensor<16xf32>, tensor<16xi1>) {
  ^bb0(%x: f32):
    %zero = arith.constant 0.0 : f32
    %n = arith.negf %x : f32
    %p = arith.cmpf olt, %x, %zero : f32
    pointwise.yield %n, %p : f32, i1
  } -> tensor<16xf32>, tensor<16xi1>
  return %r#0, %r#1 : tensor<16xf32>, tensor<16xi1>
}
