// A body may name the rounding of an f32 -> bf16 truncf, to nearest even
// (the only mode the verifier accepts, and the default). Both CPU lowerings
// round it with integer operations (arith-expand-ops' bf16 expansion),
// which take the op without the attribute. i = 0..3 (iota): i / 3 in bf16
// is 0, 0x3EAB, 0x3F2B, 1.
// RUN: pw-run %s --fill=iota --print --check | FileCheck %s
// CHECK: argument #1 (4@1+0 xbf16):
// CHECK-NEXT: [0, 0.333984375, 0.66796875, 1]
// CHECK: check passed

func.func @third(%a: memref<4xf32>, %c: memref<4xbf16>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xbf16>) {
  ^bb0(%x: f32):
    %three = arith.constant 3.0 : f32
    %q = arith.divf %x, %three : f32
    %b = arith.truncf %q to_nearest_even : f32 to bf16
    pointwise.yield %b : bf16
  }
  return
}
