// Both pipelines start with generate-runtime-verification and
// pw-runtime-overlap-checks: the map's run-time checks end up in the host
// code, as branches to puts + abort ahead of the work (the loops on the CPU,
// the launch on the GPU), the overlap check as a call of the runtime's
// pwCheckMapOverlap.
// runtime-verification=false leaves them out, and kernel families
// (pw-compile), whose run-time dispatch checks layouts, never have them.
// RUN: pw-opt %s --pw-cpu-pipeline | FileCheck %s --check-prefixes=CHECKED,CPU
// RUN: pw-opt %s --pw-cpu-pipeline=reference=1 | FileCheck %s --check-prefixes=CHECKED,CPU
// RUN: pw-opt %s --pw-gpu-pipeline=format=isa | FileCheck %s --check-prefixes=CHECKED,GPU
// RUN: pw-opt %s --pw-cpu-pipeline=runtime-verification=false | FileCheck %s --check-prefix=UNCHECKED
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa runtime-verification=false" | FileCheck %s --check-prefix=UNCHECKED
// RUN: pw-compile %s --format=isa --quiet -o %t.ll
// RUN: FileCheck %s --check-prefix=FAMILY < %t.ll
// RUN: pw-compile %s --target=cpu --quiet -o %t.cpu.ll
// RUN: FileCheck %s --check-prefix=FAMILY < %t.cpu.ll
// REQUIRES: ptxas

// CHECKED: llvm.mlir.global private constant @assert_msg{{.*}}
// CHECKED: llvm.func @abort()
// CHECKED: llvm.func @pwCheckMapOverlap(!llvm.ptr, !llvm.ptr, i64, i64, i64) -> i32
// CHECKED-LABEL: llvm.func @add(
// CHECKED: llvm.cond_br
// CHECKED: llvm.intr.stacksave
// CHECKED: llvm.call @pwCheckMapOverlap(
// CHECKED: llvm.intr.stackrestore
// CPU: llvm.fadd
// GPU: gpu.launch_func
// CHECKED: llvm.call @puts
// CHECKED-NEXT: llvm.call @abort()
// UNCHECKED-NOT: assert_msg
// UNCHECKED-NOT: @abort
// UNCHECKED-NOT: pwCheckMapOverlap
// FAMILY-NOT: Runtime op verification
// FAMILY-NOT: pwCheckMapOverlap
// FAMILY: pw_family_add
// FAMILY-NOT: Runtime op verification
// FAMILY-NOT: pwCheckMapOverlap
func.func @add(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?xf32>,
               %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %b : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?xf32>)
                outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}
