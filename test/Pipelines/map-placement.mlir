// Maps the verifier accepts go through both pipelines or get a pointwise
// diagnostic; no pass leaves IR the verifier rejects. A map inside
// affine.for lowers (affine loops are lowered before scf becomes cf); a map
// with a negative static offset is not coalesced (no reinterpret_cast keeps
// that offset) and lowers as it is.
// RUN: pw-opt %s --pw-cpu-pipeline | FileCheck %s --check-prefix=CPU
// RUN: pw-opt %s --pw-gpu-pipeline=format=isa | FileCheck %s --check-prefix=GPU
// RUN: pw-run %s --entry in_affine_for --fill=iota --print --check | FileCheck %s --check-prefix=VALUES

// CPU: llvm.func @in_affine_for
// CPU: llvm.func @negative_static_offset
// GPU: llvm.func @in_affine_for
// GPU: gpu.binary @in_affine_for_kernel
// GPU-SAME: .entry in_affine_for_kernel(
// GPU-SAME: .entry negative_static_offset_kernel(
// GPU: llvm.func @negative_static_offset
// GPU: gpu.launch_func @in_affine_for_kernel::@negative_static_offset_kernel
// VALUES: argument #1 (4x8@8,1+0 xf32):
// VALUES-NEXT: {{\[\[}}-0, -1, -2, -3, -4, -5, -6, -7], [-8,
// VALUES: check passed
func.func @in_affine_for(%a: memref<4x8xf32>, %c: memref<4x8xf32>) {
  affine.for %i = 0 to 3 {
    pointwise.map ins(%a : memref<4x8xf32>) outs(%c : memref<4x8xf32>) {
    ^bb0(%x: f32):
      %0 = arith.negf %x : f32
      pointwise.yield %0 : f32
    }
  }
  return
}

func.func @negative_static_offset(%a: memref<4x4xf32, strided<[4, 1], offset: -100>>, %c: memref<4x4xf32>) {
  pointwise.map ins(%a : memref<4x4xf32, strided<[4, 1], offset: -100>>) outs(%c : memref<4x4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
