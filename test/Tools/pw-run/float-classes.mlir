// math.isinf and math.isnormal run on the CPU path, reference and tiled, for
// each class of f32 value: 0, a subnormal, +inf, -inf, NaN, 1, -3e38 and the
// smallest normal (made from the element's iota value).
// RUN: pw-run %s --arg 8 --arg 8 --arg 8 --fill=iota --print | FileCheck %s
// RUN: pw-run %s --arg 8 --arg 8 --arg 8 --fill=iota --print --lowering=tiled | FileCheck %s

// CHECK: argument #1 (8@1+0 xi8):
// CHECK-NEXT: [0, 0, 1, 1, 0, 0, 0, 0]
// CHECK: argument #2 (8@1+0 xi8):
// CHECK-NEXT: [0, 0, 0, 0, 0, 1, 1, 1]
func.func @classes(%x: memref<?xf32>, %inf: memref<?xi8>, %normal: memref<?xi8>) {
  pointwise.map ins(%x : memref<?xf32>) outs(%inf, %normal : memref<?xi8>, memref<?xi8>) {
  ^bb0(%index: f32):
    %v0 = arith.constant 0.0 : f32
    %k1 = arith.constant 1.0 : f32
    %c1 = arith.constant 1.0e-40 : f32
    %is1 = arith.cmpf oeq, %index, %k1 : f32
    %v1 = arith.select %is1, %c1, %v0 : f32
    %k2 = arith.constant 2.0 : f32
    %c2 = arith.constant 0x7F800000 : f32
    %is2 = arith.cmpf oeq, %index, %k2 : f32
    %v2 = arith.select %is2, %c2, %v1 : f32
    %k3 = arith.constant 3.0 : f32
    %c3 = arith.constant 0xFF800000 : f32
    %is3 = arith.cmpf oeq, %index, %k3 : f32
    %v3 = arith.select %is3, %c3, %v2 : f32
    %k4 = arith.constant 4.0 : f32
    %c4 = arith.constant 0x7FC00000 : f32
    %is4 = arith.cmpf oeq, %index, %k4 : f32
    %v4 = arith.select %is4, %c4, %v3 : f32
    %k5 = arith.constant 5.0 : f32
    %c5 = arith.constant 1.0 : f32
    %is5 = arith.cmpf oeq, %index, %k5 : f32
    %v5 = arith.select %is5, %c5, %v4 : f32
    %k6 = arith.constant 6.0 : f32
    %c6 = arith.constant -3.0e38 : f32
    %is6 = arith.cmpf oeq, %index, %k6 : f32
    %v6 = arith.select %is6, %c6, %v5 : f32
    %k7 = arith.constant 7.0 : f32
    %c7 = arith.constant 1.17549435E-38 : f32
    %is7 = arith.cmpf oeq, %index, %k7 : f32
    %v7 = arith.select %is7, %c7, %v6 : f32
    %isinf = math.isinf %v7 : f32
    %isnormal = math.isnormal %v7 : f32
    %r = arith.extui %isinf : i1 to i8
    %n = arith.extui %isnormal : i1 to i8
    pointwise.yield %r, %n : i8, i8
  }
  return
}
