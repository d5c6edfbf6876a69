// A memref module's function may return a view of its argument: pw-run
// prints it and does not free it (it is no allocation of the entry's), and
// the pipeline leaves the memref module's memory management as it is.
// RUN: pw-run %s --fill=iota --arg 3x2 --print | FileCheck %s
// CHECK: result #0 (2@1+0 xi32):
// CHECK-NEXT: [2, 3]

func.func @view_of_argument(%a: memref<3x2xi32>) -> memref<2xi32, strided<[1], offset: 2>> {
  %row = memref.subview %a[1, 0] [1, 2] [1, 1] : memref<3x2xi32> to memref<2xi32, strided<[1], offset: 2>>
  return %row : memref<2xi32, strided<[1], offset: 2>>
}
