// math.isinf, math.isnormal, math.isfinite and math.isnan of f16 and bf16
// values answer for the narrow type, on the CPU path, loops and tiled, though
// opmath computes the body in f32: an f16 subnormal is not normal (in f32 it
// would be), and an f16 product beyond 65504 is infinite, as it is stored
// (in f32 it would be finite). Each element's code is isinf + 2 * isnormal +
// 4 * isfinite + 8 * isnan; --fill=iota makes each i16 its own offset, so a
// view's offset picks the bit patterns. --check compares with the reference
// lowering, which shares the opmath code: the codes are checked here.

// f16 0x0000-0x0003: zero and the three smallest subnormals.
// RUN: pw-run %s --entry=half --fill=iota --arg 4+0 --arg 4 --print --check | FileCheck %s --check-prefix=ZERO
// RUN: pw-run %s --entry=half --fill=iota --arg 4+0 --arg 4 --print --lowering=tiled | FileCheck %s --check-prefix=ZERO
// ZERO: argument #1 (4@1+0 xi8):
// ZERO-NEXT: [4, 4, 4, 4]

// f16 0x03FE-0x0401: the two largest subnormals, the two smallest normals.
// RUN: pw-run %s --entry=half --fill=iota --arg 4+1022 --arg 4 --print --check | FileCheck %s --check-prefix=SUBNORMAL
// RUN: pw-run %s --entry=half --fill=iota --arg 4+1022 --arg 4 --print --lowering=tiled | FileCheck %s --check-prefix=SUBNORMAL
// SUBNORMAL: argument #1 (4@1+0 xi8):
// SUBNORMAL-NEXT: [4, 4, 6, 6]

// f16 0x7BFF-0x7C02: the largest finite value, +inf, two NaNs.
// RUN: pw-run %s --entry=half --fill=iota --arg 4+31743 --arg 4 --print --check | FileCheck %s --check-prefix=TOP
// RUN: pw-run %s --entry=half --fill=iota --arg 4+31743 --arg 4 --print --lowering=tiled | FileCheck %s --check-prefix=TOP
// TOP: argument #1 (4@1+0 xi8):
// TOP-NEXT: [6, 1, 8, 8]

// f16 0x7FFF-0x8002: a NaN, -0, the two negative subnormals nearest zero.
// RUN: pw-run %s --entry=half --fill=iota --arg 4+32767 --arg 4 --print --check | FileCheck %s --check-prefix=NEGATIVE-ZERO
// RUN: pw-run %s --entry=half --fill=iota --arg 4+32767 --arg 4 --print --lowering=tiled | FileCheck %s --check-prefix=NEGATIVE-ZERO
// NEGATIVE-ZERO: argument #1 (4@1+0 xi8):
// NEGATIVE-ZERO-NEXT: [8, 4, 4, 4]

// f16 0xFBFF-0xFC02: the lowest finite value, -inf, two NaNs.
// RUN: pw-run %s --entry=half --fill=iota --arg 4+64511 --arg 4 --print --check | FileCheck %s --check-prefix=BOTTOM
// RUN: pw-run %s --entry=half --fill=iota --arg 4+64511 --arg 4 --print --lowering=tiled | FileCheck %s --check-prefix=BOTTOM
// BOTTOM: argument #1 (4@1+0 xi8):
// BOTTOM-NEXT: [6, 1, 8, 8]

// Squares of f16 0x5BFE-0x5C01 (255.75 to 256.25): the last two overflow
// f16, so they are stored as inf and are infinite, not normal.
// RUN: pw-run %s --entry=half_square --fill=iota --arg 4+23550 --arg 4 --arg 4 --print --check | FileCheck %s --check-prefix=OVERFLOW
// RUN: pw-run %s --entry=half_square --fill=iota --arg 4+23550 --arg 4 --arg 4 --print --lowering=tiled | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: argument #1 (4@1+0 xf16):
// OVERFLOW-NEXT: [65408, 65472, inf, inf]
// OVERFLOW: argument #2 (4@1+0 xi8):
// OVERFLOW-NEXT: [6, 6, 1, 1]

// Squares of f16 0x1FFE-0x2001 (just below and above 2^-7): the first two
// are f16 subnormals, below 2^-14.
// RUN: pw-run %s --entry=half_square --fill=iota --arg 4+8190 --arg 4 --arg 4 --print --check | FileCheck %s --check-prefix=UNDERFLOW
// RUN: pw-run %s --entry=half_square --fill=iota --arg 4+8190 --arg 4 --arg 4 --print --lowering=tiled | FileCheck %s --check-prefix=UNDERFLOW
// UNDERFLOW: argument #2 (4@1+0 xi8):
// UNDERFLOW-NEXT: [4, 4, 6, 6]

// bf16 0x007E-0x0081: the two largest subnormals, the two smallest normals.
// RUN: pw-run %s --entry=brain --fill=iota --arg 4+126 --arg 4 --print --check | FileCheck %s --check-prefix=BF16-SUBNORMAL
// RUN: pw-run %s --entry=brain --fill=iota --arg 4+126 --arg 4 --print --lowering=tiled | FileCheck %s --check-prefix=BF16-SUBNORMAL
// BF16-SUBNORMAL: argument #1 (4@1+0 xi8):
// BF16-SUBNORMAL-NEXT: [4, 4, 6, 6]

// bf16 0x7F7F-0x7F82: the largest finite value, +inf, two NaNs.
// RUN: pw-run %s --entry=brain --fill=iota --arg 4+32639 --arg 4 --print --check | FileCheck %s --check-prefix=BF16-TOP
// RUN: pw-run %s --entry=brain --fill=iota --arg 4+32639 --arg 4 --print --lowering=tiled | FileCheck %s --check-prefix=BF16-TOP
// BF16-TOP: argument #1 (4@1+0 xi8):
// BF16-TOP-NEXT: [6, 1, 8, 8]

func.func @half(%bits: memref<?xi16, strided<[1], offset: ?>>, %code: memref<?xi8>) {
  pointwise.map ins(%bits : memref<?xi16, strided<[1], offset: ?>>) outs(%code : memref<?xi8>) {
  ^bb0(%b: i16):
    %x = arith.bitcast %b : i16 to f16
    %inf = math.isinf %x : f16
    %normal = math.isnormal %x : f16
    %finite = math.isfinite %x : f16
    %nan = math.isnan %x : f16
    %c1 = arith.constant 1 : i8
    %c2 = arith.constant 2 : i8
    %c3 = arith.constant 3 : i8
    %i = arith.extui %inf : i1 to i8
    %n1 = arith.extui %normal : i1 to i8
    %f1 = arith.extui %finite : i1 to i8
    %q1 = arith.extui %nan : i1 to i8
    %n = arith.shli %n1, %c1 : i8
    %f = arith.shli %f1, %c2 : i8
    %q = arith.shli %q1, %c3 : i8
    %in = arith.ori %i, %n : i8
    %fq = arith.ori %f, %q : i8
    %r = arith.ori %in, %fq : i8
    pointwise.yield %r : i8
  }
  return
}

func.func @half_square(%bits: memref<?xi16, strided<[1], offset: ?>>, %square: memref<?xf16>, %code: memref<?xi8>) {
  pointwise.map ins(%bits : memref<?xi16, strided<[1], offset: ?>>) outs(%square, %code : memref<?xf16>, memref<?xi8>) {
  ^bb0(%b: i16):
    %h = arith.bitcast %b : i16 to f16
    %x = arith.mulf %h, %h : f16
    %inf = math.isinf %x : f16
    %normal = math.isnormal %x : f16
    %finite = math.isfinite %x : f16
    %nan = math.isnan %x : f16
    %c1 = arith.constant 1 : i8
    %c2 = arith.constant 2 : i8
    %c3 = arith.constant 3 : i8
    %i = arith.extui %inf : i1 to i8
    %n1 = arith.extui %normal : i1 to i8
    %f1 = arith.extui %finite : i1 to i8
    %q1 = arith.extui %nan : i1 to i8
    %n = arith.shli %n1, %c1 : i8
    %f = arith.shli %f1, %c2 : i8
    %q = arith.shli %q1, %c3 : i8
    %in = arith.ori %i, %n : i8
    %fq = arith.ori %f, %q : i8
    %r = arith.ori %in, %fq : i8
    pointwise.yield %x, %r : f16, i8
  }
  return
}

func.func @brain(%bits: memref<?xi16, strided<[1], offset: ?>>, %code: memref<?xi8>) {
  pointwise.map ins(%bits : memref<?xi16, strided<[1], offset: ?>>) outs(%code : memref<?xi8>) {
  ^bb0(%b: i16):
    %x = arith.bitcast %b : i16 to bf16
    %inf = math.isinf %x : bf16
    %normal = math.isnormal %x : bf16
    %finite = math.isfinite %x : bf16
    %nan = math.isnan %x : bf16
    %c1 = arith.constant 1 : i8
    %c2 = arith.constant 2 : i8
    %c3 = arith.constant 3 : i8
    %i = arith.extui %inf : i1 to i8
    %n1 = arith.extui %normal : i1 to i8
    %f1 = arith.extui %finite : i1 to i8
    %q1 = arith.extui %nan : i1 to i8
    %n = arith.shli %n1, %c1 : i8
    %f = arith.shli %f1, %c2 : i8
    %q = arith.shli %q1, %c3 : i8
    %in = arith.ori %i, %n : i8
    %fq = arith.ori %f, %q : i8
    %r = arith.ori %in, %fq : i8
    pointwise.yield %r : i8
  }
  return
}
