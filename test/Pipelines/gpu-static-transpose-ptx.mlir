// A static transposed input through pw-gpu-pipeline: pw-tile chooses the
// transpose strategy from the types, stages the transposed input through a
// 64 x 65 shared-memory tile, and moves 16-byte vectors on interior tiles
// when the pointers are aligned (the u8 flag, computed once per launch).
// Sizes and strides are immediates: the kernel takes no other parameter
// (docs/Performance.md, rows `transpose-detection`, `transpose-tile` and
// `transpose-vectors`).
// RUN: pw-opt %s --split-input-file --pw-gpu-pipeline=format=isa | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s
// REQUIRES: ptxas

// CHECK-LABEL: .visible .entry add_transposed_kernel(
// CHECK-NEXT: .param .u64 .ptr .align 1 add_transposed_kernel_param_0,
// CHECK-NEXT: .param .u8 add_transposed_kernel_param_1,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_transposed_kernel_param_2,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_transposed_kernel_param_3
// CHECK-NEXT: )
// CHECK: .shared .align 4 .b8 __wg_add_transposed_kernel_0[16640];
// CHECK: ld.global.L1::evict_last.L2::cache_hint.v4.b32
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK: st.global.v4.b32
func.func @add_transposed(%a: memref<1024x1024xf32, strided<[1, 1024]>>, %b: memref<1024x1024xf32>, %c: memref<1024x1024xf32>) {
  pointwise.map ins(%a, %b : memref<1024x1024xf32, strided<[1, 1024]>>, memref<1024x1024xf32>) outs(%c : memref<1024x1024xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// NCHW + NHWC: coalescing at compile time makes a batched 3136 x 64
// transpose of the NHWC input; the NCHW input is read along the rows.
// CHECK-LABEL: .visible .entry nchw_plus_nhwc_kernel(
// CHECK-NEXT: .param .u64 .ptr .align 1 nchw_plus_nhwc_kernel_param_0,
// CHECK-NEXT: .param .u8 nchw_plus_nhwc_kernel_param_1,
// CHECK-NEXT: .param .u64 .ptr .align 1 nchw_plus_nhwc_kernel_param_2,
// CHECK-NEXT: .param .u64 .ptr .align 1 nchw_plus_nhwc_kernel_param_3
// CHECK-NEXT: )
// CHECK: .shared .align 4 .b8 __wg_nchw_plus_nhwc_kernel_0[16640];
// CHECK: ld.global.L1::evict_last.L2::cache_hint.v4.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK: st.global.v4.b32
func.func @nchw_plus_nhwc(%a: memref<8x64x56x56xf32>, %b: memref<8x64x56x56xf32, strided<[200704, 1, 3584, 64]>>, %c: memref<8x64x56x56xf32>) {
  pointwise.map ins(%a, %b : memref<8x64x56x56xf32>, memref<8x64x56x56xf32, strided<[200704, 1, 3584, 64]>>) outs(%c : memref<8x64x56x56xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Dynamic sizes, static unit strides: the input contiguous along dim 0 is
// still staged through a tile; sizes and strides the types leave unknown
// are parameters.
// CHECK-LABEL: .visible .entry unit_stride_of_dynamic_dims_kernel(
// CHECK: .param .u64 unit_stride_of_dynamic_dims_kernel_param_
// CHECK: .shared .align 4 .b8 __wg_unit_stride_of_dynamic_dims_kernel_0[16640];
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK: st.global.v4.b32
func.func @unit_stride_of_dynamic_dims(%a: memref<?x?xf32, strided<[1, ?]>>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %b : memref<?x?xf32, strided<[1, ?]>>, memref<?x?xf32>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}
