// The tensor form of pointwise.map prints its results after the region and
// parses back to the same op; the generic form agrees.
// RUN: pw-opt %s | pw-opt | FileCheck %s
// RUN: pw-opt %s --mlir-print-op-generic | pw-opt | FileCheck %s

// CHECK-LABEL: func @axpy
// CHECK: %[[R:.*]] = pointwise.map ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?xf32>, f32) outs(%{{.*}} : tensor<?x?xf32>) {
// CHECK: pointwise.yield %{{.*}} : f32
// CHECK-NEXT: } -> tensor<?x?xf32>
// CHECK: return %[[R]]
func.func @axpy(%a: tensor<?x?xf32>, %b: tensor<?xf32>, %s: f32, %init: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = pointwise.map ins(%a, %b, %s : tensor<?x?xf32>, tensor<?xf32>, f32)
                     outs(%init : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.mulf %y, %z : f32
    %1 = arith.addf %x, %0 : f32
    pointwise.yield %1 : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// CHECK-LABEL: func @two_results
// CHECK: %[[R:.*]]:2 = pointwise.map ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xi1>) {
// CHECK: } -> tensor<8xf32>, tensor<8xi1>
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @two_results(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xi1>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xi1>
  %r:2 = pointwise.map ins(%a : tensor<8xf32>) outs(%e0, %e1 : tensor<8xf32>, tensor<8xi1>) {
  ^bb0(%x: f32):
    %zero = arith.constant 0.0 : f32
    %n = arith.negf %x : f32
    %p = arith.cmpf ogt, %x, %zero : f32
    pointwise.yield %n, %p : f32, i1
  } -> tensor<8xf32>, tensor<8xi1>
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi1>
}

// A map with scalar inputs only fills its destination.
// CHECK-LABEL: func @fill
// CHECK: pointwise.map ins(%{{.*}} : f16) outs(%{{.*}} : tensor<2x3xf16>)
// CHECK: } -> tensor<2x3xf16>
func.func @fill(%v: f16) -> tensor<2x3xf16> {
  %e = tensor.empty() : tensor<2x3xf16>
  %r = pointwise.map ins(%v : f16) outs(%e : tensor<2x3xf16>) {
  ^bb0(%x: f16):
    pointwise.yield %x : f16
  } -> tensor<2x3xf16>
  return %r : tensor<2x3xf16>
}
