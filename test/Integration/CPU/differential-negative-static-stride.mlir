// Differential seed 11 case 615 (mismatch), reduced. A static negative
// stride: upstream's memref-to-LLVM lowering marks index * stride `nuw` and
// the address `inbounds|nuw`, poison for negative strides in MLIR 22.1; every
// lowering now addresses through flat views (FlatView.cpp) instead.
// RUN: pw-run %s --entry case --arg 3@1+0 --arg 3@-5+10 --seed 1829866826 --check | FileCheck %s
// RUN: pw-run %s --entry case --lowering=tiled --arg 3@1+0 --arg 3@-5+10 --seed 1829866826 --check | FileCheck %s
// CHECK: check passed

func.func @case(%arg0: memref<3xf64>, %arg1: memref<?xf32, strided<[-5], offset: ?>>) {
  pointwise.map ins(%arg1 : memref<?xf32, strided<[-5], offset: ?>>) outs(%arg0 : memref<3xf64>) {
  ^bb0(%in0: f32):
    %v0 = arith.extf %in0 : f32 to f64
    pointwise.yield %v0 : f64
  }
  return
}
