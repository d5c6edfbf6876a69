// A static tensor function through pw-gpu-pipeline: with identity-layout=1
// its arguments are contiguous memrefs whose layout is static, so its
// kernel takes pointers and the alignment flag only, as a static memref
// function's does; by default the arguments have fully dynamic layouts and
// the kernel takes their sizes, strides and offsets.
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa identity-layout=1" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s --check-prefix=DYNAMIC
// REQUIRES: ptxas

// CHECK-LABEL: .visible .entry add_kernel(
// CHECK-NEXT: .param .u32 add_kernel_param_0,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_kernel_param_1,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_kernel_param_2,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_kernel_param_3,
// CHECK-NEXT: .param .u8 add_kernel_param_4
// CHECK-NEXT: )
// CHECK: st.global.v2.b32
// DYNAMIC-LABEL: .visible .entry add_kernel(
// DYNAMIC: add_kernel_param_8
func.func @add(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>,
               %out: memref<1024x1024xf32>) {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %r = pointwise.map ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    pointwise.yield %s : f32
  } -> tensor<1024x1024xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<1024x1024xf32>, memref<1024x1024xf32>) -> ()
  return
}
