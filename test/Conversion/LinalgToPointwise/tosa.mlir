// tosa-to-linalg's output converts completely: its broadcasts (constant-0
// maps on unit dims, missing leading dims) line up with the map's.
// RUN: pw-opt %s --pass-pipeline='builtin.module(func.func(tosa-to-linalg), pw-convert-linalg-to-pointwise)' | FileCheck %s
// RUN: pw-opt %s --pass-pipeline='builtin.module(func.func(tosa-to-linalg), pw-convert-linalg-to-pointwise)' | FileCheck %s --check-prefix=NO-LINALG
// NO-LINALG-NOT: linalg.

// CHECK-LABEL: func @add_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<4x1x8xf32>, %[[B:.*]]: tensor<1x5x8xf32>)
// CHECK-NEXT: %[[INIT:.*]] = tensor.empty() : tensor<4x5x8xf32>
// CHECK-NEXT: %[[R:.*]] = pointwise.map ins(%[[A]], %[[B]] : tensor<4x1x8xf32>, tensor<1x5x8xf32>) outs(%[[INIT]] : tensor<4x5x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: pointwise.yield %[[S]] : f32
// CHECK-NEXT: } -> tensor<4x5x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @add_broadcast(%a: tensor<4x1x8xf32>, %b: tensor<1x5x8xf32>) -> tensor<4x5x8xf32> {
  %0 = tosa.add %a, %b : (tensor<4x1x8xf32>, tensor<1x5x8xf32>) -> tensor<4x5x8xf32>
  return %0 : tensor<4x5x8xf32>
}

// The clamp's bounds, constants outside the linalg body, move into the map.
// CHECK-LABEL: func @dynamic_chain
// CHECK-SAME: (%[[A:.*]]: tensor<?x8xf32>, %[[B:.*]]: tensor<1x8xf32>)
// CHECK: %[[SUB:.*]] = pointwise.map ins(%[[A]], %[[B]] : tensor<?x8xf32>, tensor<1x8xf32>)
// CHECK: arith.subf
// CHECK: %[[TANH:.*]] = pointwise.map ins(%[[SUB]] : tensor<?x8xf32>)
// CHECK: math.tanh
// CHECK: %[[CLAMP:.*]] = pointwise.map ins(%[[TANH]] : tensor<?x8xf32>)
// CHECK-DAG: arith.constant -5.000000e-01 : f32
// CHECK-DAG: arith.constant 5.000000e-01 : f32
// CHECK: arith.minimumf
// CHECK: arith.maximumf
// CHECK: %[[CAST:.*]] = pointwise.map ins(%[[CLAMP]] : tensor<?x8xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[CAST]] : tensor<?x8xf16>
func.func @dynamic_chain(%a: tensor<?x8xf32>, %b: tensor<1x8xf32>) -> tensor<?x8xf16> {
  %0 = tosa.sub %a, %b : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  %1 = tosa.tanh %0 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %2 = tosa.clamp %1 {min_val = -0.5 : f32, max_val = 0.5 : f32} : (tensor<?x8xf32>) -> tensor<?x8xf32>
  %3 = tosa.cast %2 : (tensor<?x8xf32>) -> tensor<?x8xf16>
  return %3 : tensor<?x8xf16>
}

// CHECK-LABEL: func @compare_select
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xi32>, %[[B:.*]]: tensor<1x8xi32>)
// CHECK: %[[GT:.*]] = pointwise.map ins(%[[A]], %[[B]] : tensor<4x8xi32>, tensor<1x8xi32>) outs(%{{.*}} : tensor<4x8xi1>)
// CHECK: arith.cmpi sgt
// CHECK: pointwise.map ins(%[[GT]], %[[A]], %[[B]] : tensor<4x8xi1>, tensor<4x8xi32>, tensor<1x8xi32>) outs(%{{.*}} : tensor<4x8xi32>)
// CHECK: arith.select
func.func @compare_select(%a: tensor<4x8xi32>, %b: tensor<1x8xi32>) -> tensor<4x8xi32> {
  %0 = tosa.greater %a, %b : (tensor<4x8xi32>, tensor<1x8xi32>) -> tensor<4x8xi1>
  %1 = tosa.select %0, %a, %b : (tensor<4x8xi1>, tensor<4x8xi32>, tensor<1x8xi32>) -> tensor<4x8xi32>
  return %1 : tensor<4x8xi32>
}
