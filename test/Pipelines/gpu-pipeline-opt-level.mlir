// The NVVM target's optimization level, which gpu-module-to-binary gives both
// LLVM's pipeline and ptxas: 2 unless opt-level says otherwise. At 3, LLVM
// unrolls the 16 rows of the transpose strategy's edge tiles that pw-tile
// emits as a loop, for kernels a third longer and no faster
// (docs/Performance.md, row `nvvm-opt-level`).
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=DEFAULT
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa opt-level=3" | FileCheck %s --check-prefix=O3
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa opt-level=0" | FileCheck %s --check-prefix=O0

// The default level is the attribute's own, which it does not print.
// DEFAULT: gpu.binary @add_transposed_kernel [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">,
// O3: gpu.binary @add_transposed_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">,
// O0: gpu.binary @add_transposed_kernel [#gpu.object<#nvvm.target<O = 0, chip = "sm_90", features = "+ptx80">,
func.func @add_transposed(%a: memref<?x?xf32>, %b: memref<?x?xf32, strided<[1, ?]>>, %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %b : memref<?x?xf32>, memref<?x?xf32, strided<[1, ?]>>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}
