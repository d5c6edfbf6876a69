// Layouts the transpose strategy handles; gpu-tiles-on-cpu.test runs them
// through the tiled code. Here: the values of a small transpose.
// RUN: pw-run %s --entry add_transposed --fill=iota --print --check | FileCheck %s

// CHECK: argument #2 (70x300@300,1+0 xf32):
// CHECK-NEXT: {{\[\[}}0, 71, 142,
// CHECK: check passed
func.func @add_transposed(%a: memref<70x300xf32>, %b: memref<70x300xf32, strided<[1, 70]>>, %c: memref<70x300xf32>) {
  pointwise.map ins(%a, %b : memref<70x300xf32>, memref<70x300xf32, strided<[1, 70]>>) outs(%c : memref<70x300xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @nchw_plus_nhwc(%a: memref<2x35x7x9xf32>, %b: memref<2x35x7x9xf32, strided<[2205, 1, 315, 35]>>, %c: memref<2x35x7x9xf32>) {
  pointwise.map ins(%a, %b : memref<2x35x7x9xf32>, memref<2x35x7x9xf32, strided<[2205, 1, 315, 35]>>) outs(%c : memref<2x35x7x9xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.subf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @nchw_times_nhwc_f16(%a: memref<3x40x7x9xf16>, %b: memref<3x40x7x9xf16, strided<[2520, 1, 360, 40]>>, %c: memref<3x40x7x9xf16>) {
  pointwise.map ins(%a, %b : memref<3x40x7x9xf16>, memref<3x40x7x9xf16, strided<[2520, 1, 360, 40]>>) outs(%c : memref<3x40x7x9xf16>) {
  ^bb0(%x: f16, %y: f16):
    %0 = arith.mulf %x, %y : f16
    pointwise.yield %0 : f16
  }
  return
}
