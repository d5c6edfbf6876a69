// Differential reproducer (negative strides): in the optimized pipeline the
// stride became select(size == 1, 0, -4), and with upstream's nuw/nsw
// address arithmetic LLVM concluded the stride was 0, so element 2 re-read
// element 0. Flat views (FlatView.cpp) address without overflow flags.
// RUN: pw-run %s --entry case --arg 3@1+0 --arg 3@-4+44 --seed 105318382 --check | FileCheck %s
// RUN: pw-run %s --entry case --lowering=tiled --arg 3@1+0 --arg 3@-4+44 --seed 105318382 --check | FileCheck %s
// CHECK: check passed
func.func @case(%arg0: memref<3xf32>, %arg1: memref<?xf64, strided<[-4], offset: ?>>) {
  pointwise.map ins(%arg1 : memref<?xf64, strided<[-4], offset: ?>>) outs(%arg0 : memref<3xf32>) {
  ^bb0(%in0: f64):
    %v0 = arith.truncf %in0 : f64 to f32
    pointwise.yield %v0 : f32
  }
  return
}
