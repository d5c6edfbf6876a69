// With 32-bit index arithmetic, kernels divide the linear index by run-time
// sizes with host-computed magic numbers: a multiply-high and a shift, no
// division instruction.
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa index-bitwidth=32" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s
// REQUIRES: ptxas

// CHECK-LABEL: .visible .entry add_strided_dynamic_kernel(
// CHECK-NOT: div.u32
// CHECK-NOT: rem.u32
// CHECK-NOT: div.u64
// CHECK: mul.hi.u32
// CHECK: ld.global{{(.nc)?}}.L1::evict_last.L2::cache_hint.b32
func.func @add_strided_dynamic(%a: memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, %c: memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) {
  pointwise.map ins(%a : memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) outs(%c : memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  }
  return
}
