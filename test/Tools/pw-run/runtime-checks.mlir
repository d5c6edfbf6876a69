// Views the function computes are unknown before the call, so pw-run cannot
// check them up front as it does its arguments: the pipelines' run-time
// checks (generate-runtime-verification, pointwise.map's
// RuntimeVerifiableOpInterface) stop the run before the map, with the
// broken rule and exit status 1, where the map would read or write outside
// its views.

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
