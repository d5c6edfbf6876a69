// pw-tile addresses inputs with their own strides, so it applies
// pw-canonicalize-broadcast's rewrite itself: a static size-1 dim under a
// larger iteration size, or a missing leading dim, broadcasts (before, the
// 1x4 input was read past its 4 elements). On a map that went through the
// pass, the rewrite changes nothing.
// RUN: pw-opt %s --pw-tile > %t.tiled.mlir
// RUN: pw-run %t.tiled.mlir --entry=row --fill=iota --arg - --arg - --print | FileCheck %s --check-prefix=ROW
// RUN: pw-run %t.tiled.mlir --entry=lower_rank --fill=iota --arg - --arg - --print | FileCheck %s --check-prefix=LOWER
// RUN: pw-opt %s --pw-canonicalize-broadcast --pw-tile > %t.canonical-first.mlir
// RUN: diff %t.tiled.mlir %t.canonical-first.mlir
// RUN: pw-opt %s --pw-canonicalize-broadcast > %t.canonical.mlir
// RUN: pw-opt %t.canonical.mlir --pw-canonicalize-broadcast | diff %t.canonical.mlir -

// ROW: argument #1
// ROW-NEXT: {{\[}}[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]
func.func @row(%a: memref<1x4xf32>, %c: memref<3x4xf32>) {
  pointwise.map ins(%a : memref<1x4xf32>) outs(%c : memref<3x4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// LOWER: argument #1
// LOWER-NEXT: {{\[}}[0, 1, 2], [0, 1, 2]]
func.func @lower_rank(%a: memref<3xf32>, %c: memref<2x3xf32>) {
  pointwise.map ins(%a : memref<3xf32>) outs(%c : memref<2x3xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
