// On the CPU, pw-run checks the arguments' layouts against every
// pointwise.map before it calls the entry, with the rules and messages of the
// runtime's launch-time check (docs/Layout.md): the lowered code would read
// and write out of bounds otherwise.

// An input that does not broadcast to the output, with either lowering.
// RUN: not pw-run %s --entry copy --arg 2 --arg 5 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not pw-run %s --entry copy --arg 2 --arg 5 --lowering=tiled 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: pw-run: layout error: copy: operand #1 dim 0 (size 2) does not broadcast to size 5 of iteration dim 0 (operands #0, #1 are arguments 1, 0)
// RUN: not pw-run %s --entry copy --arg 2 --arg 100000 2>&1 | FileCheck %s --check-prefix=LONG
// LONG: operand #1 dim 0 (size 2) does not broadcast to size 100000 of iteration dim 0

// The axpy example's row vector against a wider output, and an empty input
// against a non-empty output.
// RUN: not pw-run %pointwise_src_root/examples/axpy.mlir --arg 2x2 --arg 2 --arg =0 --arg 3x5 2>&1 | FileCheck %s --check-prefix=AXPY
// AXPY: pw-run: layout error: axpy: operand #1 dim 0 (size 2) does not broadcast to size 3 of iteration dim 0 (operands #0, #1, #2 are arguments 3, 0, 1)
// RUN: not pw-run %pointwise_src_root/examples/axpy.mlir --arg 0x4 --arg 4 --arg =0.5 --arg 3x4 --check 2>&1 | FileCheck %s --check-prefix=EMPTY-INPUT
// EMPTY-INPUT: operand #1 dim 0 (size 0) does not broadcast to size 3 of iteration dim 0
// RUN: not pw-run %s --entry add --arg 3x4 --arg 0 --arg 3x4 2>&1 | FileCheck %s --check-prefix=EMPTY-ROW
// EMPTY-ROW: operand #2 dim 0 (size 0) does not broadcast to size 4 of iteration dim 1

// Outputs of different shapes.
// RUN: not pw-run %s --entry two_outputs --arg 4 --arg 4 --arg 5 2>&1 | FileCheck %s --check-prefix=OUTPUTS
// OUTPUTS: pw-run: layout error: two_outputs: output operand #1 has shape [5] but the iteration shape is [4] (operands #0, #1, #2 are arguments 1, 2, 0)

// An output that overlaps itself (stride 0 on a dim of size > 1).
// RUN: not pw-run %s --entry add --arg 3x4 --arg 4 --arg 3x4@0,1 2>&1 | FileCheck %s --check-prefix=SELF
// RUN: not pw-run %s --entry add --arg 3x4 --arg 4 --arg 3x4@1,0 --lowering=tiled 2>&1 | FileCheck %s --check-prefix=SELF-INNER
// SELF: pw-run: layout error: add: output operand #0 overlaps itself: dim 0 has size 3 and stride 0 (operands #0, #1, #2 are arguments 2, 0, 1)
// SELF-INNER: output operand #0 overlaps itself: dim 1 has size 4 and stride 0
// Strides that do not nest: two elements share an offset; [2, 3]
// (offsets 0, 3, 2, 5, 4, 7) do not nest either but never collide.
// RUN: not pw-run %s --entry add --arg 3x4 --arg 4 --arg 3x4@1,1 2>&1 | FileCheck %s --check-prefix=SELF-SHARED
// RUN: pw-run %s --entry add --fill=iota --arg 3x2 --arg 2 --arg 3x2@2,3 --check | FileCheck %s --check-prefix=PASS
// SELF-SHARED: output operand #0 overlaps itself: two of its elements are at element offset 1 (sizes [3, 4], strides [1, 1])

// Every map of the entry is checked, and named when there are several.
// RUN: not pw-run %s --entry two_maps --arg 3 --arg 3 --arg 4 2>&1 | FileCheck %s --check-prefix=SECOND-MAP
// SECOND-MAP: pw-run: layout error: two_maps, pointwise.map #1: operand #1 dim 0 (size 3) does not broadcast to size 4 of iteration dim 0 (operands #0, #1 are arguments 2, 1)

// memref.cast keeps the argument's descriptor, so its operand is checked.
// RUN: not pw-run %s --entry through_cast --arg 3 --arg 4 2>&1 | FileCheck %s --check-prefix=CAST
// CAST: pw-run: layout error: through_cast: operand #1 dim 0 (size 3) does not broadcast to size 4 of iteration dim 0 (operands #0, #1 are arguments 1, 0)

// Valid broadcasts still run: a row, a column, size-1 dims, a lower rank, a
// negative-stride output, empty outputs, and an in-place update.
// RUN: pw-run %s --entry add --fill=iota --arg 3x4 --arg 4 --arg 3x4 --print --check | FileCheck %s --check-prefix=ROW
// ROW: argument #2 (3x4@4,1+0 xf32):
// ROW-NEXT: {{\[\[}}0, 2, 4, 6], [4, 6, 8, 10], [8, 10, 12, 14]]
// ROW-NEXT: check passed
// RUN: pw-run %s --entry add --fill=iota --arg 3x1 --arg 4 --arg 3x4 --print --check --lowering=tiled | FileCheck %s --check-prefix=COLUMN
// COLUMN: argument #2 (3x4@4,1+0 xf32):
// COLUMN-NEXT: {{\[\[}}0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5]]
// COLUMN-NEXT: check passed
// RUN: pw-run %s --entry add --fill=iota --arg 1x4 --arg 1 --arg 3x4@-4,-1+11 --print --check | FileCheck %s --check-prefix=SIZE-1
// SIZE-1: argument #2 (3x4@-4,-1+11 xf32):
// SIZE-1-NEXT: {{\[\[}}0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]
// SIZE-1-NEXT: check passed
// RUN: pw-run %s --entry copy --fill=iota --arg 1 --arg 3 --print --check | FileCheck %s --check-prefix=ONE
// ONE: argument #1 (3@1+0 xf32):
// ONE-NEXT: [0, 0, 0]
// ONE-NEXT: check passed
// RUN: pw-run %s --entry add --arg 0x4 --arg 1 --arg 0x4 --check | FileCheck %s --check-prefix=PASS
// RUN: pw-run %s --entry two_outputs --arg 1 --arg 4 --arg 4 --check | FileCheck %s --check-prefix=PASS
// PASS: check passed
// RUN: pw-run %s --entry add_in_place --fill=iota --arg 2x3@1,2 --arg 3 --print --check | FileCheck %s --check-prefix=IN-PLACE
// IN-PLACE: argument #0 (2x3@1,2+0 xf32):
// IN-PLACE-NEXT: {{\[\[}}0, 3, 6], [1, 4, 7]]
// IN-PLACE-NEXT: check passed

// Views the function computes (here a subview) have no layout before the
// call: their maps run unchecked, as pw-run's documentation says.
// RUN: pw-run %s --entry subview_output --fill=iota --arg 1 --arg 4 --print --check | FileCheck %s --check-prefix=SUBVIEW
// SUBVIEW: argument #1 (4@1+0 xf32):
// SUBVIEW-NEXT: [0, 0, 0, 3]
// SUBVIEW-NEXT: check passed

func.func @copy(%a: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @add(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?xf32>,
               %c: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  pointwise.map ins(%a, %b : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?xf32>)
                outs(%c : memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @add_in_place(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?xf32>) {
  pointwise.map ins(%a, %b : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?xf32>)
                outs(%a : memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @two_outputs(%a: memref<?xf32>, %c: memref<?xf32>, %d: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%c, %d : memref<?xf32>, memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x, %x : f32, f32
  }
  return
}

func.func @two_maps(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%b : memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  pointwise.map ins(%b : memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @through_cast(%a: memref<?xf32>, %c: memref<?xf32>) {
  %ac = memref.cast %a : memref<?xf32> to memref<?xf32, strided<[?], offset: ?>>
  pointwise.map ins(%ac : memref<?xf32, strided<[?], offset: ?>>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @subview_output(%a: memref<?xf32>, %c: memref<?xf32>) {
  %s = memref.subview %c[1] [2] [1] : memref<?xf32> to memref<2xf32, strided<[1], offset: 1>>
  pointwise.map ins(%a : memref<?xf32>) outs(%s : memref<2xf32, strided<[1], offset: 1>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
