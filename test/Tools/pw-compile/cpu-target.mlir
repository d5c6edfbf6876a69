// --target=cpu: the same family with host loops instead of GPU kernels, one
// linear 64-bit variant per rank (no tiles, no GPU binary), dispatched by the
// same pwFamilyLaunch.
// RUN: pw-compile %s --target=cpu -o %t.mlir --quiet
// RUN: FileCheck %s --check-prefix=VARIANTS < %t.mlir
// RUN: pw-compile %s --target=cpu -o %t.ll 2>&1 | FileCheck %s --check-prefix=PROGRESS
// RUN: FileCheck %s --check-prefix=HOST < %t.ll
// RUN: not pw-compile %s --target=tpu -o %t.bad.ll 2>&1 | FileCheck %s --check-prefix=BAD

// VARIANTS-NOT: func.func @axpy(
// VARIANTS: func.func @axpy__r1_i64_linear(
// VARIANTS: func.func @axpy__r2_i64_linear(
// VARIANTS-NOT: func.func

// PROGRESS: pw-compile: 1 family, 2 variants; generating host code ...

// HOST-NOT: gpu
// HOST-NOT: mgpu
// HOST: @pw_family_axpy = {{.*}}constant
// HOST: call {{.*}}@llvm.exp.f32(
// HOST: define {{.*}}i32 @axpy(

// BAD: pw-compile: for the --target option: Cannot find option named 'tpu'!
// BAD-NEXT: pw-compile: error: invalid option '--target=tpu' (see --help)

func.func @axpy(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>,
                %b: memref<?xf32>, %alpha: f32, %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %b, %alpha : memref<?x?xf32, strided<[?, ?], offset: ?>>,
                                     memref<?xf32>, f32)
                outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %0 = arith.mulf %y, %s : f32
    %1 = arith.addf %x, %0 : f32
    %2 = math.exp %1 : f32
    pointwise.yield %2 : f32
  }
  return
}
