// Two outputs, one of them in place over the input, with scalars of several
// types and f16 storage computed in f32.
// RUN: pw-run %s --fill=iota --arg 4 --arg 4 --arg =3 --arg =0.5 --print --check | FileCheck %s

// CHECK: argument #0 (4@1+0 xf16):
// CHECK-NEXT: [0.5, 3.5, 6.5, 9.5]
// CHECK: argument #1 (4@1+0 xi1):
// CHECK-NEXT: [0, 1, 1, 1]
// CHECK: check passed
func.func @scale(%a: memref<?xf16>, %positive: memref<?xi1>, %k: i32, %bias: f64) {
  pointwise.map ins(%a, %k, %bias : memref<?xf16>, i32, f64) outs(%a, %positive : memref<?xf16>, memref<?xi1>) {
  ^bb0(%x: f16, %n: i32, %b: f64):
    %xf = arith.extf %x : f16 to f32
    %nf = arith.sitofp %n : i32 to f32
    %bf = arith.truncf %b : f64 to f32
    %0 = arith.mulf %xf, %nf : f32
    %1 = arith.addf %0, %bf : f32
    %2 = arith.truncf %1 : f32 to f16
    %zero = arith.constant 0.0 : f32
    %3 = arith.cmpf ogt, %xf, %zero : f32
    pointwise.yield %2, %3 : f16, i1
  }
  return
}
