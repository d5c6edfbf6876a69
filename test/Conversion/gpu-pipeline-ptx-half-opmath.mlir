// f16/bf16 map bodies in the GPU pipeline, which computes them in f32: the
// float class tests, which take their operand rounded to f16/bf16, compile
// to PTX that ptxas accepts on sm_80 and sm_90, and an explicit truncf's
// rounding mode reaches the kernel's LLVM IR.
// RUN: pw-opt %s --pw-gpu-pipeline="chip=sm_80 format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_80 | FileCheck %s --check-prefixes=CHECK,PTX
// RUN: pw-opt %s --pw-gpu-pipeline="chip=sm_90 format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s --check-prefixes=CHECK,PTX
// RUN: pw-opt %s --pw-gpu-pipeline="chip=sm_90 format=isa" --mlir-print-ir-after=convert-gpu-to-nvvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=KERNEL
// REQUIRES: ptxas

// CHECK-LABEL: .visible .entry half_classes_kernel(
func.func @half_classes(%a: memref<?xf16>, %c: memref<?xi8>) {
  pointwise.map ins(%a : memref<?xf16>) outs(%c : memref<?xi8>) {
  ^bb0(%x: f16):
    %s = arith.mulf %x, %x : f16
    %inf = math.isinf %s : f16
    %normal = math.isnormal %x : f16
    %finite = math.isfinite %s : f16
    %both = arith.andi %normal, %finite : i1
    %any = arith.ori %inf, %both : i1
    %r = arith.extui %any : i1 to i8
    pointwise.yield %r : i8
  }
  return
}

// CHECK-LABEL: .visible .entry bf16_classes_kernel(
func.func @bf16_classes(%a: memref<?xbf16>, %c: memref<?xi8>) {
  pointwise.map ins(%a : memref<?xbf16>) outs(%c : memref<?xi8>) {
  ^bb0(%x: bf16):
    %s = arith.mulf %x, %x : bf16
    %inf = math.isinf %s : bf16
    %normal = math.isnormal %x : bf16
    %finite = math.isfinite %s : bf16
    %both = arith.andi %normal, %finite : i1
    %any = arith.ori %inf, %both : i1
    %r = arith.extui %any : i1 to i8
    pointwise.yield %r : i8
  }
  return
}

// The rounding mode reaches LLVM as a constrained fptrunc, which assumes the
// mode rather than setting it; NVPTX, with no rounding-mode register to
// assume, emits the default cvt.rn. Checked so that a backend that honours
// the mode (cvt.rp) is noticed and the op's documented gap closed.
// KERNEL-LABEL: gpu.module @round_up_kernel
// KERNEL: llvm.intr.experimental.constrained.fptrunc %{{.*}} upward ignore : f32 to f16
// PTX-LABEL: .visible .entry round_up_kernel(
// PTX-NOT: cvt.rp
// PTX: cvt.rn.f16.f32
func.func @round_up(%a: memref<?xf32>, %c: memref<?xf16>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xf16>) {
  ^bb0(%x: f32):
    %h = arith.truncf %x upward : f32 to f16
    pointwise.yield %h : f16
  }
  return
}
