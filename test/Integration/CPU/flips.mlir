// Inputs read backwards (stride -1) through the tiled code, lane by lane
// inside the vector path of the other operands. Run by gpu-tiles-on-cpu.test
// at offsets that do and do not align the flipped lanes to a vector, in f32,
// f16 and i8, rank 1 and 2, with a forward input beside the flipped one.
// RUN: pw-run %s --entry add_f32 --lowering=tiled --fill=iota --print --check --arg 12@-1+11 --arg 12 --arg 12 | FileCheck %s --check-prefix=FLIP
// FLIP: argument #2 (12@1+0 xf32):
// FLIP-NEXT: {{^}}[11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11]{{$}}
// FLIP-NEXT: check passed

func.func @add_f32(%a: memref<?xf32, strided<[?], offset: ?>>, %b: memref<?xf32, strided<[?], offset: ?>>, %c: memref<?xf32, strided<[?], offset: ?>>) {
  pointwise.map ins(%a, %b : memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>) outs(%c : memref<?xf32, strided<[?], offset: ?>>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @copy_f16(%a: memref<?x?xf16, strided<[?, ?], offset: ?>>, %c: memref<?x?xf16, strided<[?, ?], offset: ?>>) {
  pointwise.map ins(%a : memref<?x?xf16, strided<[?, ?], offset: ?>>) outs(%c : memref<?x?xf16, strided<[?, ?], offset: ?>>) {
  ^bb0(%x: f16):
    pointwise.yield %x : f16
  }
  return
}

func.func @negate_i8(%a: memref<?xi8, strided<[?], offset: ?>>, %c: memref<?xi8, strided<[?], offset: ?>>) {
  pointwise.map ins(%a : memref<?xi8, strided<[?], offset: ?>>) outs(%c : memref<?xi8, strided<[?], offset: ?>>) {
  ^bb0(%x: i8):
    %zero = arith.constant 0 : i8
    %0 = arith.subi %zero, %x : i8
    pointwise.yield %0 : i8
  }
  return
}
