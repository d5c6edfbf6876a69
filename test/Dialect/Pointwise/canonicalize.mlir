// Canonicalization of pointwise.map in both forms.
// RUN: pw-opt %s --canonicalize --split-input-file | FileCheck %s

// An unused tensor map has no memory effects and is deleted.
// CHECK-LABEL: func @unused_tensor_map_is_deleted
// CHECK-NOT: pointwise.map
// CHECK: return
func.func @unused_tensor_map_is_deleted(%a: tensor<4xf32>, %init: tensor<4xf32>) {
  %r = pointwise.map ins(%a : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<4xf32>
  return
}

// -----

// An unused memref map writes memory and stays.
// CHECK-LABEL: func @memref_map_stays
// CHECK: pointwise.map
func.func @memref_map_stays(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Of two results, the unused one goes with its destination and its yielded
// value; the computation that only it used is then dead.
// CHECK-LABEL: func @unused_result_is_dropped
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xf32>, %[[J:.*]]: tensor<4xi1>)
// CHECK: %[[R:.*]] = pointwise.map ins(%[[A]] : tensor<4xf32>) outs(%[[J]] : tensor<4xi1>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.0
// CHECK-NEXT: %[[P:.*]] = arith.cmpf ogt, %[[X]], %[[Z]] : f32
// CHECK-NEXT: pointwise.yield %[[P]] : i1
// CHECK-NEXT: } -> tensor<4xi1>
// CHECK-NEXT: return %[[R]]
func.func @unused_result_is_dropped(%a: tensor<4xf32>, %i: tensor<4xf32>, %j: tensor<4xi1>) -> tensor<4xi1> {
  %r:2 = pointwise.map ins(%a : tensor<4xf32>) outs(%i, %j : tensor<4xf32>, tensor<4xi1>) {
  ^bb0(%x: f32):
    %zero = arith.constant 0.0 : f32
    %n = arith.negf %x : f32
    %p = arith.cmpf ogt, %x, %zero : f32
    pointwise.yield %n, %p : f32, i1
  } -> tensor<4xf32>, tensor<4xi1>
  return %r#1 : tensor<4xi1>
}

// -----

// The same value read twice becomes one input; the body uses one argument.
// CHECK-LABEL: func @identical_inputs_are_merged
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>, %[[B:.*]]: tensor<?xf32>, %[[I:.*]]: tensor<?xf32>)
// CHECK: pointwise.map ins(%[[A]], %[[B]] : tensor<?xf32>, tensor<?xf32>) outs(%[[I]] : tensor<?xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[M]], %[[Y]] : f32
// CHECK-NEXT: pointwise.yield %[[S]] : f32
func.func @identical_inputs_are_merged(%a: tensor<?xf32>, %b: tensor<?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %r = pointwise.map ins(%a, %b, %a : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.mulf %x, %z : f32
    %1 = arith.addf %0, %y : f32
    pointwise.yield %1 : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// In the memref form too, and an input the body never reads goes.
// CHECK-LABEL: func @memref_inputs_are_merged_and_unused_ones_dropped
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[C:.*]]: memref<4xf32>)
// CHECK: pointwise.map ins(%[[A]] : memref<4xf32>) outs(%[[C]] : memref<4xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT: arith.subf %[[X]], %[[X]] : f32
func.func @memref_inputs_are_merged_and_unused_ones_dropped(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a, %b, %a : memref<4xf32>, memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.subf %x, %z : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Constant scalars move into the body, where they fold further.
// CHECK-LABEL: func @constant_scalars_fold_into_the_body
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xf32>)
// CHECK: pointwise.map ins(%[[A]] : tensor<4xf32>) outs(%[[I]] : tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.500000e+00 : f32
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK: %[[M:.*]] = arith.mulf %[[X]], %[[TWO]] : f32
// CHECK: arith.addf %[[M]], %[[THREE]] : f32
func.func @constant_scalars_fold_into_the_body(%a: tensor<4xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.constant 2.5 : f32
  %n = arith.constant 3 : i32
  %r = pointwise.map ins(%s, %a, %n : f32, tensor<4xf32>, i32) outs(%init : tensor<4xf32>) {
  ^bb0(%k: f32, %x: f32, %m: i32):
    %0 = arith.mulf %x, %k : f32
    %1 = arith.sitofp %m : i32 to f32
    %2 = arith.addf %0, %1 : f32
    pointwise.yield %2 : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A map that yields its input unchanged into that same tensor is the input.
// CHECK-LABEL: func @identity_into_itself_is_the_input
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>)
// CHECK-NOT: pointwise.map
// CHECK: return %[[A]]
func.func @identity_into_itself_is_the_input(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = pointwise.map ins(%a : tensor<?x?xf32>) outs(%a : tensor<?x?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// So is a copy of a fully static input into a destination of its type.
// CHECK-LABEL: func @static_copy_is_the_input
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>)
// CHECK-NOT: pointwise.map
// CHECK: return %[[A]]
func.func @static_copy_is_the_input(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = pointwise.map ins(%a : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// A dynamic input may broadcast a size-1 dim at run time: its copy stays.
// CHECK-LABEL: func @dynamic_copy_stays
// CHECK: pointwise.map
func.func @dynamic_copy_stays(%a: tensor<?xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %r = pointwise.map ins(%a : tensor<?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Of two results, the forwarded one is replaced and dropped; the other stays.
// CHECK-LABEL: func @forwarded_result_of_two
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]] = pointwise.map ins(%[[A]] : tensor<4xf32>) outs(%[[I]] : tensor<4xf32>)
// CHECK: arith.negf
// CHECK: } -> tensor<4xf32>
// CHECK: return %[[A]], %[[R]]
func.func @forwarded_result_of_two(%a: tensor<4xf32>, %init: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = pointwise.map ins(%a : tensor<4xf32>) outs(%a, %init : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: f32):
    %n = arith.negf %x : f32
    pointwise.yield %x, %n : f32, f32
  } -> tensor<4xf32>, tensor<4xf32>
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A memref map that copies a buffer onto itself is erased; a copy into
// another buffer is not.
// CHECK-LABEL: func @memref_self_copy
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>, %[[C:.*]]: memref<?xf32>)
// CHECK-NEXT: pointwise.map ins(%[[A]] : memref<?xf32>) outs(%[[C]] : memref<?xf32>)
// CHECK-NOT: pointwise.map
func.func @memref_self_copy(%a: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%a : memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
