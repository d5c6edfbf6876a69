// Rank-1 views that start between vector boundaries: when every operand is
// off by the same number of elements (a[k:] + b[k:]), the linear strategy
// peels a scalar head and moves the rest in aligned vectors; otherwise it
// takes its scalar path. gpu-tiles-on-cpu.test runs these through the
// tiled code; here, the values of a small case.
// RUN: pw-run %s --fill=iota --arg 6+1 --arg 6+1 --arg 6+1 --print --check | FileCheck %s

// CHECK: argument #2 (6@1+1 xf32):
// CHECK-NEXT: [2, 4, 6, 8, 10, 12]
// CHECK: check passed
func.func @add(%a: memref<?xf32, strided<[1], offset: ?>>, %b: memref<?xf32, strided<[1], offset: ?>>, %c: memref<?xf32, strided<[1], offset: ?>>) {
  pointwise.map ins(%a, %b : memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>) outs(%c : memref<?xf32, strided<[1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}
