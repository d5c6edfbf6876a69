// The CPU lowering converts between floating point and integers wider than
// 64 bits (the GPU lowering rejects these conversions,
// Conversion/lower-to-gpu-wide-integer-conversions.mlir): x * 1e20 goes
// through i128, beyond the range of i64 (about 9.2e18), and back.
// RUN: pw-run %s --fill=iota --arg 4 --arg 4 --print --check | FileCheck %s
// RUN: pw-run %s --fill=iota --arg 4 --arg 4 --print --check --lowering=tiled | FileCheck %s
// CHECK: argument #1 (4@1+0 xf64):
// CHECK-NEXT: {{^}}[0, 100, 200, 300]{{$}}
// CHECK-NEXT: check passed
func.func @through_i128(%a: memref<?xf64>, %c: memref<?xf64>) {
  pointwise.map ins(%a : memref<?xf64>) outs(%c : memref<?xf64>) {
  ^bb0(%x: f64):
    %scale = arith.constant 1.0e20 : f64
    %big = arith.mulf %x, %scale : f64
    %w = arith.fptosi %big : f64 to i128
    %d = arith.constant 1000000000000000000 : i128
    %q = arith.divsi %w, %d : i128
    %r = arith.sitofp %q : i128 to f64
    pointwise.yield %r : f64
  }
  return
}
