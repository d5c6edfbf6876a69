// pointwise.map's RuntimeVerifiableOpInterface: upstream's
// generate-runtime-verification puts cf.asserts before a map for what its
// verifier cannot decide: outputs of one shape, inputs that broadcast, no
// output dim of size > 1 with stride 0. Static facts get no check.
// RUN: pw-opt %s --split-input-file --generate-runtime-verification --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[B:.*]]: memref<?xf32>, %[[S:.*]]: memref<4xf32>, %[[O:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[P:.*]]: memref<3x?xf32>)
// The iteration space: dim 0 from %p's static 3, dim 1 from output #0.
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[N:.*]] = memref.dim %[[O]], %[[C1]]
// CHECK: %[[O0:.*]] = memref.dim %[[O]], %[[C0:.*]] :
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[O0]], %[[C3]]
// CHECK: cf.assert %[[EQ]], "{{.*}}^ output #0 dim 0 does not have the size of the other outputs (the iteration space){{.*}}"
// CHECK: %[[P1:.*]] = memref.dim %[[P]], %[[C1]]
// CHECK: arith.cmpi eq, %[[P1]], %[[N]]
// CHECK: cf.assert {{.*}}^ output #1 dim 1 does not have the size
// An input dim is 1 or the iteration size.
// CHECK: %[[A0:.*]] = memref.dim %[[A]], %[[C0]]
// CHECK: %[[A0EQ:.*]] = arith.cmpi eq, %[[A0]], %[[C3]]
// CHECK: %[[A0ONE:.*]] = arith.cmpi eq, %[[A0]], %[[C1]]
// CHECK: %[[A0OK:.*]] = arith.ori %[[A0EQ]], %[[A0ONE]]
// CHECK: cf.assert %[[A0OK]], "{{.*}}^ input #0 dim 0 does not broadcast to iteration dim 0{{.*}}"
// CHECK: cf.assert {{.*}}^ input #0 dim 1 does not broadcast to iteration dim 1
// CHECK: cf.assert {{.*}}^ input #1 dim 0 does not broadcast to iteration dim 1
// A static input size against a dynamic iteration size.
// CHECK: %[[S4:.*]] = arith.cmpi eq, %[[N]], %[[C4]]
// CHECK: cf.assert %[[S4]], "{{.*}}^ input #2 dim 0 does not broadcast to iteration dim 1{{.*}}"
// Dynamic output strides: stride 0 only on dims of size <= 1, or no
// elements at all.
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[O]]
// CHECK: arith.cmpi ne, %[[STRIDES]]#0
// CHECK: cf.assert {{.*}}^ output #0 dim 0 has stride 0 and a size above 1, so its elements overlap
// CHECK: cf.assert {{.*}}^ output #0 dim 1 has stride 0 and a size above 1, so its elements overlap
// Output #1's identity layout has a dynamic leading stride too (a
// memref.cast can give it any descriptor); its last stride is 1.
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[PSTRIDES:.*]]:2 = memref.extract_strided_metadata %[[P]]
// CHECK: arith.cmpi ne, %[[PSTRIDES]]#0
// CHECK: cf.assert {{.*}}^ output #1 dim 0 has stride 0 and a size above 1
// CHECK-NOT: cf.assert
// CHECK: pointwise.map
func.func @dynamic(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?xf32>, %s: memref<4xf32>,
                   %o: memref<?x?xf32, strided<[?, ?], offset: ?>>, %p: memref<3x?xf32>) {
  pointwise.map ins(%a, %b, %s : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?xf32>, memref<4xf32>)
                outs(%o, %p : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<3x?xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.addf %x, %y : f32
    %1 = arith.addf %0, %z : f32
    pointwise.yield %1, %1 : f32, f32
  }
  return
}

// -----

// Everything static: the verifier decided it all.
// CHECK-LABEL: func.func @static
// CHECK-NOT: cf.assert
// CHECK: pointwise.map
func.func @static(%a: memref<4x1xf32>, %b: memref<8xf32>, %o: memref<4x8xf32, strided<[1, 4]>>) {
  pointwise.map ins(%a, %b : memref<4x1xf32>, memref<8xf32>) outs(%o : memref<4x8xf32, strided<[1, 4]>>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// One output: its own dynamic sizes are the iteration space; static size-1
// input dims broadcast to anything; a scalar input has nothing to check.
// CHECK-LABEL: func.func @one_output
// CHECK-NOT: output #0 dim {{.*}} does not have the size
// CHECK-NOT: input #0
// CHECK: cf.assert {{.*}}^ input #1 dim 0 does not broadcast to iteration dim 1
// CHECK: cf.assert {{.*}}^ input #1 dim 1 does not broadcast to iteration dim 2
// CHECK: cf.assert {{.*}}^ output #0 dim 0 has stride 0 and a size above 1
// CHECK: cf.assert {{.*}}^ output #0 dim 1 has stride 0 and a size above 1
// CHECK-NOT: cf.assert
// CHECK: pointwise.map
func.func @one_output(%a: memref<1x1xf32>, %b: memref<?x?xf32>, %k: f32, %o: memref<2x?x?xf32>) {
  pointwise.map ins(%a, %b, %k : memref<1x1xf32>, memref<?x?xf32>, f32) outs(%o : memref<2x?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.addf %x, %y : f32
    %1 = arith.mulf %0, %z : f32
    pointwise.yield %1 : f32
  }
  return
}

// -----

// A static stride 0 with a dynamic size: the size must be at most 1 (or the
// output empty).
// CHECK-LABEL: func.func @static_zero_stride
// CHECK: %[[D:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x4xf32, strided<[0, 1]>>
// CHECK: arith.cmpi sle, %[[D]]
// CHECK: cf.assert {{.*}}^ output #0 dim 0 has stride 0 and a size above 1
// CHECK-NOT: cf.assert
func.func @static_zero_stride(%a: memref<4xf32>, %o: memref<?x4xf32, strided<[0, 1]>>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%o : memref<?x4xf32, strided<[0, 1]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

// The tensor form gets the same shape and broadcast checks, on tensor.dim;
// tensors have no strides to check.
// CHECK-LABEL: func.func @tensor_form
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?xf32>, %[[I:.*]]: tensor<?x?xf32>, %[[J:.*]]: tensor<4x?xf32>)
// CHECK-DAG: %[[D1:.*]] = tensor.dim %[[I]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG: %[[J1:.*]] = tensor.dim %[[J]], %{{.*}} : tensor<4x?xf32>
// CHECK: cf.assert {{.*}}^ output #1 dim 1 does not have the size of the other outputs
// CHECK: cf.assert {{.*}}^ input #0 dim 0 does not broadcast to iteration dim 0
// CHECK: cf.assert {{.*}}^ input #0 dim 1 does not broadcast to iteration dim 1
// CHECK: cf.assert {{.*}}^ input #1 dim 0 does not broadcast to iteration dim 1
// CHECK-NOT: cf.assert
// CHECK: pointwise.map
func.func @tensor_form(%a: tensor<?x?xf32>, %b: tensor<?xf32>, %i: tensor<?x?xf32>, %j: tensor<4x?xf32>) -> (tensor<?x?xf32>, tensor<4x?xf32>) {
  %r:2 = pointwise.map ins(%a, %b : tensor<?x?xf32>, tensor<?xf32>) outs(%i, %j : tensor<?x?xf32>, tensor<4x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0, %0 : f32, f32
  } -> tensor<?x?xf32>, tensor<4x?xf32>
  return %r#0, %r#1 : tensor<?x?xf32>, tensor<4x?xf32>
}
