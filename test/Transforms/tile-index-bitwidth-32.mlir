// A forced index-bitwidth=32 takes 32-bit indices on a static layout that
// fits, or a dynamic one (the runtime checks it at dispatch); one whose
// offsets need 64 bits is an error (tile-index-bitwidth-32-too-wide.mlir).
// RUN: pw-opt %s --split-input-file --pw-tile=index-bitwidth=32 | FileCheck %s --check-prefix=FITS

// FITS-LABEL: func @small
// FITS: arith.index_cast {{.*}} : index to i32
func.func @small(%a: memref<2xi8, strided<[4]>>, %c: memref<2xi8>) {
  pointwise.map ins(%a : memref<2xi8, strided<[4]>>) outs(%c : memref<2xi8>) {
  ^bb0(%x: i8):
    pointwise.yield %x : i8
  }
  return
}

// -----

// FITS-LABEL: func @dynamic
// FITS: arith.index_cast {{.*}} : index to i32
func.func @dynamic(%a: memref<?xi8, strided<[?], offset: ?>>, %c: memref<?xi8>) {
  pointwise.map ins(%a : memref<?xi8, strided<[?], offset: ?>>) outs(%c : memref<?xi8>) {
  ^bb0(%x: i8):
    pointwise.yield %x : i8
  }
  return
}
