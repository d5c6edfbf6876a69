// pw-cpu-pipeline lowers a map all the way to the LLVM dialect, with and
// without layout transformations; the optimized path coalesces first.
// RUN: pw-opt %s --pw-cpu-pipeline | FileCheck %s
// RUN: pw-opt %s --pw-cpu-pipeline=reference=1 | FileCheck %s
// RUN: pw-opt %s --mlir-print-ir-after=pw-coalesce-dims --pw-cpu-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=COALESCED

// CHECK-LABEL: llvm.func @add(
// CHECK-NOT: pointwise.
// CHECK-NOT: memref.
// CHECK-NOT: scf.
// CHECK: llvm.fadd
// CHECK: llvm.return
// COALESCED: pointwise.map ins(%{{.*}}, %{{.*}} : memref<24xf32, strided<[1]>>, memref<24xf32, strided<[1]>>) outs(%{{.*}} : memref<24xf32, strided<[1]>>)
func.func @add(%a: memref<2x3x4xf32>, %b: memref<2x3x4xf32>, %c: memref<2x3x4xf32>) {
  pointwise.map ins(%a, %b : memref<2x3x4xf32>, memref<2x3x4xf32>) outs(%c : memref<2x3x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    %1 = math.tanh %0 : f32
    pointwise.yield %1 : f32
  }
  return
}
