// Division by run-time sizes: the host computes a magic multiplier once, in
// twice the index width, and the kernel divides with a multiply-high, in
// 32-bit and in 64-bit kernels alike (docs/Performance.md, row
// `magic-division`). Divisions left in the kernel are by constants.
// RUN: pw-opt %s --pw-tile=index-bitwidth=32 | FileCheck %s --check-prefix=I32
// RUN: pw-opt %s --pw-tile=index-bitwidth=64 | FileCheck %s --check-prefix=I64

// I32-LABEL: func @rank2
// I32: math.ctlz %{{.*}} : i32
// I32: arith.divui %{{.*}}, %{{.*}} : i64
// I32: scf.parallel
// I32: arith.mului_extended %{{.*}}, %{{.*}} : i32
// I32-NOT: arith.divui %{{[^ ]+}}, %{{[^c][^ ]*}} : i32
// I32-NOT: arith.remui %{{[^ ]+}}, %{{[^c][^ ]*}} : i32
// I32: return

// I64-LABEL: func @rank2
// I64: math.ctlz %{{.*}} : i64
// I64: arith.divui %{{.*}}, %{{.*}} : i128
// I64: scf.parallel
// I64: arith.mului_extended %{{.*}}, %{{.*}} : index
// I64-NOT: arith.divui %{{[^ ]+}}, %{{[^c][^ ]*}} : index
// I64-NOT: arith.remui %{{[^ ]+}}, %{{[^c][^ ]*}} : index
// I64: return
func.func @rank2(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %c: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  pointwise.map ins(%a : memref<?x?xf32, strided<[?, ?], offset: ?>>) outs(%c : memref<?x?xf32, strided<[?, ?], offset: ?>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
