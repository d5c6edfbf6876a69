// The transpose strategy's vector path, on the operand layouts of a
// family's transpose variant (run-time strides, the transposed input
// statically contiguous along P, the output along L; broadcasting resolved,
// as in pw-compile's variants).
// RUN: pw-opt %s --split-input-file --pw-tile | FileCheck %s

// Interior tiles move 16-byte vectors when the host finds every operand
// aligned (first elements and the strides across vectors multiples of 4
// elements, the directly read input contiguous along the last dim): the
// transposed input is loaded along P and written into the tile lane by
// lane, the other input and the output move whole vectors along L.
// Otherwise interior tiles take the scalar code.
// CHECK-LABEL: func @transposed_vectors
// CHECK: %[[TILE:.*]] = memref.alloca() {pointwise.block_local} : memref<64x65xf32>
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[UNIT:.*]] = arith.cmpi eq, %strides#1, %c1
// CHECK: memref.extract_aligned_pointer_as_index %arg1
// CHECK: memref.extract_aligned_pointer_as_index %arg2
// CHECK: arith.andi
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: scf.if %[[FULL:.*]] {
// CHECK-NEXT: scf.if %[[SAFE:.*]] {
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<{{.*}}xf32>, vector<4xf32>
// CHECK-COUNT-16: memref.store %{{.*}}, %[[TILE]]
// CHECK: } else {
// CHECK-COUNT-16: memref.load
// Edge tiles guard each element in a loop over the tile's rows: one copy of
// the staging code and of the body, not one per row step.
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c64{{.*}} step %c4
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[TILE]]
// CHECK-NOT: memref.store %{{.*}}, %[[TILE]]
// CHECK: scf.parallel
// CHECK: scf.if %[[FULL]] {
// CHECK-NEXT: scf.if %[[SAFE]] {
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<{{.*}}xf32>, vector<4xf32>
// CHECK-COUNT-4: memref.load %[[TILE]]
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<{{.*}}xf32>, vector<4xf32>
// CHECK: } else {
// CHECK-COUNT-16: arith.addf
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c64{{.*}} step %c4
// CHECK: arith.addf
// CHECK-NOT: arith.addf
// A 64 x 64 tile of two f32 inputs: 32 KiB of input per block.
// CHECK: pointwise.input_bytes_per_block = 32768 : i64, pointwise.instructions_per_byte = {{.*}} : f64, pointwise.strategy = "transpose"
func.func @transposed_vectors(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?x?xf32, strided<[1, ?], offset: ?>>, %c: memref<?x?xf32, strided<[?, 1], offset: ?>>) attributes {pointwise.broadcast_resolved} {
  pointwise.map ins(%a, %b : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[1, ?], offset: ?>>) outs(%c : memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// i1 operands keep the scalar code: LLVM packs their vectors into bits.
// CHECK-LABEL: func @transposed_i1_stays_scalar
// CHECK-NOT: vector.
// CHECK: pointwise.strategy = "transpose"
func.func @transposed_i1_stays_scalar(%a: memref<?x?xi1, strided<[1, ?], offset: ?>>, %c: memref<?x?xi1, strided<[?, 1], offset: ?>>) attributes {pointwise.broadcast_resolved} {
  pointwise.map ins(%a : memref<?x?xi1, strided<[1, ?], offset: ?>>) outs(%c : memref<?x?xi1, strided<[?, 1], offset: ?>>) {
  ^bb0(%x: i1):
    pointwise.yield %x : i1
  }
  return
}
