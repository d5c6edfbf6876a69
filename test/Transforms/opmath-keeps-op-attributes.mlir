// Opmath computes f16/bf16 map bodies in f32 and keeps every op's attributes:
// an explicit arith.truncf keeps its rounding mode (to nearest even, the one
// the verifier allows; from f32 to bf16 it is written as the default, see
// test/Integration/CPU/bf16-explicit-rounding.mlir) and fast-math flags (its
// rounding happens where it stands, then the value goes back to f32),
// arith.extf its fast-math flags,
// and the ops computed in f32 their predicates and flags. pw-lower-to-loops
// and pw-tile share that code.
// RUN: pw-opt %s --pw-lower-to-loops | FileCheck %s
// RUN: pw-opt %s --pw-tile | FileCheck %s
// RUN: pw-opt %s --pw-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// RUN: pw-opt %s --pw-cpu-pipeline=tiled=1 | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @truncf_attributes
// CHECK: %[[H:.*]] = arith.truncf %{{.*}} fastmath<nnan> : f32 to f16
// CHECK: %[[H32:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: %[[B:.*]] = arith.truncf %{{.*}} to_nearest_even : f64 to bf16
// CHECK: %[[B32:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: arith.truncf %[[H32]] : f32 to f16
// CHECK: arith.truncf %[[B32]] : f32 to bf16
// LLVM-LABEL: llvm.func @truncf_attributes
// LLVM: llvm.fptrunc %{{.*}} {fastmath = #arith.fastmath<nnan>} : f32 to f16
func.func @truncf_attributes(%a: memref<?xf32>, %d: memref<?xf64>, %c: memref<?xf16>, %e: memref<?xbf16>) {
  pointwise.map ins(%a, %d : memref<?xf32>, memref<?xf64>) outs(%c, %e : memref<?xf16>, memref<?xbf16>) {
  ^bb0(%x: f32, %y: f64):
    %h = arith.truncf %x fastmath<nnan> : f32 to f16
    %b = arith.truncf %y to_nearest_even : f64 to bf16
    pointwise.yield %h, %b : f16, bf16
  }
  return
}

// CHECK-LABEL: func.func @flags_and_predicates
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[Y:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[SUM:.*]] = arith.addf %[[X]], %[[X]] fastmath<nnan,ninf> : f32
// CHECK: arith.extf %[[Y]] fastmath<contract> : f32 to f64
// CHECK: arith.cmpf ult, %[[SUM]], %[[X]] fastmath<nnan> : f32
// CHECK: arith.fptosi %[[SUM]] : f32 to i32
// LLVM-LABEL: llvm.func @flags_and_predicates
// LLVM: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<nnan, ninf>} : f32
// LLVM: llvm.fpext %{{.*}} {fastmath = #arith.fastmath<contract>} : f32 to f64
// LLVM: llvm.fcmp "ult" %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<nnan>} : f32
func.func @flags_and_predicates(%a: memref<?xf16>, %b: memref<?xbf16>, %c: memref<?xf64>, %p: memref<?xi1>, %j: memref<?xi32>) {
  pointwise.map ins(%a, %b : memref<?xf16>, memref<?xbf16>) outs(%c, %p, %j : memref<?xf64>, memref<?xi1>, memref<?xi32>) {
  ^bb0(%x: f16, %y: bf16):
    %s = arith.addf %x, %x fastmath<nnan,ninf> : f16
    %w = arith.extf %y fastmath<contract> : bf16 to f64
    %lt = arith.cmpf ult, %s, %x fastmath<nnan> : f16
    %k = arith.fptosi %s : f16 to i32
    pointwise.yield %w, %lt, %k : f64, i1, i32
  }
  return
}
