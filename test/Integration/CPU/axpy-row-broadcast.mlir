// c = a + alpha * b with b a row broadcast over the rows of a; buffers hold
// their element offsets (--fill=iota), so every value is predictable.
// RUN: pw-run %s --fill=iota --arg 2x3 --arg 3 --arg =2 --arg 2x3 --print --check | FileCheck %s

// CHECK: argument #3 (2x3@3,1+0 xf32):
// CHECK-NEXT: {{\[\[}}0, 3, 6], [3, 6, 9]]
// CHECK-NEXT: check passed
func.func @axpy(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?xf32>,
                %alpha: f32, %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %b, %alpha : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?xf32>, f32)
                outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %0 = arith.mulf %y, %s : f32
    %1 = arith.addf %x, %0 : f32
    pointwise.yield %1 : f32
  }
  return
}
