// A float scalar is rounded once, straight to its type. A finite value that
// rounds to infinity there is an error in every float type, however far out
// of range it is (1e400 is beyond even f64); infinity itself is accepted.

// RUN: not pw-run %s --entry f16 --arg =1e400 --arg 1 2>&1 | FileCheck %s --check-prefix=F16
// F16: pw-run: argument #0: 1e400 is out of range for f16 (it rounds to infinity)
// RUN: not pw-run %s --entry f16 --arg =65520 --arg 1 2>&1 | FileCheck %s --check-prefix=F16-HALFWAY
// F16-HALFWAY: pw-run: argument #0: 65520 is out of range for f16 (it rounds to infinity)
// RUN: not pw-run %s --entry bf16 --arg =-1e400 --arg 1 2>&1 | FileCheck %s --check-prefix=BF16
// BF16: pw-run: argument #0: -1e400 is out of range for bf16 (it rounds to infinity)
// RUN: not pw-run %s --entry f32 --arg =1e39 --arg 1 2>&1 | FileCheck %s --check-prefix=F32
// F32: pw-run: argument #0: 1e39 is out of range for f32 (it rounds to infinity)
// RUN: not pw-run %s --entry f32 --arg =1e400 --arg 1 2>&1 | FileCheck %s --check-prefix=F32-FAR
// F32-FAR: pw-run: argument #0: 1e400 is out of range for f32 (it rounds to infinity)
// RUN: not pw-run %s --entry f64 --arg =1e400 --arg 1 2>&1 | FileCheck %s --check-prefix=F64
// F64: pw-run: argument #0: 1e400 is out of range for f64 (it rounds to infinity)
// RUN: not pw-run %s --entry f64 --arg =-1e400 --arg 1 2>&1 | FileCheck %s --check-prefix=F64-NEGATIVE
// F64-NEGATIVE: pw-run: argument #0: -1e400 is out of range for f64 (it rounds to infinity)

// Infinity, the largest finite values, and underflow to zero.
// RUN: pw-run %s --entry f64 --arg =inf --arg 1 --print | FileCheck %s --check-prefix=INF
// INF: [inf]
// RUN: pw-run %s --entry f32 --arg =-inf --arg 1 --print | FileCheck %s --check-prefix=MINUS-INF
// MINUS-INF: [-inf]
// RUN: pw-run %s --entry f32 --arg =3.4028235e38 --arg 1 --print | FileCheck %s --check-prefix=F32-MAX
// F32-MAX: [3.40282347e+38]
// RUN: pw-run %s --entry f64 --arg =1e-400 --arg 1 --print | FileCheck %s --check-prefix=TINY
// TINY: [0]

// 1 + 2^-11 + 2^-60 is just above the midpoint between the f16 values 1 and
// 1 + 2^-10: it rounds up. Through double it would first lose the 2^-60 and
// then round the midpoint to even, down to 1.
// RUN: pw-run %s --entry f16 --arg =1.0004882812500000008673617379884035 --arg 1 --print | FileCheck %s --check-prefix=ONCE
// ONCE: [1.00097656]

func.func @f16(%k: f16, %c: memref<?xf16>) {
  pointwise.map ins(%k : f16) outs(%c : memref<?xf16>) {
  ^bb0(%x: f16):
    pointwise.yield %x : f16
  }
  return
}

func.func @bf16(%k: bf16, %c: memref<?xbf16>) {
  pointwise.map ins(%k : bf16) outs(%c : memref<?xbf16>) {
  ^bb0(%x: bf16):
    pointwise.yield %x : bf16
  }
  return
}

func.func @f32(%k: f32, %c: memref<?xf32>) {
  pointwise.map ins(%k : f32) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

func.func @f64(%k: f64, %c: memref<?xf64>) {
  pointwise.map ins(%k : f64) outs(%c : memref<?xf64>) {
  ^bb0(%x: f64):
    pointwise.yield %x : f64
  }
  return
}
