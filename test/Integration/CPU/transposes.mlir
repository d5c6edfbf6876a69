// Layouts the transpose strategy handles; gpu-tiles-on-cpu.test runs them
// through the tiled code. Here: the values of a small transpose, and of one
// with interior and edge tiles (c[i][j] = 133 i + 101 j, the last row from
// an edge tile).
// RUN: pw-run %s --entry add_transposed --fill=iota --print --check | FileCheck %s
// RUN: pw-run %s --entry add_transposed_partial --lowering=tiled --fill=iota --print --check --arg 100x130@132,1 --arg 100x130@1,100 --arg 100x130@132,1 | FileCheck %s --check-prefix=VALUES

// CHECK: argument #2 (70x300@300,1+0 xf32):
// CHECK-NEXT: {{\[\[}}0, 71, 142,
// CHECK: check passed

// VALUES: argument #2 (100x130@132,1+0 xf32):
// VALUES-NEXT: {{^}}{{\[\[}}0, 101, 202, 303, 404, {{.*}}], [133, 234, 335, 436, {{.*}}, 25994, 26095, 26196]]{{$}}
// VALUES-NEXT: check passed
func.func @add_transposed(%a: memref<70x300xf32>, %b: memref<70x300xf32, strided<[1, 70]>>, %c: memref<70x300xf32>) {
  pointwise.map ins(%a, %b : memref<70x300xf32>, memref<70x300xf32, strided<[1, 70]>>) outs(%c : memref<70x300xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @nchw_plus_nhwc(%a: memref<2x35x7x9xf32>, %b: memref<2x35x7x9xf32, strided<[2205, 1, 315, 35]>>, %c: memref<2x35x7x9xf32>) {
  pointwise.map ins(%a, %b : memref<2x35x7x9xf32>, memref<2x35x7x9xf32, strided<[2205, 1, 315, 35]>>) outs(%c : memref<2x35x7x9xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.subf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @nchw_times_nhwc_f16(%a: memref<3x40x7x9xf16>, %b: memref<3x40x7x9xf16, strided<[2520, 1, 360, 40]>>, %c: memref<3x40x7x9xf16>) {
  pointwise.map ins(%a, %b : memref<3x40x7x9xf16>, memref<3x40x7x9xf16, strided<[2520, 1, 360, 40]>>) outs(%c : memref<3x40x7x9xf16>) {
  ^bb0(%x: f16, %y: f16):
    %0 = arith.mulf %x, %y : f16
    pointwise.yield %0 : f16
  }
  return
}

// Run-time strides and offsets (aligned or not to 16 bytes).
func.func @add_transposed_strided(%a: memref<192x320xf32, strided<[?, 1], offset: ?>>, %b: memref<192x320xf32, strided<[1, ?], offset: ?>>, %c: memref<192x320xf32, strided<[?, 1], offset: ?>>) {
  pointwise.map ins(%a, %b : memref<192x320xf32, strided<[?, 1], offset: ?>>, memref<192x320xf32, strided<[1, ?], offset: ?>>) outs(%c : memref<192x320xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// Odd sizes: interior tiles and partial ones at both high edges.
func.func @add_transposed_partial(%a: memref<100x130xf32, strided<[?, 1], offset: ?>>, %b: memref<100x130xf32, strided<[1, ?], offset: ?>>, %c: memref<100x130xf32, strided<[?, 1], offset: ?>>) {
  pointwise.map ins(%a, %b : memref<100x130xf32, strided<[?, 1], offset: ?>>, memref<100x130xf32, strided<[1, ?], offset: ?>>) outs(%c : memref<100x130xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @scale_transposed_f16(%a: memref<128x200xf16, strided<[1, ?], offset: ?>>, %k: f16, %c: memref<128x200xf16, strided<[?, 1], offset: ?>>) {
  pointwise.map ins(%a, %k : memref<128x200xf16, strided<[1, ?], offset: ?>>, f16) outs(%c : memref<128x200xf16, strided<[?, 1], offset: ?>>) {
  ^bb0(%x: f16, %s: f16):
    %0 = arith.mulf %x, %s : f16
    pointwise.yield %0 : f16
  }
  return
}

func.func @sub_transposed_f64(%a: memref<96x160xf64, strided<[?, 1], offset: ?>>, %b: memref<96x160xf64, strided<[1, ?], offset: ?>>, %c: memref<96x160xf64, strided<[?, 1], offset: ?>>) {
  pointwise.map ins(%a, %b : memref<96x160xf64, strided<[?, 1], offset: ?>>, memref<96x160xf64, strided<[1, ?], offset: ?>>) outs(%c : memref<96x160xf64, strided<[?, 1], offset: ?>>) {
  ^bb0(%x: f64, %y: f64):
    %0 = arith.subf %x, %y : f64
    pointwise.yield %0 : f64
  }
  return
}

// A batch of i8 transposes: batch strides are checked too.
func.func @xor_transposed_i8(%a: memref<3x128x200xi8, strided<[?, ?, 1], offset: ?>>, %b: memref<3x128x200xi8, strided<[?, 1, ?], offset: ?>>, %c: memref<3x128x200xi8, strided<[?, ?, 1], offset: ?>>) {
  pointwise.map ins(%a, %b : memref<3x128x200xi8, strided<[?, ?, 1], offset: ?>>, memref<3x128x200xi8, strided<[?, 1, ?], offset: ?>>) outs(%c : memref<3x128x200xi8, strided<[?, ?, 1], offset: ?>>) {
  ^bb0(%x: i8, %y: i8):
    %0 = arith.xori %x, %y : i8
    pointwise.yield %0 : i8
  }
  return
}

// Broadcast inputs (a row: stride 0 along P; a column: stride 0 along L),
// a scalar, and two outputs of different types.
func.func @broadcasts_two_outputs(%bt: memref<128x192xf32, strided<[1, ?], offset: ?>>, %row: memref<192xf32>, %col: memref<128x1xf32>, %s: f32, %x: memref<128x192xf32, strided<[?, 1], offset: ?>>, %y: memref<128x192xf16, strided<[?, 1], offset: ?>>) {
  pointwise.map ins(%bt, %row, %col, %s : memref<128x192xf32, strided<[1, ?], offset: ?>>, memref<192xf32>, memref<128x1xf32>, f32) outs(%x, %y : memref<128x192xf32, strided<[?, 1], offset: ?>>, memref<128x192xf16, strided<[?, 1], offset: ?>>) {
  ^bb0(%v: f32, %r: f32, %c: f32, %k: f32):
    %0 = arith.mulf %v, %r : f32
    %1 = arith.addf %0, %c : f32
    %2 = arith.subf %v, %k : f32
    %3 = arith.truncf %2 : f32 to f16
    pointwise.yield %1, %3 : f32, f16
  }
  return
}

// An i1 output next to f32 inputs.
func.func @less_transposed_i1(%a: memref<128x192xf32, strided<[?, 1], offset: ?>>, %b: memref<128x192xf32, strided<[1, ?], offset: ?>>, %c: memref<128x192xi1, strided<[?, 1], offset: ?>>) {
  pointwise.map ins(%a, %b : memref<128x192xf32, strided<[?, 1], offset: ?>>, memref<128x192xf32, strided<[1, ?], offset: ?>>) outs(%c : memref<128x192xi1, strided<[?, 1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.cmpf olt, %x, %y : f32
    pointwise.yield %0 : i1
  }
  return
}

// An input whose strides are all known at run time only (a step, a flip,
// a broadcast).
func.func @add_transposed_any_layout(%a: memref<128x192xf32, strided<[?, ?], offset: ?>>, %b: memref<128x192xf32, strided<[1, ?], offset: ?>>, %c: memref<128x192xf32, strided<[?, 1], offset: ?>>) {
  pointwise.map ins(%a, %b : memref<128x192xf32, strided<[?, ?], offset: ?>>, memref<128x192xf32, strided<[1, ?], offset: ?>>) outs(%c : memref<128x192xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}
