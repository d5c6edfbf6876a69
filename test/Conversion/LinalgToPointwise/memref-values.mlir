// On memrefs, transposed and broadcast inputs become views, and the maps
// compute what upstream's own loops compute (same inputs, same output bytes).
// RUN: pw-opt %s --pw-convert-linalg-to-pointwise -o %t.maps.mlir
// RUN: FileCheck %s < %t.maps.mlir
// RUN: pw-opt %s --pass-pipeline='builtin.module(func.func(convert-linalg-to-loops))' -o %t.loops.mlir
// RUN: rm -rf %t.maps %t.loops
// RUN: pw-run %t.maps.mlir --arg 6x5 --arg 6 --arg 1x5x1 --arg 5x2x6 --seed 11 --dump-outputs %t.maps
// RUN: pw-run %t.loops.mlir --arg 6x5 --arg 6 --arg 1x5x1 --arg 5x2x6 --seed 11 --dump-outputs %t.loops
// RUN: cmp %t.maps/arg3.bin %t.loops/arg3.bin

// CHECK: memref.transpose
// CHECK: memref.expand_shape
// CHECK: pointwise.map
// CHECK-NOT: linalg.
func.func @mixed(%a: memref<6x5xf32>, %b: memref<6xf32>, %c: memref<1x5x1xf32>, %out: memref<5x2x6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>,
                                   affine_map<(d0, d1, d2) -> (d2)>,
                                   affine_map<(d0, d1, d2) -> (0, d0, 0)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b, %c : memref<6x5xf32>, memref<6xf32>, memref<1x5x1xf32>) outs(%out : memref<5x2x6xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.subf %0, %z : f32
    linalg.yield %1 : f32
  }
  return
}
