// pw-lower-to-loops: one scf.for per iteration dim, a load per memref input,
// the body, a store per output; broadcasting resolved in the indices, and
// every memref addressed through a flat view at offset + sum(index * stride).
// RUN: pw-opt %s --pw-lower-to-loops --canonicalize | FileCheck %s

// CHECK-LABEL: func @broadcast_static_and_dynamic
// CHECK-SAME: (%[[A:.*]]: memref<1x8xf32>, %[[B:.*]]: memref<?xf32>, %[[S:.*]]: f32, %[[C:.*]]: memref<4x8xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[FA:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [1099511627776], strides: [1] : memref<1x8xf32> to memref<1099511627776xf32>
// CHECK-DAG: %[[BSIZE:.*]] = memref.dim %[[B]], %[[C0]]
// CHECK-DAG: %[[BONE:.*]] = arith.cmpi eq, %[[BSIZE]], %[[C1]] : index
// CHECK-DAG: %[[FB:.*]] = memref.reinterpret_cast %[[B]]
// CHECK-DAG: %[[FC:.*]] = memref.reinterpret_cast %[[C]]
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK-NEXT: scf.for %[[J:.*]] = %[[C0]] to %[[C8]] step %[[C1]] {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[FA]][%[[J]]]
// CHECK-NEXT: %[[BJ:.*]] = arith.select %[[BONE]], %[[C0]], %[[J]] : index
// CHECK-NEXT: %[[Y:.*]] = memref.load %[[FB]][%[[BJ]]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.mulf %[[SUM]], %[[S]] : f32
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[I]], %[[C8]] : index
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[J]] : index
// CHECK-NEXT: memref.store %[[R]], %[[FC]][%[[AT]]]
// CHECK-NOT: pointwise.map
func.func @broadcast_static_and_dynamic(%a: memref<1x8xf32>, %b: memref<?xf32>, %s: f32, %c: memref<4x8xf32>) {
  pointwise.map ins(%a, %b, %s : memref<1x8xf32>, memref<?xf32>, f32) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.addf %x, %y : f32
    %1 = arith.mulf %0, %z : f32
    pointwise.yield %1 : f32
  }
  return
}

// Dynamic iteration sizes come from output #0; dynamic strides and offsets
// from the operands' metadata.
// CHECK-LABEL: func @dynamic_sizes_and_two_outputs
// CHECK-SAME: (%[[A:.*]]: memref<?x?xi32, strided<[?, ?], offset: ?>>, %[[C:.*]]: memref<?x?xi32>, %[[D:.*]]: memref<?x?xi32>)
// CHECK-DAG: %[[N0:.*]] = memref.dim %[[C]], %{{.*}}
// CHECK-DAG: %[[N1:.*]] = memref.dim %[[C]], %{{.*}}
// CHECK-DAG: %{{.*}}, %[[OFFSET:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[A]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N0]]
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[N1]]
// CHECK: arith.muli %{{.*}}, %[[STRIDES]]#0
// CHECK: arith.addi %[[OFFSET]]
// CHECK: %[[NEG:.*]] = arith.subi
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}]
// CHECK: memref.store %[[NEG]], %{{.*}}[%{{.*}}]
func.func @dynamic_sizes_and_two_outputs(%a: memref<?x?xi32, strided<[?, ?], offset: ?>>, %c: memref<?x?xi32>, %d: memref<?x?xi32>) {
  pointwise.map ins(%a : memref<?x?xi32, strided<[?, ?], offset: ?>>) outs(%c, %d : memref<?x?xi32>, memref<?x?xi32>) {
  ^bb0(%x: i32):
    %zero = arith.constant 0 : i32
    %0 = arith.subi %zero, %x : i32
    pointwise.yield %x, %0 : i32, i32
  }
  return
}

// A 0-d iteration space has no loop.
// CHECK-LABEL: func @rank_0
// CHECK-NOT: scf.for
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1099511627776xf64>
// CHECK: memref.store %[[X]], %{{.*}}[%{{.*}}] : memref<1099511627776xf64>
func.func @rank_0(%a: memref<f64>, %c: memref<f64>) {
  pointwise.map ins(%a : memref<f64>) outs(%c : memref<f64>) {
  ^bb0(%x: f64):
    pointwise.yield %x : f64
  }
  return
}
