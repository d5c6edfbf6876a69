// Differential seed 99 case 34 (mismatch), reduced: the optimized and reference lowerings must agree.
// An i1 output (stored element by element in the linear strategy's vector
// path) with a run-time stride of -1: the per-element stores must follow
// the output's own stride.
// RUN: pw-run %s --entry case --lowering=tiled --arg 2048@-1+2047 --seed 451399383 --check | FileCheck %s
// CHECK: check passed

func.func @case(%arg0: memref<?xi1, strided<[?], offset: ?>>) {
  pointwise.map outs(%arg0 : memref<?xi1, strided<[?], offset: ?>>) {
  ^bb0:
    %v0 = arith.constant false
    pointwise.yield %v0 : i1
  }
  return
}
