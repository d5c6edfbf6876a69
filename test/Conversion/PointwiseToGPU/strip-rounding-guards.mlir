// pw-strip-rounding-guards: the negations that pw-fuse-maps writes around a
// fused producer's rounding, -extf(truncf(-v)) in op math, cancel where the
// consumer rounds to the same type; other negations and roundings stay.
// RUN: pw-opt %s --pass-pipeline='builtin.module(gpu.module(pw-strip-rounding-guards))' | FileCheck %s

gpu.module @kernels {
  // The consumer's result is rounded to bf16 (directly, or through the next
  // guard): the guard goes.
  // CHECK-LABEL: gpu.func @widened
  // CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32,
  // CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[X]] : f32
  // CHECK: %[[R:.*]] = arith.truncf %[[P]] : f32 to bf16
  // CHECK: %[[E:.*]] = arith.extf %[[R]] : bf16 to f32
  // CHECK: %[[M:.*]] = arith.mulf %[[E]], %[[Y]] : f32
  // CHECK: %[[NM:.*]] = arith.negf %[[M]] : f32
  // CHECK: arith.truncf %[[NM]] : f32 to bf16
  gpu.func @widened(%x: f32, %y: f32, %out: memref<bf16>) kernel {
    %p = arith.mulf %x, %x : f32
    %n = arith.negf %p : f32
    %r = arith.truncf %n : f32 to bf16
    %e = arith.extf %r : bf16 to f32
    %v = arith.negf %e : f32
    %m = arith.mulf %v, %y : f32
    %nm = arith.negf %m : f32
    %t = arith.truncf %nm : f32 to bf16
    memref.store %t, %out[] : memref<bf16>
    gpu.return
  }

  // The consumer goes on in f32 (op math within a body): the guard stays,
  // so that LLVM does not narrow the multiply and convert back.
  // CHECK-LABEL: gpu.func @f32_consumer
  // CHECK: arith.negf
  // CHECK: arith.truncf
  // CHECK: arith.extf
  // CHECK: arith.negf
  gpu.func @f32_consumer(%x: f32, %y: f32, %out: memref<f32>) kernel {
    %n = arith.negf %x : f32
    %r = arith.truncf %n : f32 to bf16
    %e = arith.extf %r : bf16 to f32
    %v = arith.negf %e : f32
    %m = arith.mulf %v, %y : f32
    memref.store %m, %out[] : memref<f32>
    gpu.return
  }

  // Without the widening, and on vectors.
  // CHECK-LABEL: gpu.func @narrow_vector
  // CHECK-SAME: (%[[X:.*]]: vector<4xf32>,
  // CHECK: %[[R:.*]] = arith.truncf %[[X]] : vector<4xf32> to vector<4xf16>
  // CHECK: vector.store %[[R]]
  gpu.func @narrow_vector(%x: vector<4xf32>, %out: memref<4xf16>) kernel {
    %n = arith.negf %x : vector<4xf32>
    %r = arith.truncf %n : vector<4xf32> to vector<4xf16>
    %v = arith.negf %r : vector<4xf16>
    %c0 = arith.constant 0 : index
    vector.store %v, %out[%c0] : memref<4xf16>, vector<4xf16>
    gpu.return
  }

  // Kept: a rounding toward zero (not symmetric with its guard), a
  // negation of a rounding of an unnegated value, and a negation of a
  // plain value.
  // CHECK-LABEL: gpu.func @kept
  // CHECK: arith.negf
  // CHECK-NEXT: arith.truncf %{{.*}} toward_zero : f32 to bf16
  // CHECK-NEXT: arith.negf
  // CHECK: arith.negf
  // CHECK: arith.negf
  gpu.func @kept(%x: f32, %out: memref<bf16>, %out2: memref<f32>) kernel {
    %n = arith.negf %x : f32
    %r = arith.truncf %n toward_zero : f32 to bf16
    %v = arith.negf %r : bf16
    memref.store %v, %out[] : memref<bf16>
    %plain = arith.truncf %x : f32 to bf16
    %w = arith.negf %plain : bf16
    memref.store %w, %out[] : memref<bf16>
    %z = arith.negf %x : f32
    memref.store %z, %out2[] : memref<f32>
    gpu.return
  }
}
