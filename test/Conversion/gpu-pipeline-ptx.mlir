// pw-gpu-pipeline produces PTX that ptxas accepts for sm_90, with the
// accesses each strategy promises.
// RUN: pw-opt %s --split-input-file --pw-gpu-pipeline=format=isa | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s
// REQUIRES: ptxas

// Contiguous f32: 16-byte vector loads through the non-coherent path and
// 16-byte stores, four of each per thread and operand, before any compute.
// CHECK-LABEL: .visible .entry add_contiguous_f32_kernel(
// CHECK-COUNT-4: ld.global.nc.v4.{{b32|f32}}
// CHECK-NOT: st.global
// CHECK-COUNT-4: ld.global.nc.v4.{{b32|f32}}
// CHECK: add.rn.f32
// CHECK: st.global.v4.{{b32|f32}}
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
// CHECK: ld.global.nc.v4.b32
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

// A small static transposed layout: index math in 32 bits, no 64-bit
// division.
// CHECK-LABEL: .visible .entry add_transposed_small_kernel(
// CHECK-NOT: div.u64
// CHECK-NOT: rem.u64
// CHECK: {{div|rem}}.u32
// CHECK: ld.global.nc.b32
// CHECK: st.global.b32
func.func @add_transposed_small(%a: memref<64x32xf32>, %b: memref<64x32xf32, strided<[1, 64]>>, %c: memref<64x32xf32>) {
  pointwise.map ins(%a, %b : memref<64x32xf32>, memref<64x32xf32, strided<[1, 64]>>) outs(%c : memref<64x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Two outputs and a scalar operand of higher precision than the storage.
// CHECK-LABEL: .visible .entry polar_kernel(
// CHECK: ld.global.nc.v4.b32
// CHECK: st.global.v4.b32
// CHECK: st.global.v4.b32
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
