// The converted maps compute what upstream's own lowering of the linalg ops
// computes: each function runs through pw-run twice on the same inputs (the
// same seed and views), once converted to pointwise.map and once lowered by
// mlir-opt --convert-linalg-to-loops, and the buffers after the runs must be
// equal byte for byte, the bytes outside the views included. Each output
// must also differ from its contents before the run, so that a function
// that writes nothing cannot pass.
//
// RUN: pw-opt %s --pw-convert-linalg-to-pointwise > %t.converted.mlir
// RUN: FileCheck %s --input-file=%t.converted.mlir
// RUN: mlir-opt %s --convert-linalg-to-loops > %t.loops.mlir
// RUN: rm -rf %t.dir && mkdir -p %t.dir
//
// RUN: pw-run %t.converted.mlir --entry broadcast_transpose_scalar --dump-inputs=%t.dir/in1 --dump-outputs=%t.dir/pw1
// RUN: pw-run %t.loops.mlir --entry broadcast_transpose_scalar --dump-outputs=%t.dir/ref1
// RUN: cmp %t.dir/pw1/arg3.bin %t.dir/ref1/arg3.bin
// RUN: not cmp -s %t.dir/in1/arg3.bin %t.dir/pw1/arg3.bin
//
// RUN: pw-run %t.converted.mlir --entry permuted_outputs_dynamic --arg 7@3+2 --arg 5x7@1,6 --arg 7x5@9,1+4 --dump-inputs=%t.dir/in2 --dump-outputs=%t.dir/pw2
// RUN: pw-run %t.loops.mlir --entry permuted_outputs_dynamic --arg 7@3+2 --arg 5x7@1,6 --arg 7x5@9,1+4 --dump-outputs=%t.dir/ref2
// RUN: cmp %t.dir/pw2/arg1.bin %t.dir/ref2/arg1.bin
// RUN: cmp %t.dir/pw2/arg2.bin %t.dir/ref2/arg2.bin
// RUN: not cmp -s %t.dir/in2/arg1.bin %t.dir/pw2/arg1.bin
// RUN: not cmp -s %t.dir/in2/arg2.bin %t.dir/pw2/arg2.bin
//
// RUN: pw-run %t.converted.mlir --entry named_ops --dump-inputs=%t.dir/in3 --dump-outputs=%t.dir/pw3
// RUN: pw-run %t.loops.mlir --entry named_ops --dump-outputs=%t.dir/ref3
// RUN: for n in 1 3 5 7; do cmp %t.dir/pw3/arg$n.bin %t.dir/ref3/arg$n.bin; done
// RUN: for n in 1 3 5 7; do not cmp -s %t.dir/in3/arg$n.bin %t.dir/pw3/arg$n.bin; done
//
// RUN: pw-run %t.converted.mlir --entry row_zero_of_dynamic --arg 3x8 --arg 4x1x8 --arg 4x5x8 --dump-inputs=%t.dir/in4 --dump-outputs=%t.dir/pw4
// RUN: pw-run %t.loops.mlir --entry row_zero_of_dynamic --arg 3x8 --arg 4x1x8 --arg 4x5x8 --dump-outputs=%t.dir/ref4
// RUN: cmp %t.dir/pw4/arg2.bin %t.dir/ref4/arg2.bin
// RUN: not cmp -s %t.dir/in4/arg2.bin %t.dir/pw4/arg2.bin

// CHECK-NOT: linalg.

// A transposed input, a constant-0 unit dim, a rank-0 input and the output
// read in the body, into an output with padded rows.
func.func @broadcast_transpose_scalar(%a: memref<8x4xf32>, %b: memref<4x1x8xf32>, %s: memref<f32>, %c: memref<4x5x8xf32, strided<[80, 8, 1]>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>,
                                   affine_map<(d0, d1, d2) -> (d0, 0, d2)>,
                                   affine_map<(d0, d1, d2) -> ()>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b, %s : memref<8x4xf32>, memref<4x1x8xf32>, memref<f32>)
      outs(%c : memref<4x5x8xf32, strided<[80, 8, 1]>>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %out: f32):
    %0 = arith.mulf %x, %z : f32
    %1 = arith.addf %0, %y : f32
    %2 = arith.subf %1, %out : f32
    linalg.yield %2 : f32
  }
  return
}

// Outputs in two orders (the second one column-major) and an input of
// dynamic stride broadcast along the trailing loop.
func.func @permuted_outputs_dynamic(%a: memref<?xf32, strided<[?], offset: ?>>, %c: memref<?x?xf32, strided<[?, ?], offset: ?>>, %d: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>,
                                   affine_map<(d0, d1) -> (d1, d0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<?xf32, strided<[?], offset: ?>>)
      outs(%c, %d : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  ^bb0(%x: f32, %o0: f32, %o1: f32):
    %0 = math.exp %x : f32
    %1 = arith.addf %x, %o1 : f32
    linalg.yield %0, %1 : f32, f32
  }
  return
}

func.func @named_ops(%a: memref<4x8x3xf16>, %t: memref<3x4x8xf16>, %b: memref<4x8xi8>, %bc: memref<4x5x8xi8>, %v: i32, %f: memref<2x3xi32>, %e: memref<4x8xf32>, %ec: memref<4x8xf32>) {
  linalg.transpose ins(%a : memref<4x8x3xf16>) outs(%t : memref<3x4x8xf16>) permutation = [2, 0, 1]
  linalg.broadcast ins(%b : memref<4x8xi8>) outs(%bc : memref<4x5x8xi8>) dimensions = [1]
  linalg.fill ins(%v : i32) outs(%f : memref<2x3xi32>)
  linalg.elementwise kind=#linalg.elementwise_kind<sub>
      ins(%e, %ec : memref<4x8xf32>, memref<4x8xf32>) outs(%ec : memref<4x8xf32>)
  return
}

// tosa-to-linalg's broadcast of a dim that is dynamic: only row 0 is read.
func.func @row_zero_of_dynamic(%a: memref<?x8xf32>, %b: memref<?x1x8xf32>, %c: memref<?x5x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, 0, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : memref<?x8xf32>, memref<?x1x8xf32>) outs(%c : memref<?x5x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %0 = arith.maximumf %x, %y : f32
    linalg.yield %0 : f32
  }
  return
}
