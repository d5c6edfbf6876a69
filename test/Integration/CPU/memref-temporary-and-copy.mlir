// A memref program with a temporary of its own and a copy of a transposed
// view into it: on the GPU (test/Integration/GPU/pipeline.test) the
// temporary is device memory and the copy a kernel.
// RUN: pw-run %s --fill=iota --arg 2x3@1,2 --arg 2x3 --print --check | FileCheck %s --check-prefix=STAGED

// A transposed view copied into a temporary, then scaled into the output.
// STAGED: argument #1 (2x3@3,1+0 xi32):
// STAGED-NEXT: {{\[}}[0, 20, 40], [10, 30, 50]]
// STAGED: check passed
func.func @staged(%a: memref<2x3xi32, strided<[?, ?], offset: ?>>, %out: memref<2x3xi32>) {
  %t = memref.alloc() : memref<2x3xi32>
  memref.copy %a, %t : memref<2x3xi32, strided<[?, ?], offset: ?>> to memref<2x3xi32>
  %ten = arith.constant 10 : i32
  pointwise.map ins(%t, %ten : memref<2x3xi32>, i32) outs(%out : memref<2x3xi32>) {
  ^bb0(%x: i32, %s: i32):
    %0 = arith.muli %x, %s : i32
    pointwise.yield %0 : i32
  }
  memref.dealloc %t : memref<2x3xi32>
  return
}
