// Fully static layouts need no --arg; rank 0 works too.
// RUN: pw-run %s --entry static_transpose --fill=iota --print --check | FileCheck %s --check-prefix=STATIC
// RUN: pw-run %s --entry rank_0 --fill=iota --arg '()+3' --arg - --print --check | FileCheck %s --check-prefix=RANK0

// STATIC: {{\[\[}}0, 3], [1, 4], [2, 5]]
// STATIC: check passed
func.func @static_transpose(%a: memref<3x2xf64, strided<[1, 3]>>, %c: memref<3x2xf64>) {
  pointwise.map ins(%a : memref<3x2xf64, strided<[1, 3]>>) outs(%c : memref<3x2xf64>) {
  ^bb0(%x: f64):
    pointwise.yield %x : f64
  }
  return
}

// RANK0: argument #1 (()+0 xbf16):
// RANK0-NEXT: 9
// RANK0: check passed
func.func @rank_0(%a: memref<bf16, strided<[], offset: ?>>, %c: memref<bf16>) {
  pointwise.map ins(%a : memref<bf16, strided<[], offset: ?>>) outs(%c : memref<bf16>) {
  ^bb0(%x: bf16):
    %0 = arith.mulf %x, %x : bf16
    pointwise.yield %0 : bf16
  }
  return
}
