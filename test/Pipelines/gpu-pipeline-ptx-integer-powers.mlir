// Integer powers (math.ipowi, math.fpowi) compile to PTX that ptxas
// accepts: pw-gpu-pipeline turns them into calls of upstream's
// convert-math-to-funcs functions after tiling, kernel outlining copies the
// functions into the kernels' module, and LLVM inlines them (square and
// multiply: a loop of multiplications).
// RUN: pw-opt %s --pw-gpu-pipeline=format=isa | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s
// RUN: pw-opt %s --pw-gpu-pipeline=format=isa | FileCheck %s --check-prefix=IR
// REQUIRES: ptxas

// IR-NOT: math.ipowi
// IR-NOT: math.fpowi
// The host module keeps no copy of the power functions once the kernels,
// which call them, are outlined.
// IR-NOT: llvm.func {{.*}}@__mlir_math_

// CHECK-LABEL: .visible .entry ipow_kernel(
// CHECK: mul.lo.s32
func.func @ipow(%a: memref<?xi32, strided<[?], offset: ?>>, %n: i32, %c: memref<?xi32>) {
  pointwise.map ins(%a, %n : memref<?xi32, strided<[?], offset: ?>>, i32) outs(%c : memref<?xi32>) {
  ^bb0(%x: i32, %k: i32):
    %r = math.ipowi %x, %k : i32
    pointwise.yield %r : i32
  }
  return
}

// CHECK-LABEL: .visible .entry fpow_kernel(
// CHECK: mul.rn.f32
func.func @fpow(%a: memref<?xf32, strided<[?], offset: ?>>, %n: i32, %c: memref<?xf32>) {
  pointwise.map ins(%a, %n : memref<?xf32, strided<[?], offset: ?>>, i32) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %k: i32):
    %r = math.fpowi %x, %k : f32, i32
    pointwise.yield %r : f32
  }
  return
}
