// f16/bf16 map bodies in the GPU pipeline, which computes them in f32: the
// float class tests, which take their operand rounded to f16/bf16, compile
// to PTX that ptxas accepts on sm_80 and sm_90.
// RUN: pw-opt %s --pw-gpu-pipeline="chip=sm_80 format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_80 | FileCheck %s --check-prefix=CHECK
// RUN: pw-opt %s --pw-gpu-pipeline="chip=sm_90 format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s --check-prefix=CHECK
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

// tanh of bf16 is pw-bf16-math-to-nvvm's exp2 and reciprocal; f16 keeps
// libdevice's tanhf, which picks between them and a polynomial at
// |x| >= 0.6 (setp.ge).
// CHECK-LABEL: .visible .entry bf16_tanh_kernel(
// CHECK: ex2.approx.ftz.f32
// CHECK: rcp.approx.ftz.f32
// CHECK-NOT: setp.ge.f32
// CHECK-LABEL: .visible .entry f16_tanh_kernel(
// CHECK: setp.ge.f32
func.func @bf16_tanh(%a: memref<?xbf16>, %c: memref<?xbf16>) {
  pointwise.map ins(%a : memref<?xbf16>) outs(%c : memref<?xbf16>) {
  ^bb0(%x: bf16):
    %t = math.tanh %x : bf16
    pointwise.yield %t : bf16
  }
  return
}

func.func @f16_tanh(%a: memref<?xf16>, %c: memref<?xf16>) {
  pointwise.map ins(%a : memref<?xf16>) outs(%c : memref<?xf16>) {
  ^bb0(%x: f16):
    %t = math.tanh %x : f16
    pointwise.yield %t : f16
  }
  return
}

// Two bf16 maps fused by pw-fuse-maps, (x * x) * y: with the guard of the
// producer's rounding gone (pw-strip-rounding-guards), both multiplies are
// packed bf16 ones, with no negation and no f32 multiply between
// conversions on the vector path.
// RUN: pw-opt %s --pw-fuse-maps --canonicalize --pw-gpu-pipeline="chip=sm_90 format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s --check-prefix=FUSED
// FUSED-LABEL: .visible .entry fused_square_kernel(
// FUSED: ld.global{{.*}}.v4.b32
// FUSED-NOT: {{neg|mul.rn.f32}}
// FUSED: mul.rn.bf16x2
// FUSED-NOT: {{neg|mul.rn.f32}}
// FUSED: st.global.v4.b32
func.func @fused_square(%a: memref<4096xbf16>, %b: memref<4096xbf16>, %c: memref<4096xbf16>) {
  %x = bufferization.to_tensor %a restrict : memref<4096xbf16> to tensor<4096xbf16>
  %y = bufferization.to_tensor %b restrict : memref<4096xbf16> to tensor<4096xbf16>
  %e = tensor.empty() : tensor<4096xbf16>
  %s = pointwise.map ins(%x, %x : tensor<4096xbf16>, tensor<4096xbf16>) outs(%e : tensor<4096xbf16>) {
  ^bb0(%p: bf16, %q: bf16):
    %m = arith.mulf %p, %q : bf16
    pointwise.yield %m : bf16
  } -> tensor<4096xbf16>
  %t = pointwise.map ins(%s, %y : tensor<4096xbf16>, tensor<4096xbf16>) outs(%e : tensor<4096xbf16>) {
  ^bb0(%p: bf16, %q: bf16):
    %m = arith.mulf %p, %q : bf16
    pointwise.yield %m : bf16
  } -> tensor<4096xbf16>
  bufferization.materialize_in_destination %t in restrict writable %c : (tensor<4096xbf16>, memref<4096xbf16>) -> ()
  return
}
