// Views the function computes are unknown before the call, so pw-run cannot
// check them up front as it does its arguments: the pipelines' run-time
// checks (generate-runtime-verification, pointwise.map's
// RuntimeVerifiableOpInterface) stop the run before the map, with the
// broken rule and exit status 1, where the map would read or write outside
// its views. The operands' overlap is checked by the layout library through
// the runtime's pwCheckMapOverlap (pw-runtime-overlap-checks), whose
// message says which operands.

// A computed view that does not broadcast to the output.
// RUN: not pw-run %s --entry prefix --arg 8 --arg =3 --arg 8 2>&1 | FileCheck %s --check-prefix=BROADCAST
// RUN: not pw-run %s --entry prefix --arg 8 --arg =3 --arg 8 --lowering=tiled 2>&1 | FileCheck %s --check-prefix=BROADCAST
// BROADCAST: ERROR: Runtime op verification failed
// BROADCAST-NEXT: pointwise.map ins(%subview
// BROADCAST-NEXT: ^ input #0 dim 0 does not broadcast to iteration dim 0 (its size is neither 1 nor the iteration size)
// (the location and pw-run's error: at @prefix below)

// The same view of size 1 broadcasts; of the output's size it is a copy.
// RUN: pw-run %s --entry prefix --arg 8 --arg =1 --arg 8 --fill=iota --print --check | FileCheck %s --check-prefix=ONE
// ONE: [0, 0, 0, 0, 0, 0, 0, 0]
// ONE: check passed
// RUN: pw-run %s --entry prefix --arg 8 --arg =8 --arg 8 --fill=iota --print --check | FileCheck %s --check-prefix=ALL
// ALL: [0, 1, 2, 3, 4, 5, 6, 7]
// ALL: check passed

// Outputs of different shapes.
// RUN: not pw-run %s --entry two_outputs --arg 6 --arg =4 --arg 6 --arg 6 2>&1 | FileCheck %s --check-prefix=OUTPUTS
// OUTPUTS: ^ output #1 dim 0 does not have the size of the other outputs (the iteration space)
// OUTPUTS: pw-run: 'two_outputs': a run-time check failed

// An output view repeating one element (stride 0).
// RUN: not pw-run %s --entry repeat --arg 4 --arg =0 --arg 4 2>&1 | FileCheck %s --check-prefix=REPEAT
// REPEAT: ^ output #0 dim 0 has stride 0 and a size above 1, so its elements overlap
// RUN: pw-run %s --entry repeat --arg 4 --arg =1 --arg 4 --fill=iota --print | FileCheck %s --check-prefix=STRIDE1
// STRIDE1: argument #2 (4@1+0 xf32):
// STRIDE1-NEXT: [0, 1, 2, 3]

// A stride-0 view cast to the identity layout (whose leading stride is
// dynamic) is checked as well.
// RUN: not pw-run %s --entry repeat_rows --arg 3x4 --arg 4 --arg =3 --arg =4 --arg =0 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: ^ output #0 dim 0 has stride 0 and a size above 1, so its elements overlap
// RUN: pw-run %s --entry repeat_rows --arg 3x4 --arg 4 --arg =3 --arg =4 --arg =4 --fill=iota --print | FileCheck %s --check-prefix=ROWS4
// ROWS4: argument #0 (3x4@4,1+0 xf32):
// ROWS4-NEXT: {{\[\[0, 1, 2, 3\], \[0, 1, 2, 3\], \[0, 1, 2, 3\]\]}}

// Other ops' checks come with it: a subview out of its source's bounds.
// RUN: not pw-run %s --entry prefix --arg 8 --arg =9 --arg 8 2>&1 | FileCheck %s --check-prefix=SUBVIEW
// SUBVIEW: memref.subview
// SUBVIEW: pw-run: 'prefix': a run-time check failed

// A computed output that partially overlaps a computed input (a[1:] =
// a[:-1]: the threads would race with each other's reads).
// RUN: not pw-run %s --entry shift --arg 8 2>&1 | FileCheck %s --check-prefix=SHIFT
// SHIFT: pointwise.map: output operand #0 partially overlaps input operand #1; only exact aliasing (same address, element size, sizes and strides) is allowed
// SHIFT-NEXT: ERROR: Runtime op verification failed
// SHIFT-NEXT: pointwise.map: an output overlaps itself or another output, or partially overlaps an input (operands numbered outputs first, then memref inputs; pwCheckMapOverlap printed which to stderr)
// SHIFT-NEXT: Location: loc({{.*}}runtime-checks.mlir":[[# @LINE + 78]]:3)
// SHIFT: pw-run: 'shift': a run-time check failed
// The same view read and written (in place), and views that do not overlap,
// run; so does a shift by a dynamic 0 (exact aliasing).
// RUN: pw-run %s --entry in_place --arg 8 --fill=iota --print | FileCheck %s --check-prefix=INPLACE
// INPLACE: [0, 1, 2, 3, 8, 10, 12, 14]
// RUN: pw-run %s --entry halves --arg 8 --fill=iota --print | FileCheck %s --check-prefix=HALVES
// HALVES: [0, 1, 2, 3, 0, 1, 2, 3]
// RUN: pw-run %s --entry shift_by --arg 8 --arg =0 --fill=iota --print | FileCheck %s --check-prefix=SHIFT0
// SHIFT0: [0, 1, 2, 3, 4, 5, 6, 7]
// RUN: not pw-run %s --entry shift_by --arg 8 --arg =2 2>&1 | FileCheck %s --check-prefix=SHIFT2
// SHIFT2: output operand #0 partially overlaps input operand #1
// Views that interleave without sharing an element run: a[1::2] = a[::2]
// (the same sizes and strides, so compared element by element), and
// a[1::4] = a[0:4:2] (odd against even elements: apart modulo the gcd of
// their strides). Views that interleave with strides whose gcd is one
// element are reported, conservatively: a[0::3] = a[1::4] (elements 0, 3,
// 6 and 1, 5, 9) shares nothing but is rejected.
// RUN: pw-run %s --entry interleaved --arg 8 --fill=iota --print | FileCheck %s --check-prefix=INTERLEAVED
// INTERLEAVED: [0, 0, 2, 2, 4, 4, 6, 6]
// RUN: pw-run %s --entry sparse --arg 8 --fill=iota --print | FileCheck %s --check-prefix=SPARSE
// SPARSE: [0, 0, 2, 3, 4, 2, 6, 7]
// RUN: not pw-run %s --entry every_third --arg 10 2>&1 | FileCheck %s --check-prefix=THIRD
// THIRD: output operand #0 partially overlaps input operand #1
// Two outputs that overlap.
// RUN: not pw-run %s --entry overlapping_outputs --arg 8 --arg 4 2>&1 | FileCheck %s --check-prefix=OUTPUTS2
// OUTPUTS2: pointwise.map: output operands #0 and #1 overlap in memory
// An output whose nonzero strides make elements coincide (3x3, strides 1x1).
// RUN: not pw-run %s --entry diagonal_strides --arg 9 --arg =1 --arg 3x3 2>&1 | FileCheck %s --check-prefix=SELF
// SELF: pointwise.map: output operand #0 overlaps itself
// RUN: pw-run %s --entry diagonal_strides --arg 9 --arg =3 --arg 3x3 --fill=iota --print | FileCheck %s --check-prefix=SELF3
// SELF3: argument #0 (9@1+0 xf32):
// SELF3-NEXT: [0, 1, 2, 3, 4, 5, 6, 7, 8]

func.func @prefix(%a: memref<?xf32>, %n: index, %o: memref<?xf32>) {
  %v = memref.subview %a[0][%n][1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  // BROADCAST-NEXT: Location: loc({{.*}}runtime-checks.mlir":[[# @LINE + 2]]:3)
  // BROADCAST: pw-run: 'prefix': a run-time check failed (its message is above)
  pointwise.map ins(%v : memref<?xf32, strided<[1]>>) outs(%o : memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @two_outputs(%a: memref<?xf32>, %n: index, %o: memref<?xf32>, %p: memref<?xf32>) {
  %w = memref.subview %p[0][%n][1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  pointwise.map ins(%a : memref<?xf32>) outs(%o, %w : memref<?xf32>, memref<?xf32, strided<[1]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x, %x : f32, f32
  }
  return
}

func.func @repeat(%a: memref<?xf32>, %stride: index, %o: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %o, %c0 : memref<?xf32>
  %w = memref.reinterpret_cast %o to offset: [0], sizes: [%n], strides: [%stride] : memref<?xf32> to memref<?xf32, strided<[?]>>
  pointwise.map ins(%a : memref<?xf32>) outs(%w : memref<?xf32, strided<[?]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @repeat_rows(%o: memref<?x?xf32>, %a: memref<?xf32>, %rows: index, %columns: index, %stride: index) {
  %w = memref.reinterpret_cast %o to offset: [0], sizes: [%rows, %columns], strides: [%stride, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1]>>
  %c = memref.cast %w : memref<?x?xf32, strided<[?, 1]>> to memref<?x?xf32>
  pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @shift(%a: memref<8xf32>) {
  %in = memref.subview %a[0][7][1] : memref<8xf32> to memref<7xf32, strided<[1]>>
  %out = memref.subview %a[1][7][1] : memref<8xf32> to memref<7xf32, strided<[1], offset: 1>>
  pointwise.map ins(%in : memref<7xf32, strided<[1]>>) outs(%out : memref<7xf32, strided<[1], offset: 1>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @in_place(%a: memref<8xf32>) {
  %v = memref.subview %a[4][4][1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  pointwise.map ins(%v : memref<4xf32, strided<[1], offset: 4>>) outs(%v : memref<4xf32, strided<[1], offset: 4>>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @halves(%a: memref<8xf32>) {
  %in = memref.subview %a[0][4][1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %out = memref.subview %a[4][4][1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  pointwise.map ins(%in : memref<4xf32, strided<[1]>>) outs(%out : memref<4xf32, strided<[1], offset: 4>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @shift_by(%a: memref<8xf32>, %by: index) {
  %in = memref.subview %a[0][6][1] : memref<8xf32> to memref<6xf32, strided<[1]>>
  %out = memref.subview %a[%by][6][1] : memref<8xf32> to memref<6xf32, strided<[1], offset: ?>>
  pointwise.map ins(%in : memref<6xf32, strided<[1]>>) outs(%out : memref<6xf32, strided<[1], offset: ?>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @interleaved(%a: memref<8xf32>) {
  %in = memref.subview %a[0][4][2] : memref<8xf32> to memref<4xf32, strided<[2]>>
  %out = memref.subview %a[1][4][2] : memref<8xf32> to memref<4xf32, strided<[2], offset: 1>>
  pointwise.map ins(%in : memref<4xf32, strided<[2]>>) outs(%out : memref<4xf32, strided<[2], offset: 1>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @overlapping_outputs(%a: memref<8xf32>, %b: memref<4xf32>) {
  %o = memref.subview %a[0][4][1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %p = memref.subview %a[2][4][1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  pointwise.map ins(%b : memref<4xf32>) outs(%o, %p : memref<4xf32, strided<[1]>>, memref<4xf32, strided<[1], offset: 2>>) {
  ^bb0(%x: f32):
    pointwise.yield %x, %x : f32, f32
  }
  return
}

func.func @diagonal_strides(%o: memref<9xf32>, %rowStride: index, %a: memref<3x3xf32>) {
  %w = memref.reinterpret_cast %o to offset: [0], sizes: [3, 3], strides: [%rowStride, 1] : memref<9xf32> to memref<3x3xf32, strided<[?, 1]>>
  pointwise.map ins(%a : memref<3x3xf32>) outs(%w : memref<3x3xf32, strided<[?, 1]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @sparse(%a: memref<8xf32>) {
  %in = memref.subview %a[0][4][2] : memref<8xf32> to memref<4xf32, strided<[2]>>
  %out = memref.subview %a[1][2][4] : memref<8xf32> to memref<2xf32, strided<[4], offset: 1>>
  %one = memref.subview %in[0][2][1] : memref<4xf32, strided<[2]>> to memref<2xf32, strided<[2]>>
  pointwise.map ins(%one : memref<2xf32, strided<[2]>>) outs(%out : memref<2xf32, strided<[4], offset: 1>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @every_third(%a: memref<10xf32>) {
  %out = memref.subview %a[0][3][3] : memref<10xf32> to memref<3xf32, strided<[3]>>
  %in = memref.subview %a[1][3][4] : memref<10xf32> to memref<3xf32, strided<[4], offset: 1>>
  pointwise.map ins(%in : memref<3xf32, strided<[4], offset: 1>>) outs(%out : memref<3xf32, strided<[3]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
