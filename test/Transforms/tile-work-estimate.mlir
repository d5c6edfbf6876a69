// pw-tile records on each block loop the map's estimated instructions per
// byte moved (WorkEstimate.h), which pw-hint-global-loads compares with its
// threshold: per element, body ops (arithmetic 1, divf 8, libdevice
// functions their common-path instruction count), one conversion per f16 or
// bf16 operand, two per memref operand for its address and access; divided
// by the bytes of one element of every memref operand.
// RUN: pw-opt %s --split-input-file --pw-tile | FileCheck %s

// Nothing but the accesses: 2 x 2 / 8 bytes.
// CHECK-LABEL: func @copy_f32
// CHECK: pointwise.instructions_per_byte = 5.000000e-01 : f64
func.func @copy_f32(%a: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

// GELU with tanh in f16 storage (gelu_tanh_f16 of the benchmarks): 8
// arithmetic ops + tanh 17 + 2 conversions + 4 for the accesses = 31
// instructions over 4 bytes: above 7.25, so its loads stay plain.
// CHECK-LABEL: func @gelu_tanh_f16
// CHECK: pointwise.instructions_per_byte = 7.750000e+00 : f64
func.func @gelu_tanh_f16(%a: memref<?xf16>, %c: memref<?xf16>) {
  pointwise.map ins(%a : memref<?xf16>) outs(%c : memref<?xf16>) {
  ^bb0(%x: f16):
    %half = arith.constant 0.5 : f16
    %one = arith.constant 1.0 : f16
    %k = arith.constant 0.7978845608028654 : f16
    %c0 = arith.constant 0.044715 : f16
    %x2 = arith.mulf %x, %x : f16
    %x3 = arith.mulf %x2, %x : f16
    %t0 = arith.mulf %c0, %x3 : f16
    %t1 = arith.addf %x, %t0 : f16
    %u = arith.mulf %k, %t1 : f16
    %th = math.tanh %u : f16
    %p = arith.addf %one, %th : f16
    %h = arith.mulf %half, %x : f16
    %r = arith.mulf %h, %p : f16
    pointwise.yield %r : f16
  }
  return
}

// -----

// The same in bf16: op math keeps tanh's operand in f32, so the tanh stays
// libdevice's (pw-bf16-math-to-nvvm needs a bf16 operand): 7.75 again.
// CHECK-LABEL: func @gelu_tanh_bf16
// CHECK: pointwise.instructions_per_byte = 7.750000e+00 : f64
func.func @gelu_tanh_bf16(%a: memref<?xbf16>, %c: memref<?xbf16>) {
  pointwise.map ins(%a : memref<?xbf16>) outs(%c : memref<?xbf16>) {
  ^bb0(%x: bf16):
    %half = arith.constant 0.5 : bf16
    %one = arith.constant 1.0 : bf16
    %k = arith.constant 0.7978845608028654 : bf16
    %c0 = arith.constant 0.044715 : bf16
    %x2 = arith.mulf %x, %x : bf16
    %x3 = arith.mulf %x2, %x : bf16
    %t0 = arith.mulf %c0, %x3 : bf16
    %t1 = arith.addf %x, %t0 : bf16
    %u = arith.mulf %k, %t1 : bf16
    %th = math.tanh %u : bf16
    %p = arith.addf %one, %th : bf16
    %h = arith.mulf %half, %x : bf16
    %r = arith.mulf %h, %p : bf16
    pointwise.yield %r : bf16
  }
  return
}

// -----

// tanh of a bf16 input, stored as bf16: pw-bf16-math-to-nvvm's 7
// instructions + 2 conversions + 4 for the accesses = 13 over 4 bytes.
// CHECK-LABEL: func @tanh_bf16
// CHECK: pointwise.instructions_per_byte = 3.250000e+00 : f64
func.func @tanh_bf16(%a: memref<?xbf16>, %c: memref<?xbf16>) {
  pointwise.map ins(%a : memref<?xbf16>) outs(%c : memref<?xbf16>) {
  ^bb0(%x: bf16):
    %t = math.tanh %x : bf16
    pointwise.yield %t : bf16
  }
  return
}

// -----

// Two inputs and a division: (8 + 3 x 2) / 12 bytes; the scalar operand is
// a kernel parameter, neither accessed nor counted in the bytes, and its
// multiplication counts 1.
// CHECK-LABEL: func @divide_scaled
// CHECK: pointwise.instructions_per_byte = 1.250000e+00 : f64
func.func @divide_scaled(%a: memref<?xf32>, %b: memref<?xf32>, %s: f32, %c: memref<?xf32>) {
  pointwise.map ins(%a, %b, %s : memref<?xf32>, memref<?xf32>, f32) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %y: f32, %k: f32):
    %q = arith.divf %x, %y : f32
    %r = arith.mulf %q, %k : f32
    pointwise.yield %r : f32
  }
  return
}

// -----

// bf16 in, f32 out (add_bf16_f32_promote): extf 1 + addf 1 + 1 conversion
// + 3 x 2 accesses = 9 over 2 + 4 + 4 bytes.
// CHECK-LABEL: func @add_bf16_f32
// CHECK: pointwise.instructions_per_byte = 9.000000e-01 : f64
func.func @add_bf16_f32(%a: memref<?xbf16>, %b: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a, %b : memref<?xbf16>, memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: bf16, %y: f32):
    %e = arith.extf %x : bf16 to f32
    %r = arith.addf %e, %y : f32
    pointwise.yield %r : f32
  }
  return
}
