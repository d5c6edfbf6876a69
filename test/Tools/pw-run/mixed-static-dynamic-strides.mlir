// A view given without @strides keeps the type's static strides, since the
// compiled code uses them whatever the descriptor says; each dynamic stride,
// from the innermost dim out, is one more than the element offsets spanned by
// the dims laid out so far (the static ones first), so the view never
// overlaps itself, and a type without static strides is row-major. The
// buffer covers the strides used.

// [?, 16] with 4 columns: the columns span offsets 0 .. 48, rows are 49
// apart. An output read back as it is laid out, and an input copied from
// such offsets (iota: each element holds its offset).
// RUN: pw-run %s --entry write_padded --fill=iota --arg 3x4 --arg 3x4 --print --check | FileCheck %s --check-prefix=WRITE
// WRITE: argument #1 (3x4@49,16+0 xf32):
// WRITE-NEXT: {{\[\[}}0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
// WRITE: check passed
// RUN: pw-run %s --entry read_padded --fill=iota --arg 3x4 --arg 3x4 --print --check | FileCheck %s --check-prefix=READ
// READ: argument #1 (3x4@4,1+0 xf32):
// READ-NEXT: {{\[\[}}0, 16, 32, 48], [49, 65, 81, 97], [98, 114, 130, 146]]
// READ: check passed

// A static unit stride on the outer dim: the inner dynamic one steps over it.
// RUN: pw-run %s --entry read_columns --fill=iota --arg 4x3 --arg 4x3 --print --check | FileCheck %s --check-prefix=COLUMNS
// COLUMNS: {{\[\[}}0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]]
// COLUMNS: check passed

// A static shape with a dynamic stride, given by its sizes alone.
// RUN: pw-run %s --entry read_static_shape --fill=iota --arg 2x3 --arg - --print --check | FileCheck %s --check-prefix=STATIC-SHAPE
// STATIC-SHAPE: {{\[\[}}0, 2, 4], [5, 7, 9]]
// STATIC-SHAPE: check passed

// Explicit strides must agree with the static ones.
// RUN: not pw-run %s --entry read_padded --arg 3x4@4,1 --arg 3x4 2>&1 | FileCheck %s --check-prefix=CONTRADICTS
// CONTRADICTS: pw-run: argument #0 (memref<?x4xf32, strided<[?, 16]>>): stride 1 of dim 1 contradicts the type's 16
// RUN: pw-run %s --entry read_padded --fill=iota --arg 3x4@100,16 --arg 3x4 --print | FileCheck %s --check-prefix=EXPLICIT
// EXPLICIT: {{\[\[}}0, 16, 32, 48], [100, 116, 132, 148], [200, 216, 232, 248]]

// A dynamic stride past a static one that spans nearly all of int64.
// RUN: not pw-run %s --entry huge_static_stride --arg 2x3 --arg 2x3 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: pw-run: argument #0 (memref<?x3xi8, strided<[?, 4611686018427387904]>>): no dynamic stride past the type's static ones fits in 64 bits: give the strides with @

func.func @write_padded(%a: memref<?x4xf32>,
                        %c: memref<?x4xf32, strided<[?, 16]>>) {
  pointwise.map ins(%a : memref<?x4xf32>)
                outs(%c : memref<?x4xf32, strided<[?, 16]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @read_padded(%a: memref<?x4xf32, strided<[?, 16]>>,
                       %c: memref<?x4xf32>) {
  pointwise.map ins(%a : memref<?x4xf32, strided<[?, 16]>>)
                outs(%c : memref<?x4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @read_columns(%a: memref<4x?xf32, strided<[1, ?]>>,
                        %c: memref<4x?xf32>) {
  pointwise.map ins(%a : memref<4x?xf32, strided<[1, ?]>>)
                outs(%c : memref<4x?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @read_static_shape(%a: memref<2x3xf32, strided<[?, 2]>>,
                             %c: memref<2x3xf32>) {
  pointwise.map ins(%a : memref<2x3xf32, strided<[?, 2]>>)
                outs(%c : memref<2x3xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @huge_static_stride(%a: memref<?x3xi8, strided<[?, 4611686018427387904]>>,
                              %c: memref<?x3xi8>) {
  pointwise.map ins(%a : memref<?x3xi8, strided<[?, 4611686018427387904]>>)
                outs(%c : memref<?x3xi8>) {
  ^bb0(%x: i8):
    pointwise.yield %x : i8
  }
  return
}
