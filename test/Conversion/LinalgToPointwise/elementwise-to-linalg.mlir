// convert-elementwise-to-linalg's output (elementwise arith and math ops on
// tensors as linalg.generic with identity maps) converts completely.
// RUN: pw-opt %s --pass-pipeline='builtin.module(func.func(convert-elementwise-to-linalg), pw-convert-linalg-to-pointwise)' | FileCheck %s
// RUN: pw-opt %s --pass-pipeline='builtin.module(func.func(convert-elementwise-to-linalg), pw-convert-linalg-to-pointwise)' | FileCheck %s --check-prefix=NO-LINALG
// NO-LINALG-NOT: linalg.

// CHECK-LABEL: func @static
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[SUM:.*]] = pointwise.map ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[A]] : tensor<4x8xf32>)
// CHECK: arith.addf
// CHECK: %[[EXP:.*]] = pointwise.map ins(%[[SUM]] : tensor<4x8xf32>) outs(%[[SUM]] : tensor<4x8xf32>)
// CHECK: math.exp
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x8xi1>
// CHECK-NEXT: %[[LT:.*]] = pointwise.map ins(%[[EXP]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[INIT]] : tensor<4x8xi1>)
// CHECK: arith.cmpf olt
// CHECK: return %[[LT]]
func.func @static(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xi1> {
  %0 = arith.addf %a, %b : tensor<4x8xf32>
  %1 = math.exp %0 : tensor<4x8xf32>
  %2 = arith.cmpf olt, %1, %b : tensor<4x8xf32>
  return %2 : tensor<4x8xi1>
}

// CHECK-LABEL: func @dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xi32>, %[[B:.*]]: tensor<?x?xi32>)
// CHECK-NEXT: %[[MUL:.*]] = pointwise.map ins(%[[A]], %[[B]] : tensor<?x?xi32>, tensor<?x?xi32>) outs(%[[A]] : tensor<?x?xi32>)
// CHECK: arith.muli
// CHECK: %[[INIT:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xi64>
// CHECK-NEXT: %[[EXT:.*]] = pointwise.map ins(%[[MUL]] : tensor<?x?xi32>) outs(%[[INIT]] : tensor<?x?xi64>)
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: return %[[EXT]]
func.func @dynamic(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>) -> tensor<?x?xi64> {
  %0 = arith.muli %a, %b : tensor<?x?xi32>
  %1 = arith.extsi %0 : tensor<?x?xi32> to tensor<?x?xi64>
  return %1 : tensor<?x?xi64>
}
