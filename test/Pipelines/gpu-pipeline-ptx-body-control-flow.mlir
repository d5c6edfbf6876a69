// Map bodies with structured control flow, and with integers wider than 64
// bits outside conversions to or from floating point, compile to PTX that
// ptxas accepts.
// RUN: pw-opt %s --pw-gpu-pipeline=format=isa | %python %lit_support/extract-ptx.py --ptxas %ptxas --arch sm_90 | FileCheck %s
// REQUIRES: ptxas

// CHECK-LABEL: .visible .entry negate_unless_kernel(
func.func @negate_unless(%a: memref<?xf32>, %keep: i1, %c: memref<?xf32>) {
  pointwise.map ins(%a, %keep : memref<?xf32>, i1) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %k: i1):
    %r = scf.if %k -> f32 {
      scf.yield %x : f32
    } else {
      %n = arith.negf %x : f32
      scf.yield %n : f32
    }
    pointwise.yield %r : f32
  }
  return
}

// f16 in the loop is computed in f32.
// CHECK-LABEL: .visible .entry half_power_kernel(
// CHECK: cvt.f32.f16
// CHECK: mul.rn.f32
// CHECK: cvt.rn.f16.f32
func.func @half_power(%a: memref<?xf16>, %n: index, %c: memref<?xf16>) {
  pointwise.map ins(%a, %n : memref<?xf16>, index) outs(%c : memref<?xf16>) {
  ^bb0(%x: f16, %k: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f16
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %one) -> f16 {
      %m = arith.mulf %acc, %x : f16
      scf.yield %m : f16
    }
    pointwise.yield %r : f16
  }
  return
}

// CHECK-LABEL: .visible .entry halve_below_one_kernel(
func.func @halve_below_one(%a: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %r = scf.while (%v = %x) : (f32) -> f32 {
      %big = arith.cmpf ogt, %v, %one : f32
      scf.condition(%big) %v : f32
    } do {
    ^bb0(%w: f32):
      %h = arith.mulf %w, %half : f32
      scf.yield %h : f32
    }
    pointwise.yield %r : f32
  }
  return
}

// i128 multiplication and division compile (NVPTX expands the division);
// only conversions to and from floating point are out of reach.
// CHECK-LABEL: .visible .entry wide_quotient_kernel(
func.func @wide_quotient(%a: memref<?xi64>, %b: memref<?xi64>, %c: memref<?xf64>) {
  pointwise.map ins(%a, %b : memref<?xi64>, memref<?xi64>) outs(%c : memref<?xf64>) {
  ^bb0(%x: i64, %y: i64):
    %wx = arith.extsi %x : i64 to i128
    %wy = arith.extsi %y : i64 to i128
    %p = arith.muli %wx, %wx : i128
    %q = arith.divsi %p, %wy : i128
    %n = arith.trunci %q : i128 to i64
    %r = arith.sitofp %n : i64 to f64
    pointwise.yield %r : f64
  }
  return
}
