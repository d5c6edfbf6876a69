// Float-to-integer conversions in a map body saturate (NaN gives 0, values
// below or above the integer range give its minimum or maximum), on the
// optimized and the reference lowering alike, and on the GPU
// (test/Integration/GPU/layouts.test runs this module with --target=cuda).
// i = 0..7 (iota): a = (i - 3) * 1e20 (i = 7: NaN), b = (i - 2) * 100 - 0.5,
// c = (i - 3) * 30000 in f16, times 3 for i < 2 and i = 7 (-inf, -inf,
// -30000, 0, 30000, 60000, inf, inf). i8 prints signed: 199 is -57, 255 -1.
// RUN: pw-run %s --fill=iota --print --check | FileCheck %s
// CHECK: argument #1 (8@1+0 xi64):
// CHECK-NEXT: [-9223372036854775808, -9223372036854775808, -9223372036854775808, 0, 9223372036854775807, 9223372036854775807, 9223372036854775807, 0]
// CHECK-NEXT: argument #2 (8@1+0 xi8):
// CHECK-NEXT: [0, 0, 0, 99, -57, -1, -1, -1]
// CHECK-NEXT: argument #3 (8@1+0 xi32):
// CHECK-NEXT: [-2147483648, -2147483648, -30000, 0, 30000, 60000, 2147483647, 2147483647]
// CHECK: check passed

func.func @saturate(%i: memref<8xf32>, %s: memref<8xi64>, %u: memref<8xi8>, %t: memref<8xi32>) {
  pointwise.map ins(%i : memref<8xf32>) outs(%s, %u, %t : memref<8xi64>, memref<8xi8>, memref<8xi32>) {
  ^bb0(%x: f32):
    %c2 = arith.constant 2.0 : f32
    %c3 = arith.constant 3.0 : f32
    %c7 = arith.constant 7.0 : f32
    %half = arith.constant 0.5 : f32
    %e20 = arith.constant 1.0e20 : f32
    %hundred = arith.constant 100.0 : f32
    %k = arith.constant 30000.0 : f32
    %zero = arith.constant 0.0 : f32
    %xm3 = arith.subf %x, %c3 : f32
    %big = arith.mulf %xm3, %e20 : f32
    %nan = arith.divf %zero, %zero : f32
    %last = arith.cmpf oeq, %x, %c7 : f32
    %a = arith.select %last, %nan, %big : f32
    %xm2 = arith.subf %x, %c2 : f32
    %b0 = arith.mulf %xm2, %hundred : f32
    %b = arith.subf %b0, %half : f32
    %c0 = arith.mulf %xm3, %k : f32
    %c1 = arith.mulf %c0, %c3 : f32
    %cs = arith.select %last, %c1, %c0 : f32
    %cw = arith.cmpf olt, %x, %c2 : f32
    %cn = arith.select %cw, %c1, %cs : f32
    %c = arith.truncf %cn : f32 to f16
    %r0 = arith.fptosi %a : f32 to i64
    %r1 = arith.fptoui %b : f32 to i8
    %r2 = arith.fptosi %c : f16 to i32
    pointwise.yield %r0, %r1, %r2 : i64, i8, i32
  }
  return
}
