// Static layouts through pw-gpu-pipeline: sizes, strides and offsets are
// immediates of the kernel, so it takes the pointers and, where a vector
// path exists, the alignment found once per launch (the u8 flag; at rank 1
// also the u32 head of scalar elements before the first aligned vector).
// The vector width follows the static layout (docs/Performance.md, rows
// `linear-shape` and `static-vector-width`).
// RUN: pw-opt %s --split-input-file --pw-gpu-pipeline=format=isa | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s
// REQUIRES: ptxas

// A contiguous 1024x1024 f32 add coalesces to rank 1, where 4-byte elements
// take 8-byte vectors in blocks of 256 threads, as the kernel families do.
// CHECK-LABEL: .visible .entry add_contiguous_kernel(
// CHECK-NEXT: .param .u32 add_contiguous_kernel_param_0,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_contiguous_kernel_param_1,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_contiguous_kernel_param_2,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_contiguous_kernel_param_3,
// CHECK-NEXT: .param .u8 add_contiguous_kernel_param_4
// CHECK-NEXT: )
// CHECK-NOT: .v4.
// CHECK: ld.global.L1::evict_last.L2::cache_hint.b64
// CHECK: ld.global.L1::evict_last.L2::cache_hint.b64
// CHECK: st.global.v2.b32
// CHECK-NOT: .v4.
func.func @add_contiguous(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<1024x1024xf32>) {
  pointwise.map ins(%a, %b : memref<1024x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<1024x1024xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// f16 operands take 16-byte vectors of 8 halves.
// CHECK-LABEL: .visible .entry add_f16_kernel(
// CHECK-NEXT: .param .u32 add_f16_kernel_param_0,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_f16_kernel_param_1,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_f16_kernel_param_2,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_f16_kernel_param_3,
// CHECK-NEXT: .param .u8 add_f16_kernel_param_4
// CHECK-NEXT: )
// The body computes on vectors: packed adds, two halves each (row
// `vector-body`).
// CHECK: ld.global.L1::evict_last.L2::cache_hint.v4.b32
// CHECK: ld.global.L1::evict_last.L2::cache_hint.v4.b32
// CHECK-COUNT-4: add.rn.f16x2
// CHECK: st.global.v4.b32
func.func @add_f16(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf16>) {
  pointwise.map ins(%a, %b : memref<1024x1024xf16>, memref<1024x1024xf16>) outs(%c : memref<1024x1024xf16>) {
  ^bb0(%x: f16, %y: f16):
    %0 = arith.addf %x, %y : f16
    pointwise.yield %0 : f16
  }
  return
}

// -----

// Rows of a wider buffer do not coalesce: rank 2 takes 16-byte vectors.
// Rows start at vector boundaries (1000 and 1024 are multiples of 4), so no
// head: the pointers' alignment is all the host checks.
// CHECK-LABEL: .visible .entry add_row_slice_kernel(
// CHECK-NEXT: .param .u64 .ptr .align 1 add_row_slice_kernel_param_0,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_row_slice_kernel_param_1,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_row_slice_kernel_param_2,
// CHECK-NEXT: .param .u8 add_row_slice_kernel_param_3
// CHECK-NEXT: )
// CHECK-NOT: div.u32
// CHECK: ld.global.L1::evict_last.L2::cache_hint.v4.b32
// CHECK: ld.global.L1::evict_last.L2::cache_hint.v4.b32
// CHECK: st.global.v4.b32
func.func @add_row_slice(%a: memref<1024x1000xf32, strided<[1024, 1]>>, %b: memref<1024x1000xf32>, %c: memref<1024x1000xf32>) {
  pointwise.map ins(%a, %b : memref<1024x1000xf32, strided<[1024, 1]>>, memref<1024x1000xf32>) outs(%c : memref<1024x1000xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Rows of 34 floats hold whole 2-element vectors, not 4-element ones.
// CHECK-LABEL: .visible .entry rows_of_two_lane_vectors_kernel(
// CHECK-NEXT: .param .u64 .ptr .align 1 rows_of_two_lane_vectors_kernel_param_0,
// CHECK-NEXT: .param .u64 .ptr .align 1 rows_of_two_lane_vectors_kernel_param_1,
// CHECK-NEXT: .param .u8 rows_of_two_lane_vectors_kernel_param_2
// CHECK-NEXT: )
// CHECK-NOT: .v4.
// CHECK: ld.global.L1::evict_last.L2::cache_hint.b64
// CHECK: st.global.v2.b32
// CHECK-NOT: .v4.
func.func @rows_of_two_lane_vectors(%a: memref<64x34xf32, strided<[36, 1]>>, %c: memref<64x34xf32>) {
  pointwise.map ins(%a : memref<64x34xf32, strided<[36, 1]>>) outs(%c : memref<64x34xf32>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Rows of 33 floats hold no whole vector: scalar accesses, nothing to check
// at run time, the pointers are the only parameters.
// CHECK-LABEL: .visible .entry odd_rows_kernel(
// CHECK-NEXT: .param .u64 .ptr .align 1 odd_rows_kernel_param_0,
// CHECK-NEXT: .param .u64 .ptr .align 1 odd_rows_kernel_param_1
// CHECK-NEXT: )
// CHECK-NOT: .v2.
// CHECK-NOT: .v4.
// CHECK-NOT: cache_hint.b64
// CHECK: ld.global.L1::evict_last.L2::cache_hint.b32
// CHECK: st.global.b32
// CHECK-NOT: .v2.
// CHECK-NOT: .v4.
// CHECK-NOT: cache_hint.b64
func.func @odd_rows(%a: memref<64x33xf32, strided<[36, 1]>>, %c: memref<64x33xf32>) {
  pointwise.map ins(%a : memref<64x33xf32, strided<[36, 1]>>) outs(%c : memref<64x33xf32>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  }
  return
}
