// One copy kernel run on views of every kind: each output shows which
// buffer elements the view read (--fill=iota).
// RUN: pw-run %s --fill=iota --arg 2x3@1,2 --arg 2x3 --print --check | FileCheck %s --check-prefix=TRANSPOSED
// RUN: pw-run %s --fill=iota --arg 2x3@-3,-1+5 --arg 2x3 --print --check | FileCheck %s --check-prefix=FLIPPED
// RUN: pw-run %s --fill=iota --arg 2x3@8,2+1 --arg 2x3 --print --check | FileCheck %s --check-prefix=SLICED
// RUN: pw-run %s --fill=iota --arg 1x3 --arg 2x3 --print --check | FileCheck %s --check-prefix=ROW-AT-RUN-TIME
// RUN: pw-run %s --fill=iota --arg 2x1 --arg 2x3 --print --check | FileCheck %s --check-prefix=COLUMN-AT-RUN-TIME
// RUN: pw-run %s --fill=iota --arg 2x3@0,1+4 --arg 2x3 --print --check | FileCheck %s --check-prefix=STRIDE-ZERO
// RUN: pw-run %s --fill=iota --arg 0x3 --arg 0x3 --print --check | FileCheck %s --check-prefix=EMPTY
// RUN: pw-run %s --fill=iota --arg 2x3 --arg 2x3@1,2 --print --check | FileCheck %s --check-prefix=TRANSPOSED-OUTPUT

// TRANSPOSED: {{\[\[}}0, 2, 4], [1, 3, 5]]
// FLIPPED: {{\[\[}}5, 4, 3], [2, 1, 0]]
// SLICED: {{\[\[}}1, 3, 5], [9, 11, 13]]
// ROW-AT-RUN-TIME: {{\[\[}}0, 1, 2], [0, 1, 2]]
// COLUMN-AT-RUN-TIME: {{\[\[}}0, 0, 0], [1, 1, 1]]
// STRIDE-ZERO: {{\[\[}}4, 5, 6], [4, 5, 6]]
// EMPTY: []
// TRANSPOSED-OUTPUT: argument #1 (2x3@1,2+0 xi64):
// TRANSPOSED-OUTPUT-NEXT: {{\[\[}}0, 1, 2], [3, 4, 5]]
func.func @copy(%a: memref<?x?xi64, strided<[?, ?], offset: ?>>,
                %c: memref<?x?xi64, strided<[?, ?], offset: ?>>) {
  pointwise.map ins(%a : memref<?x?xi64, strided<[?, ?], offset: ?>>)
                outs(%c : memref<?x?xi64, strided<[?, ?], offset: ?>>) {
  ^bb0(%x: i64):
    pointwise.yield %x : i64
  }
  return
}
