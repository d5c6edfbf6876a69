// pw-expand-float-classes rewrites math.isinf and math.isnormal (which no
// upstream lowering to LLVM handles) into ordered comparisons of |x|, on
// scalars and vectors of any float type; both pipelines then lower them.
// RUN: pw-opt %s --pw-expand-float-classes | FileCheck %s
// RUN: pw-opt %s --pw-cpu-pipeline | FileCheck %s --check-prefix=LOWERED
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=LOWERED

// CHECK-LABEL: func @scalar_f32
// CHECK-NOT: math.isinf
// CHECK-NOT: math.isnormal
// CHECK-DAG: %[[ABS:.*]] = math.absf %{{.*}} : f32
// CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG: %[[MIN:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK-DAG: arith.cmpf oeq, %{{.*}}, %[[INF]] : f32
// CHECK-DAG: %[[GE:.*]] = arith.cmpf oge, %{{.*}}, %[[MIN]] : f32
// CHECK-DAG: %[[LT:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK-DAG: arith.andi %[[GE]], %[[LT]] : i1
// LOWERED-NOT: math.isinf
// LOWERED-NOT: math.isnormal
// LOWERED: llvm.func @scalar_f32
func.func @scalar_f32(%x: memref<?xf32>, %inf: memref<?xi8>, %normal: memref<?xi8>) {
  pointwise.map ins(%x : memref<?xf32>) outs(%inf, %normal : memref<?xi8>, memref<?xi8>) {
  ^bb0(%a: f32):
    %i = math.isinf %a : f32
    %n = math.isnormal %a : f32
    %ii = arith.extui %i : i1 to i8
    %nn = arith.extui %n : i1 to i8
    pointwise.yield %ii, %nn : i8, i8
  }
  return
}

// The constants follow the type: f16's smallest normal is 2^-14.
// CHECK-LABEL: func @vector_f16
// CHECK-DAG: arith.constant dense<0x7C00> : vector<4xf16>
// CHECK-DAG: arith.constant dense<6.103520e-05> : vector<4xf16>
// CHECK: arith.cmpf oge, %{{.*}} : vector<4xf16>
func.func @vector_f16(%v: vector<4xf16>) -> (vector<4xi1>, vector<4xi1>) {
  %i = math.isinf %v : vector<4xf16>
  %n = math.isnormal %v : vector<4xf16>
  return %i, %n : vector<4xi1>, vector<4xi1>
}
