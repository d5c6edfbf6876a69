// pw-bf16-math-to-nvvm: an f32 tanh of a bf16 value, rounded back to bf16,
// becomes exp2 and reciprocal instructions; every other tanh stays.
// RUN: pw-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(pw-bf16-math-to-nvvm))' | FileCheck %s

gpu.module @kernels {
  // CHECK-LABEL: gpu.func @scalar
  // CHECK-SAME: (%[[IN:.*]]: bf16,
  gpu.func @scalar(%in: bf16, %out: memref<bf16>) kernel {
    // CHECK: %[[X:.*]] = arith.extf %[[IN]] : bf16 to f32
    // CHECK: %[[Y:.*]] = arith.mulf %[[X]], %{{.*}} : f32
    // CHECK: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[Y]]) : (f32) -> f32
    // CHECK: %[[D:.*]] = arith.addf %[[E]], %{{.*}} : f32
    // CHECK: %[[R:.*]] = nvvm.rcp.approx.ftz.f %[[D]] : f32
    // CHECK: %[[T:.*]] = math.fma %[[R]], %{{.*}}, %{{.*}} : f32
    // CHECK: %[[A:.*]] = math.absf %[[X]] : f32
    // CHECK: %[[SMALL:.*]] = arith.cmpf olt, %[[A]], %{{.*}} : f32
    // CHECK: %[[S:.*]] = arith.select %[[SMALL]], %[[X]], %[[T]] : f32
    // CHECK: arith.truncf %[[S]] : f32 to bf16
    // CHECK-NOT: math.tanh
    %x = arith.extf %in : bf16 to f32
    %t = math.tanh %x : f32
    %r = arith.truncf %t : f32 to bf16
    memref.store %r, %out[] : memref<bf16>
    gpu.return
  }

  // Canonicalization's sign moves: tanh(-x) with its result negated, and
  // an absolute value on the way to the rounding.
  // CHECK-LABEL: gpu.func @signs
  // CHECK-NOT: math.tanh
  // CHECK: gpu.return
  gpu.func @signs(%in: bf16, %out: memref<bf16>, %out2: memref<bf16>) kernel {
    %x = arith.extf %in : bf16 to f32
    %n = arith.negf %x : f32
    %t = math.tanh %n : f32
    %m = arith.negf %t : f32
    %a = math.absf %t : f32
    %r = arith.truncf %m : f32 to bf16
    %r2 = arith.truncf %a : f32 to bf16
    memref.store %r, %out[] : memref<bf16>
    memref.store %r2, %out2[] : memref<bf16>
    gpu.return
  }

  // Vector bodies: the two instructions lane by lane.
  // CHECK-LABEL: gpu.func @vector
  // CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<2xf32>
  // CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
  // CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
  // CHECK-COUNT-2: nvvm.rcp.approx.ftz.f
  // CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<2xi1>, vector<2xf32>
  // CHECK-NOT: math.tanh
  gpu.func @vector(%in: vector<2xbf16>, %out: memref<2xbf16>) kernel {
    %x = arith.extf %in : vector<2xbf16> to vector<2xf32>
    %t = math.tanh %x : vector<2xf32>
    %r = arith.truncf %t : vector<2xf32> to vector<2xbf16>
    %c0 = arith.constant 0 : index
    vector.store %r, %out[%c0] : memref<2xbf16>, vector<2xbf16>
    gpu.return
  }

  // Left as they are: f32 and f16 operands, an f32 result used unrounded,
  // a rounding to f16, and a rounding toward zero.
  // CHECK-LABEL: gpu.func @kept
  // CHECK-COUNT-5: math.tanh
  // CHECK-NOT: nvvm.rcp.approx.ftz.f
  gpu.func @kept(%f: f32, %h: f16, %b: bf16, %o32: memref<f32>,
                 %o16: memref<f16>, %ob: memref<bf16>) kernel {
    %t0 = math.tanh %f : f32
    %r0 = arith.truncf %t0 : f32 to bf16
    memref.store %r0, %ob[] : memref<bf16>
    %h32 = arith.extf %h : f16 to f32
    %t1 = math.tanh %h32 : f32
    %r1 = arith.truncf %t1 : f32 to f16
    memref.store %r1, %o16[] : memref<f16>
    %x = arith.extf %b : bf16 to f32
    %t2 = math.tanh %x : f32
    %r2 = arith.truncf %t2 : f32 to bf16
    memref.store %r2, %ob[] : memref<bf16>
    memref.store %t2, %o32[] : memref<f32>
    %t3 = math.tanh %x : f32
    %r3 = arith.truncf %t3 : f32 to f16
    memref.store %r3, %o16[] : memref<f16>
    %t4 = math.tanh %x : f32
    %r4 = arith.truncf %t4 toward_zero : f32 to bf16
    memref.store %r4, %ob[] : memref<bf16>
    gpu.return
  }
}

// -----

// A NaN test of the result (canonicalization moves it from the rounded
// value to the unrounded one) keeps the sequence; another comparison does
// not.
gpu.module @nan_tests {
  // CHECK-LABEL: gpu.func @nan_test
  // CHECK-NOT: math.tanh
  // CHECK: arith.cmpf uno
  gpu.func @nan_test(%in: bf16, %out: memref<bf16>, %flag: memref<i1>) kernel {
    %x = arith.extf %in : bf16 to f32
    %t = math.tanh %x : f32
    %r = arith.truncf %t : f32 to bf16
    %n = arith.cmpf uno, %t, %t : f32
    memref.store %r, %out[] : memref<bf16>
    memref.store %n, %flag[] : memref<i1>
    gpu.return
  }
  // CHECK-LABEL: gpu.func @ordered_compare
  // CHECK: math.tanh
  gpu.func @ordered_compare(%in: bf16, %out: memref<bf16>, %flag: memref<i1>) kernel {
    %x = arith.extf %in : bf16 to f32
    %t = math.tanh %x : f32
    %r = arith.truncf %t : f32 to bf16
    %half = arith.constant 0.5 : f32
    %n = arith.cmpf olt, %t, %half : f32
    memref.store %r, %out[] : memref<bf16>
    memref.store %n, %flag[] : memref<i1>
    gpu.return
  }
}
