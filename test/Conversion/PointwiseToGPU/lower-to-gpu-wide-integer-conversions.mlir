// NVPTX has no library calls for conversions between floating point and
// integers wider than 64 bits, and LLVM aborts on them: pw-lower-to-gpu
// rejects them at the body op they come from. The CPU lowering supports
// them (Integration/CPU/wide-integer-conversions.mlir).
// RUN: pw-opt %s -split-input-file --pw-tile --pw-lower-to-gpu -verify-diagnostics
// RUN: not pw-opt %s -split-input-file --pw-gpu-pipeline=format=isa 2>&1 | FileCheck %s
// RUN: split-file %s %t
// RUN: not pw-compile %t/family.mlir -o %t/out.o 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not test -e %t/out.o

// CHECK: error: 'arith.fptosi' op converts between floating point and 'i128', which the GPU lowering does not support: integers converted to or from floating point must be at most 64 bits wide
// CHECK: error: 'arith.fptoui' op converts between floating point and 'i65'
// CHECK: error: 'arith.sitofp' op converts between floating point and 'i128'
// CHECK: error: 'arith.uitofp' op converts between floating point and 'i96'
// CHECK: error: 'arith.fptosi' op converts between floating point and 'i128'
// CHECK: error: 'arith.fptosi' op converts between floating point and 'i128'
// COMPILE: family.mlir:5:10: error: 'arith.fptosi' op converts between floating point and 'i128', which the GPU lowering does not support

func.func @fptosi(%a: memref<?xf32>, %c: memref<?xi64>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xi64>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'arith.fptosi' op converts between floating point and 'i128', which the GPU lowering does not support: integers converted to or from floating point must be at most 64 bits wide}}
    %w = arith.fptosi %x : f32 to i128
    %r = arith.trunci %w : i128 to i64
    pointwise.yield %r : i64
  }
  return
}

// -----

func.func @fptoui(%a: memref<?xf64>, %c: memref<?xi64>) {
  pointwise.map ins(%a : memref<?xf64>) outs(%c : memref<?xi64>) {
  ^bb0(%x: f64):
    // expected-error @+1 {{'arith.fptoui' op converts between floating point and 'i65'}}
    %w = arith.fptoui %x : f64 to i65
    %r = arith.trunci %w : i65 to i64
    pointwise.yield %r : i64
  }
  return
}

// -----

func.func @sitofp(%a: memref<?xi64>, %b: memref<?xi64>, %c: memref<?xf32>) {
  pointwise.map ins(%a, %b : memref<?xi64>, memref<?xi64>) outs(%c : memref<?xf32>) {
  ^bb0(%x: i64, %y: i64):
    %wx = arith.extsi %x : i64 to i128
    %wy = arith.extsi %y : i64 to i128
    %p = arith.muli %wx, %wy : i128
    // expected-error @+1 {{'arith.sitofp' op converts between floating point and 'i128'}}
    %r = arith.sitofp %p : i128 to f32
    pointwise.yield %r : f32
  }
  return
}

// -----

func.func @uitofp(%a: memref<?xi64>, %c: memref<?xf64>) {
  pointwise.map ins(%a : memref<?xi64>) outs(%c : memref<?xf64>) {
  ^bb0(%x: i64):
    %w = arith.extui %x : i64 to i96
    %s = arith.shli %w, %w : i96
    // expected-error @+1 {{'arith.uitofp' op converts between floating point and 'i96'}}
    %r = arith.uitofp %s : i96 to f64
    pointwise.yield %r : f64
  }
  return
}

// -----

// From f16, computed in f32: still reported at the body op.
func.func @fptosi_from_half(%a: memref<?xf16>, %c: memref<?xi64>) {
  pointwise.map ins(%a : memref<?xf16>) outs(%c : memref<?xi64>) {
  ^bb0(%x: f16):
    // expected-error @+1 {{'arith.fptosi' op converts between floating point and 'i128'}}
    %w = arith.fptosi %x : f16 to i128
    %r = arith.trunci %w : i128 to i64
    pointwise.yield %r : i64
  }
  return
}

// -----

// pw-compile reports it too, and writes nothing.
//--- family.mlir
func.func @round_trip(%a: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'arith.fptosi' op converts between floating point and 'i128'}}
    %w = arith.fptosi %x : f32 to i128
    %r = arith.sitofp %w : i128 to f32
    pointwise.yield %r : f32
  }
  return
}
