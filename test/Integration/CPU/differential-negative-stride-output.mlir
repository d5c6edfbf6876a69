// Differential reproducer (negative strides): both lowerings emitted
// `getelementptr inbounds nuw %p, -1` for a stride -1 output, and the JIT
// code crashed. Flat views (FlatView.cpp) address without overflow flags.
// RUN: pw-run %s --entry case --arg 2@-1+2 --seed 1596633799 --check | FileCheck %s
// RUN: pw-run %s --entry case --lowering=tiled --arg 2@-1+2 --seed 1596633799 --check | FileCheck %s
// CHECK: check passed
func.func @case(%arg0: memref<2xi1, strided<[-1], offset: ?>>) {
  pointwise.map outs(%arg0 : memref<2xi1, strided<[-1], offset: ?>>) {
  ^bb0:
    %v0 = arith.constant false
    pointwise.yield %v0 : i1
  }
  return
}
