// Memrefs of every supported element type are accepted as inputs and
// outputs, and the body sees values of that element type.
// RUN: pw-opt %s | pw-opt | FileCheck %s
// RUN: pw-opt %s --mlir-print-op-generic | pw-opt | FileCheck %s

// CHECK-LABEL: func @copy_i1
// CHECK:      pointwise.map ins(%[[A:.*]] : memref<?x4xi1, strided<[?, 1], offset: ?>>) outs(%[[C:.*]] : memref<?x4xi1>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: i1):
// CHECK-NEXT:   pointwise.yield %[[X]] : i1
func.func @copy_i1(%a: memref<?x4xi1, strided<[?, 1], offset: ?>>, %c: memref<?x4xi1>) {
  pointwise.map ins(%a : memref<?x4xi1, strided<[?, 1], offset: ?>>) outs(%c : memref<?x4xi1>) {
  ^bb0(%x: i1):
    pointwise.yield %x : i1
  }
  return
}

// CHECK-LABEL: func @copy_i8
// CHECK:      pointwise.map ins(%[[A:.*]] : memref<?x4xi8, strided<[?, 1], offset: ?>>) outs(%[[C:.*]] : memref<?x4xi8>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: i8):
// CHECK-NEXT:   pointwise.yield %[[X]] : i8
func.func @copy_i8(%a: memref<?x4xi8, strided<[?, 1], offset: ?>>, %c: memref<?x4xi8>) {
  pointwise.map ins(%a : memref<?x4xi8, strided<[?, 1], offset: ?>>) outs(%c : memref<?x4xi8>) {
  ^bb0(%x: i8):
    pointwise.yield %x : i8
  }
  return
}

// CHECK-LABEL: func @copy_i16
// CHECK:      pointwise.map ins(%[[A:.*]] : memref<?x4xi16, strided<[?, 1], offset: ?>>) outs(%[[C:.*]] : memref<?x4xi16>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: i16):
// CHECK-NEXT:   pointwise.yield %[[X]] : i16
func.func @copy_i16(%a: memref<?x4xi16, strided<[?, 1], offset: ?>>, %c: memref<?x4xi16>) {
  pointwise.map ins(%a : memref<?x4xi16, strided<[?, 1], offset: ?>>) outs(%c : memref<?x4xi16>) {
  ^bb0(%x: i16):
    pointwise.yield %x : i16
  }
  return
}

// CHECK-LABEL: func @copy_i32
// CHECK:      pointwise.map ins(%[[A:.*]] : memref<?x4xi32, strided<[?, 1], offset: ?>>) outs(%[[C:.*]] : memref<?x4xi32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32):
// CHECK-NEXT:   pointwise.yield %[[X]] : i32
func.func @copy_i32(%a: memref<?x4xi32, strided<[?, 1], offset: ?>>, %c: memref<?x4xi32>) {
  pointwise.map ins(%a : memref<?x4xi32, strided<[?, 1], offset: ?>>) outs(%c : memref<?x4xi32>) {
  ^bb0(%x: i32):
    pointwise.yield %x : i32
  }
  return
}

// CHECK-LABEL: func @copy_i64
// CHECK:      pointwise.map ins(%[[A:.*]] : memref<?x4xi64, strided<[?, 1], offset: ?>>) outs(%[[C:.*]] : memref<?x4xi64>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: i64):
// CHECK-NEXT:   pointwise.yield %[[X]] : i64
func.func @copy_i64(%a: memref<?x4xi64, strided<[?, 1], offset: ?>>, %c: memref<?x4xi64>) {
  pointwise.map ins(%a : memref<?x4xi64, strided<[?, 1], offset: ?>>) outs(%c : memref<?x4xi64>) {
  ^bb0(%x: i64):
    pointwise.yield %x : i64
  }
  return
}

// CHECK-LABEL: func @copy_f16
// CHECK:      pointwise.map ins(%[[A:.*]] : memref<?x4xf16, strided<[?, 1], offset: ?>>) outs(%[[C:.*]] : memref<?x4xf16>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f16):
// CHECK-NEXT:   pointwise.yield %[[X]] : f16
func.func @copy_f16(%a: memref<?x4xf16, strided<[?, 1], offset: ?>>, %c: memref<?x4xf16>) {
  pointwise.map ins(%a : memref<?x4xf16, strided<[?, 1], offset: ?>>) outs(%c : memref<?x4xf16>) {
  ^bb0(%x: f16):
    pointwise.yield %x : f16
  }
  return
}

// CHECK-LABEL: func @copy_bf16
// CHECK:      pointwise.map ins(%[[A:.*]] : memref<?x4xbf16, strided<[?, 1], offset: ?>>) outs(%[[C:.*]] : memref<?x4xbf16>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: bf16):
// CHECK-NEXT:   pointwise.yield %[[X]] : bf16
func.func @copy_bf16(%a: memref<?x4xbf16, strided<[?, 1], offset: ?>>, %c: memref<?x4xbf16>) {
  pointwise.map ins(%a : memref<?x4xbf16, strided<[?, 1], offset: ?>>) outs(%c : memref<?x4xbf16>) {
  ^bb0(%x: bf16):
    pointwise.yield %x : bf16
  }
  return
}

// CHECK-LABEL: func @copy_f32
// CHECK:      pointwise.map ins(%[[A:.*]] : memref<?x4xf32, strided<[?, 1], offset: ?>>) outs(%[[C:.*]] : memref<?x4xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT:   pointwise.yield %[[X]] : f32
func.func @copy_f32(%a: memref<?x4xf32, strided<[?, 1], offset: ?>>, %c: memref<?x4xf32>) {
  pointwise.map ins(%a : memref<?x4xf32, strided<[?, 1], offset: ?>>) outs(%c : memref<?x4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// CHECK-LABEL: func @copy_f64
// CHECK:      pointwise.map ins(%[[A:.*]] : memref<?x4xf64, strided<[?, 1], offset: ?>>) outs(%[[C:.*]] : memref<?x4xf64>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f64):
// CHECK-NEXT:   pointwise.yield %[[X]] : f64
func.func @copy_f64(%a: memref<?x4xf64, strided<[?, 1], offset: ?>>, %c: memref<?x4xf64>) {
  pointwise.map ins(%a : memref<?x4xf64, strided<[?, 1], offset: ?>>) outs(%c : memref<?x4xf64>) {
  ^bb0(%x: f64):
    pointwise.yield %x : f64
  }
  return
}

// CHECK-LABEL: func @mixed_element_types
// CHECK: pointwise.map ins(%{{.*}} : memref<2xi1>, memref<2xi8>, memref<2xi16>, memref<2xi32>, memref<2xi64>, memref<2xf16>, memref<2xbf16>, memref<2xf32>, memref<2xf64>) outs(%{{.*}} : memref<2xf32>)
func.func @mixed_element_types(%a0: memref<2xi1>, %a1: memref<2xi8>, %a2: memref<2xi16>, %a3: memref<2xi32>, %a4: memref<2xi64>, %a5: memref<2xf16>, %a6: memref<2xbf16>, %a7: memref<2xf32>, %a8: memref<2xf64>, %c: memref<2xf32>) {
  pointwise.map ins(%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8 : memref<2xi1>, memref<2xi8>, memref<2xi16>, memref<2xi32>, memref<2xi64>, memref<2xf16>, memref<2xbf16>, memref<2xf32>, memref<2xf64>)
                outs(%c : memref<2xf32>) {
  ^bb0(%x0: i1, %x1: i8, %x2: i16, %x3: i32, %x4: i64, %x5: f16, %x6: bf16, %x7: f32, %x8: f64):
    %v0 = arith.uitofp %x0 : i1 to f32
    %v1 = arith.sitofp %x1 : i8 to f32
    %v2 = arith.sitofp %x2 : i16 to f32
    %v3 = arith.sitofp %x3 : i32 to f32
    %v4 = arith.sitofp %x4 : i64 to f32
    %v5 = arith.extf %x5 : f16 to f32
    %v6 = arith.extf %x6 : bf16 to f32
    %v7 = arith.addf %x7, %x7 : f32
    %v8 = arith.truncf %x8 : f64 to f32
    %s1 = arith.addf %v0, %v1 : f32
    %s2 = arith.addf %s1, %v2 : f32
    %s3 = arith.addf %s2, %v3 : f32
    %s4 = arith.addf %s3, %v4 : f32
    %s5 = arith.addf %s4, %v5 : f32
    %s6 = arith.addf %s5, %v6 : f32
    %s7 = arith.addf %s6, %v7 : f32
    %s8 = arith.addf %s7, %v8 : f32
    pointwise.yield %s8 : f32
  }
  return
}
