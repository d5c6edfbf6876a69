// pw-runtime-overlap-checks: before every map whose operands' addresses or
// dynamic layout decide whether it is well defined, the memref operands'
// descriptors (outputs first, then memref inputs) packed into a stack array
// for the runtime's pwCheckMapOverlap, and an assert on its answer.
// RUN: pw-opt %s --split-input-file --verify-diagnostics --pw-runtime-overlap-checks | FileCheck %s

// One declaration for every map of the module.
// CHECK-LABEL: module {
// CHECK: func.func private @pwCheckMapOverlap(memref<?xi64>) -> i32
// CHECK-NOT: @pwCheckMapOverlap(memref

// An input and an output: 2 + 2 x (4 + 2 x rank 2) = 18 words.
// CHECK-LABEL: func.func @add_into(
// CHECK-SAME: %[[A:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[S:.*]]: f32, %[[O:.*]]: memref<?x?xf32>)
// CHECK: memref.alloca_scope {
// CHECK: %[[P:.*]] = memref.alloca() : memref<18xi64>
// The counts: 1 output of 2 operands.
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: memref.store %[[ONE]], %[[P]][%{{.*}}]
// CHECK: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: memref.store %[[TWO]], %[[P]][%{{.*}}]
// The output: address, 4 bytes, rank 2, offset, sizes, strides.
// CHECK: memref.extract_aligned_pointer_as_index %[[O]]
// CHECK: arith.constant 4 : i64
// CHECK: arith.constant 2 : i64
// CHECK: memref.extract_strided_metadata %[[O]]
// Then the memref input (the scalar is not an operand of the check).
// CHECK: memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: memref.extract_strided_metadata %[[A]]
// CHECK: %[[C17:.*]] = arith.constant 17 : index
// CHECK-NEXT: memref.store %{{.*}}, %[[P]][%[[C17]]] : memref<18xi64>
// CHECK: %[[DYN:.*]] = memref.cast %[[P]] : memref<18xi64> to memref<?xi64>
// CHECK: %[[OK:.*]] = func.call @pwCheckMapOverlap(%[[DYN]]) : (memref<?xi64>) -> i32
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[HOLDS:.*]] = arith.cmpi ne, %[[OK]], %[[ZERO]] : i32
// CHECK: cf.assert %[[HOLDS]], "ERROR: Runtime op verification failed\0Apointwise.map: an output overlaps itself or another output, or partially overlaps an input (operands numbered outputs first, then memref inputs; pwCheckMapOverlap printed which to stderr)\0ALocation: loc(
// CHECK-NEXT: }
// CHECK-NEXT: pointwise.map
func.func @add_into(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %s: f32,
                    %o: memref<?x?xf32>) {
  pointwise.map ins(%a, %s : memref<?x?xf32, strided<[?, ?], offset: ?>>, f32)
                outs(%o : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// A single output of dynamic size (its strides nest or not by its sizes):
// 2 + 4 + 2 = 8 words; i1 elements count one byte, f64 eight.
// CHECK-LABEL: func.func @fill_dynamic(
// CHECK: memref.alloca() : memref<8xi64>
// CHECK: arith.constant 1 : i64
// CHECK: func.call @pwCheckMapOverlap
func.func @fill_dynamic(%o: memref<?xi1>, %v: i1) {
  pointwise.map ins(%v : i1) outs(%o : memref<?xi1>) {
  ^bb0(%x: i1):
    pointwise.yield %x : i1
  }
  return
}

// Two outputs: 2 + 2 x (4 + 0) = 10 words for rank 0.
// CHECK-LABEL: func.func @two_scalars(
// CHECK: memref.alloca() : memref<10xi64>
// CHECK: arith.constant 8 : i64
// CHECK: func.call @pwCheckMapOverlap
func.func @two_scalars(%o: memref<f64>, %p: memref<f64>, %v: f64) {
  pointwise.map ins(%v : f64) outs(%o, %p : memref<f64>, memref<f64>) {
  ^bb0(%x: f64):
    pointwise.yield %x, %x : f64, f64
  }
  return
}

// An input that is the output's own value (in place), static layout: the
// same view, nothing to check at run time.
// CHECK-LABEL: func.func @double_in_place(
// CHECK-NOT: pwCheckMapOverlap
// CHECK: pointwise.map
func.func @double_in_place(%o: memref<4xf32>) {
  pointwise.map ins(%o : memref<4xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  }
  return
}

// A single output of static layout, scalar inputs: the verifier decided.
// CHECK-LABEL: func.func @fill_static(
// CHECK-NOT: pwCheckMapOverlap
// CHECK: pointwise.map
func.func @fill_static(%o: memref<4x3xf32, strided<[6, 2], offset: 1>>, %v: f32) {
  pointwise.map ins(%v : f32) outs(%o : memref<4x3xf32, strided<[6, 2], offset: 1>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

// No map, no declaration.
// CHECK-LABEL: module {
// CHECK-NOT: pwCheckMapOverlap
func.func @none(%a: memref<4xf32>) {
  return
}

// -----

// A map in a nested module: declared and called there, not in the outer
// module, which has no map.
// CHECK-LABEL: module {
// CHECK-NEXT: func.func @outer(
// CHECK: module @inner {
// CHECK-NEXT: func.func private @pwCheckMapOverlap(memref<?xi64>) -> i32
// CHECK: func.func @copy(
// CHECK: func.call @pwCheckMapOverlap
func.func @outer() {
  return
}
module @inner {
  func.func @copy(%a: memref<?xf32>, %o: memref<?xf32>) {
    pointwise.map ins(%a : memref<?xf32>) outs(%o : memref<?xf32>) {
    ^bb0(%x: f32):
      pointwise.yield %x : f32
    }
    return
  }
}

// -----

// A function of that name with a body: not the runtime's.
// expected-error @+1 {{'func.func' op is named like the runtime's pwCheckMapOverlap, which pw-runtime-overlap-checks calls}}
func.func @pwCheckMapOverlap(%p: memref<?xi64>) -> i32 {
  %c1 = arith.constant 1 : i32
  return %c1 : i32
}
func.func @copy(%a: memref<?xf32>, %o: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%o : memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

// A symbol of the runtime function's name with another type.
// expected-error @+1 {{'func.func' op has type '(memref<?xi64>) -> i64'; the runtime's pwCheckMapOverlap is '(memref<?xi64>) -> i32'}}
func.func private @pwCheckMapOverlap(memref<?xi64>) -> i64
func.func @copy(%a: memref<?xf32>, %o: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%o : memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

// Another kind of symbol of that name.
// expected-error @+1 {{'memref.global' op is named like the runtime's pwCheckMapOverlap, which pw-runtime-overlap-checks calls}}
memref.global "private" @pwCheckMapOverlap : memref<4xf32>
func.func @copy(%a: memref<?xf32>, %o: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%o : memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
