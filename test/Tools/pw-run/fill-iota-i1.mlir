// --fill=iota gives each buffer element its offset; an i1 byte holds 0 or 1,
// so i1 buffers alternate 0, 1, 0, ... (the offset's low bit).
// RUN: pw-run %s --fill=iota --arg 2x3 --arg 2x3 --print --check | FileCheck %s
// CHECK: argument #1 (2x3@3,1+0 xi8):
// CHECK-NEXT: {{\[\[}}0, 1, 0], [1, 0, 1]]
// CHECK: check passed

func.func @widen(%a: memref<?x?xi1>, %c: memref<?x?xi8>) {
  pointwise.map ins(%a : memref<?x?xi1>) outs(%c : memref<?x?xi8>) {
  ^bb0(%x: i1):
    %0 = arith.extui %x : i1 to i8
    pointwise.yield %0 : i8
  }
  return
}
