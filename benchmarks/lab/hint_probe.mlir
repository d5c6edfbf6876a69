// Rank-1 kernels that separate what the load hint of pw-hint-global-loads
// depends on (benchmarks/hint_probe.py): element type (f16 or f32), work
// per element (none, a few FMAs, a chain of FMAs, MUFU transcendentals).

!v16 = memref<?xf16, strided<[?], offset: ?>>
!v32 = memref<?xf32, strided<[?], offset: ?>>

// No arithmetic: f16 in, f16 out.
func.func @copy_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    pointwise.yield %a : f16
  }
  return
}

// One FMA per element in f32, f16 storage.
func.func @scale_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %k = arith.constant 3.0 : f16
    %c = arith.constant 1.0 : f16
    %m = arith.mulf %a, %k : f16
    %r = arith.addf %m, %c : f16
    pointwise.yield %r : f16
  }
  return
}

// Sixteen dependent FMAs per element (no transcendental), f32.
func.func @fma16_f32(%x: !v32, %out: !v32) {
  pointwise.map ins(%x : !v32) outs(%out : !v32) {
  ^bb0(%a: f32):
    %k = arith.constant 0.999 : f32
    %c = arith.constant 0.001 : f32
    %t0 = math.fma %a, %k, %c : f32
    %t1 = math.fma %t0, %k, %c : f32
    %t2 = math.fma %t1, %k, %c : f32
    %t3 = math.fma %t2, %k, %c : f32
    %t4 = math.fma %t3, %k, %c : f32
    %t5 = math.fma %t4, %k, %c : f32
    %t6 = math.fma %t5, %k, %c : f32
    %t7 = math.fma %t6, %k, %c : f32
    %t8 = math.fma %t7, %k, %c : f32
    %t9 = math.fma %t8, %k, %c : f32
    %t10 = math.fma %t9, %k, %c : f32
    %t11 = math.fma %t10, %k, %c : f32
    %t12 = math.fma %t11, %k, %c : f32
    %t13 = math.fma %t12, %k, %c : f32
    %t14 = math.fma %t13, %k, %c : f32
    %t15 = math.fma %t14, %k, %c : f32
    pointwise.yield %t15 : f32
  }
  return
}

// GELU (tanh approximation) in f32 storage: gelu_tanh_f16's arithmetic
// with half the elements per byte.
func.func @gelu_tanh_f32(%x: !v32, %out: !v32) {
  pointwise.map ins(%x : !v32) outs(%out : !v32) {
  ^bb0(%a: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k = arith.constant 0.7978845608028654 : f32
    %c = arith.constant 0.044715 : f32
    %a2 = arith.mulf %a, %a : f32
    %a3 = arith.mulf %a2, %a : f32
    %t0 = arith.mulf %c, %a3 : f32
    %t1 = arith.addf %a, %t0 : f32
    %u = arith.mulf %k, %t1 : f32
    %th = math.tanh %u : f32
    %p = arith.addf %one, %th : f32
    %h = arith.mulf %half, %a : f32
    %r = arith.mulf %h, %p : f32
    pointwise.yield %r : f32
  }
  return
}

// The same GELU in f16 storage (as benchmarks/workloads.mlir, rank 1).
func.func @gelu_tanh_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %half = arith.constant 0.5 : f16
    %one = arith.constant 1.0 : f16
    %k = arith.constant 0.7978845608028654 : f16
    %c = arith.constant 0.044715 : f16
    %a2 = arith.mulf %a, %a : f16
    %a3 = arith.mulf %a2, %a : f16
    %t0 = arith.mulf %c, %a3 : f16
    %t1 = arith.addf %a, %t0 : f16
    %u = arith.mulf %k, %t1 : f16
    %th = math.tanh %u : f16
    %p = arith.addf %one, %th : f16
    %h = arith.mulf %half, %a : f16
    %r = arith.mulf %h, %p : f16
    pointwise.yield %r : f16
  }
  return
}

// Sine in f16 storage: a MUFU op with range reduction.
func.func @sin_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %s = math.sin %a : f16
    pointwise.yield %s : f16
  }
  return
}

// One exponential per 4 bytes of input (f32).
func.func @exp_f32(%x: !v32, %out: !v32) {
  pointwise.map ins(%x : !v32) outs(%out : !v32) {
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    pointwise.yield %e : f32
  }
  return
}

// One exponential per 2 bytes of input (f16).
func.func @exp_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %e = math.exp %a : f16
    pointwise.yield %e : f16
  }
  return
}

// Two transcendental functions per 4 bytes of input (f32).
func.func @sincos_f32(%x: !v32, %out: !v32) {
  pointwise.map ins(%x : !v32) outs(%out : !v32) {
  ^bb0(%a: f32):
    %s = math.sin %a : f32
    %c = math.cos %a : f32
    %r = arith.addf %s, %c : f32
    pointwise.yield %r : f32
  }
  return
}

// One square root per 2 bytes of input (f16).
func.func @sqrt_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %e = math.sqrt %a : f16
    pointwise.yield %e : f16
  }
  return
}

!b16 = memref<?xbf16, strided<[?], offset: ?>>

// tanh alone in f16 storage.
func.func @tanh_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %t = math.tanh %a : f16
    pointwise.yield %t : f16
  }
  return
}

// SiLU, x / (1 + exp(-x)), in f16 storage.
func.func @silu_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %one, %e : f16
    %r = arith.divf %a, %d : f16
    pointwise.yield %r : f16
  }
  return
}

// The same SiLU in f32 storage.
func.func @silu_f32(%x: !v32, %out: !v32) {
  pointwise.map ins(%x : !v32) outs(%out : !v32) {
  ^bb0(%a: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %a : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %r = arith.divf %a, %d : f32
    pointwise.yield %r : f32
  }
  return
}

// GELU with erf, x / 2 * (1 + erf(x / sqrt 2)), in f16 storage.
func.func @gelu_erf_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %half = arith.constant 0.5 : f16
    %one = arith.constant 1.0 : f16
    %k = arith.constant 0.70710678118654752 : f16
    %u = arith.mulf %a, %k : f16
    %e = math.erf %u : f16
    %p = arith.addf %one, %e : f16
    %h = arith.mulf %half, %a : f16
    %r = arith.mulf %h, %p : f16
    pointwise.yield %r : f16
  }
  return
}

// gelu_tanh in bf16 storage.
func.func @gelu_tanh_bf16(%x: !b16, %out: !b16) {
  pointwise.map ins(%x : !b16) outs(%out : !b16) {
  ^bb0(%a: bf16):
    %half = arith.constant 0.5 : bf16
    %one = arith.constant 1.0 : bf16
    %k = arith.constant 0.7978845608028654 : bf16
    %c = arith.constant 0.044715 : bf16
    %a2 = arith.mulf %a, %a : bf16
    %a3 = arith.mulf %a2, %a : bf16
    %t0 = arith.mulf %c, %a3 : bf16
    %t1 = arith.addf %a, %t0 : bf16
    %u = arith.mulf %k, %t1 : bf16
    %th = math.tanh %u : bf16
    %p = arith.addf %one, %th : bf16
    %h = arith.mulf %half, %a : bf16
    %r = arith.mulf %h, %p : bf16
    pointwise.yield %r : bf16
  }
  return
}
