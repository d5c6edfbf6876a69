// pw-gpu-pipeline produces PTX that ptxas accepts for sm_90, with the
// accesses each strategy promises.
// RUN: pw-opt %s --split-input-file --pw-gpu-pipeline=format=isa | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s
// RUN: pw-opt %s --split-input-file --pw-gpu-pipeline="format=isa load-policy=none" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s --check-prefix=PLAIN
// RUN: pw-opt %s --split-input-file --pw-gpu-pipeline="format=isa hint-min-bytes=0" | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s --check-prefix=ALWAYS
// REQUIRES: ptxas

// Contiguous f32 at rank 1: 8-byte vector loads (pw-tile's choice for rank
// 1 and 4-byte elements) with an L2 cache policy (pw-hint-global-loads:
// evict_last when the launch reads at least 64 MiB, by its grid size,
// evict_normal below) and 8-byte stores, two of each per thread and operand
// (two memref inputs stream: 16 bytes each), all loads before any compute,
// in blocks of 256 threads.
// CHECK-LABEL: .visible .entry add_contiguous_f32_kernel(
// CHECK: createpolicy.fractional.L2::evict_last.b64 [[LAST:%rd[0-9]+]], 1.0;
// CHECK: %nctaid.x
// CHECK: createpolicy.fractional.L2::evict_normal.b64 [[NORMAL:%rd[0-9]+]], 1.0;
// CHECK: selp.b64 [[POLICY:%rd[0-9]+]], [[LAST]], [[NORMAL]], %p{{[0-9]+}};
// CHECK-COUNT-4: ld.global.L1::evict_last.L2::cache_hint.b64 {{.*}}, [[POLICY]];
// CHECK-NOT: ld.global.{{.*}}{{v2|v4|b64}}
// With hint-min-bytes=0 every launch is large enough: evict_last only.
// ALWAYS-LABEL: .visible .entry add_contiguous_f32_kernel(
// ALWAYS-NOT: evict_normal
// ALWAYS: createpolicy.fractional.L2::evict_last.b64 [[LAST:%rd[0-9]+]], 1.0;
// ALWAYS-NOT: evict_normal
// ALWAYS: ld.global.L1::evict_last.L2::cache_hint.b64 {{.*}}, [[LAST]];
// ALWAYS-NOT: evict_normal
// ALWAYS: st.global.v2
// With load-policy=none, plain loads through the non-coherent path.
// PLAIN-LABEL: .visible .entry add_contiguous_f32_kernel(
// PLAIN-NOT: cache_hint
// PLAIN: ld.global.nc.v2.{{b32|f32}}
// PLAIN: ld.global.nc.v2.{{b32|f32}}
// PLAIN-NOT: cache_hint
// CHECK: add.rn.f32
// CHECK-COUNT-2: st.global.v2.{{b32|f32}}
// CHECK-NOT: st.global.v2
func.func @add_contiguous_f32(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a, %b : memref<?xf32>, memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// f16 storage is computed in f32 and rounded once, when stored; 8 halves
// move per 16-byte access.
// CHECK-LABEL: .visible .entry scale_f16_kernel(
// CHECK: ld.global.L1::evict_last.L2::cache_hint.v4.b32
// CHECK: cvt.f32.f16
// CHECK: mul.rn.f32
// CHECK: add.rn.f32
// CHECK: cvt.rn.f16{{(x2)?}}.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: mul.rn.f16
// CHECK-NOT: add.rn.f16
func.func @scale_f16(%x: memref<?xf16>, %c: memref<?xf16>) {
  pointwise.map ins(%x : memref<?xf16>) outs(%c : memref<?xf16>) {
  ^bb0(%a: f16):
    %h = arith.constant 0.5 : f16
    %0 = arith.mulf %a, %h : f16
    %1 = arith.addf %0, %a : f16
    pointwise.yield %1 : f16
  }
  return
}

// -----

// A small static strided slice (general strategy): index math in 32 bits,
// static strides as immediates (the kernel takes the three pointers only).
// CHECK-LABEL: .visible .entry add_strided_slice_small_kernel(
// CHECK-NEXT: .param .u64 .ptr .align 1 add_strided_slice_small_kernel_param_0,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_strided_slice_small_kernel_param_1,
// CHECK-NEXT: .param .u64 .ptr .align 1 add_strided_slice_small_kernel_param_2
// CHECK-NEXT: )
// CHECK-NOT: mul.lo.s64
// CHECK-NOT: div.u64
// CHECK: ld.global.L1::evict_last.L2::cache_hint.b32
// CHECK-NOT: mul.lo.s64
// CHECK: st.global.b32
func.func @add_strided_slice_small(%a: memref<64x32xf32>, %b: memref<64x32xf32, strided<[64, 2]>>, %c: memref<64x32xf32>) {
  pointwise.map ins(%a, %b : memref<64x32xf32>, memref<64x32xf32, strided<[64, 2]>>) outs(%c : memref<64x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Two outputs and a scalar operand of higher precision than the storage.
// CHECK-LABEL: .visible .entry polar_kernel(
// CHECK: ld.global.L1::evict_last.L2::cache_hint.b64
// CHECK: st.global.v2.b32
// CHECK: st.global.v2.b32
func.func @polar(%r: memref<?xf32>, %t: memref<?xf32>, %x: memref<?xf32>, %y: memref<?xf32>) {
  pointwise.map ins(%r, %t : memref<?xf32>, memref<?xf32>) outs(%x, %y : memref<?xf32>, memref<?xf32>) {
  ^bb0(%rr: f32, %th: f32):
    %c = math.cos %th : f32
    %s = math.sin %th : f32
    %0 = arith.mulf %rr, %c : f32
    %1 = arith.mulf %rr, %s : f32
    pointwise.yield %0, %1 : f32, f32
  }
  return
}

// -----

// An operand transposed relative to the output: the transposed input staged
// through a padded 64x65 shared-memory tile with a barrier, so that its
// reads, along its contiguous dim, and the write are coalesced; the other
// input is read directly. Interior tiles of aligned operands move 16-byte
// vectors in global memory, with the cache hint (one tile), and the tile's
// elements one by one.
// CHECK-LABEL: .visible .entry add_transposed_large_kernel(
// CHECK: .shared .align 4 .b8 __wg_add_transposed_large_kernel_0[16640];
// CHECK-NOT: .shared
// CHECK: ld.global.L1::evict_last.L2::cache_hint.v4.b32
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: ld.global.L1::evict_last.L2::cache_hint.v4.b32
// CHECK: ld.shared.b32
// CHECK: st.global.v4.b32
// The scalar code of misaligned operands follows.
// CHECK: ld.global.L1::evict_last.L2::cache_hint.b32
// CHECK: st.global.b32
// PLAIN-LABEL: .visible .entry add_transposed_large_kernel(
// PLAIN-NOT: cache_hint
// PLAIN: ld.global.nc.v4.b32
// PLAIN: st.global.v4.b32
func.func @add_transposed_large(%a: memref<8192x8192xf32>, %b: memref<8192x8192xf32, strided<[1, 8192]>>, %c: memref<8192x8192xf32>) {
  pointwise.map ins(%a, %b : memref<8192x8192xf32>, memref<8192x8192xf32, strided<[1, 8192]>>) outs(%c : memref<8192x8192xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Floating-point remainder has no PTX instruction: the kernel calls
// libdevice's fmod (inlined), in f32 and in f64; the host code keeps none.
// CHECK-LABEL: .visible .entry fmod_f32_f64_kernel(
// CHECK-NOT: call
// CHECK: cvt.rzi.f32.f32
// CHECK-NOT: call
// CHECK: st.global.b32
// CHECK-NOT: call
// CHECK: st.global.b64
func.func @fmod_f32_f64(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf64>, %d: memref<?xf64>, %x: memref<?xf32>, %y: memref<?xf64>) {
  pointwise.map ins(%a, %b, %c, %d : memref<?xf32>, memref<?xf32>, memref<?xf64>, memref<?xf64>) outs(%x, %y : memref<?xf32>, memref<?xf64>) {
  ^bb0(%p: f32, %q: f32, %r: f64, %s: f64):
    %0 = arith.remf %p, %q : f32
    %1 = arith.remf %r, %s : f64
    pointwise.yield %0, %1 : f32, f64
  }
  return
}
