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

// Ninth session: the work per byte without transcendental functions or
// 16-bit storage (chains of dependent FMAs in f32 math), and f32 GELU
// three times over.

// 24 dependent FMAs per element in f32 math, f16 storage.
func.func @fma24_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %k = arith.constant 0.999 : f16
    %c = arith.constant 0.001 : f16
    %t0 = math.fma %a, %k, %c : f16
    %t1 = math.fma %t0, %k, %c : f16
    %t2 = math.fma %t1, %k, %c : f16
    %t3 = math.fma %t2, %k, %c : f16
    %t4 = math.fma %t3, %k, %c : f16
    %t5 = math.fma %t4, %k, %c : f16
    %t6 = math.fma %t5, %k, %c : f16
    %t7 = math.fma %t6, %k, %c : f16
    %t8 = math.fma %t7, %k, %c : f16
    %t9 = math.fma %t8, %k, %c : f16
    %t10 = math.fma %t9, %k, %c : f16
    %t11 = math.fma %t10, %k, %c : f16
    %t12 = math.fma %t11, %k, %c : f16
    %t13 = math.fma %t12, %k, %c : f16
    %t14 = math.fma %t13, %k, %c : f16
    %t15 = math.fma %t14, %k, %c : f16
    %t16 = math.fma %t15, %k, %c : f16
    %t17 = math.fma %t16, %k, %c : f16
    %t18 = math.fma %t17, %k, %c : f16
    %t19 = math.fma %t18, %k, %c : f16
    %t20 = math.fma %t19, %k, %c : f16
    %t21 = math.fma %t20, %k, %c : f16
    %t22 = math.fma %t21, %k, %c : f16
    %t23 = math.fma %t22, %k, %c : f16
    pointwise.yield %t23 : f16
  }
  return
}

// 32 dependent FMAs per element in f32 math, f16 storage.
func.func @fma32_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %k = arith.constant 0.999 : f16
    %c = arith.constant 0.001 : f16
    %t0 = math.fma %a, %k, %c : f16
    %t1 = math.fma %t0, %k, %c : f16
    %t2 = math.fma %t1, %k, %c : f16
    %t3 = math.fma %t2, %k, %c : f16
    %t4 = math.fma %t3, %k, %c : f16
    %t5 = math.fma %t4, %k, %c : f16
    %t6 = math.fma %t5, %k, %c : f16
    %t7 = math.fma %t6, %k, %c : f16
    %t8 = math.fma %t7, %k, %c : f16
    %t9 = math.fma %t8, %k, %c : f16
    %t10 = math.fma %t9, %k, %c : f16
    %t11 = math.fma %t10, %k, %c : f16
    %t12 = math.fma %t11, %k, %c : f16
    %t13 = math.fma %t12, %k, %c : f16
    %t14 = math.fma %t13, %k, %c : f16
    %t15 = math.fma %t14, %k, %c : f16
    %t16 = math.fma %t15, %k, %c : f16
    %t17 = math.fma %t16, %k, %c : f16
    %t18 = math.fma %t17, %k, %c : f16
    %t19 = math.fma %t18, %k, %c : f16
    %t20 = math.fma %t19, %k, %c : f16
    %t21 = math.fma %t20, %k, %c : f16
    %t22 = math.fma %t21, %k, %c : f16
    %t23 = math.fma %t22, %k, %c : f16
    %t24 = math.fma %t23, %k, %c : f16
    %t25 = math.fma %t24, %k, %c : f16
    %t26 = math.fma %t25, %k, %c : f16
    %t27 = math.fma %t26, %k, %c : f16
    %t28 = math.fma %t27, %k, %c : f16
    %t29 = math.fma %t28, %k, %c : f16
    %t30 = math.fma %t29, %k, %c : f16
    %t31 = math.fma %t30, %k, %c : f16
    pointwise.yield %t31 : f16
  }
  return
}

// 40 dependent FMAs per element in f32 math, f16 storage.
func.func @fma40_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %k = arith.constant 0.999 : f16
    %c = arith.constant 0.001 : f16
    %t0 = math.fma %a, %k, %c : f16
    %t1 = math.fma %t0, %k, %c : f16
    %t2 = math.fma %t1, %k, %c : f16
    %t3 = math.fma %t2, %k, %c : f16
    %t4 = math.fma %t3, %k, %c : f16
    %t5 = math.fma %t4, %k, %c : f16
    %t6 = math.fma %t5, %k, %c : f16
    %t7 = math.fma %t6, %k, %c : f16
    %t8 = math.fma %t7, %k, %c : f16
    %t9 = math.fma %t8, %k, %c : f16
    %t10 = math.fma %t9, %k, %c : f16
    %t11 = math.fma %t10, %k, %c : f16
    %t12 = math.fma %t11, %k, %c : f16
    %t13 = math.fma %t12, %k, %c : f16
    %t14 = math.fma %t13, %k, %c : f16
    %t15 = math.fma %t14, %k, %c : f16
    %t16 = math.fma %t15, %k, %c : f16
    %t17 = math.fma %t16, %k, %c : f16
    %t18 = math.fma %t17, %k, %c : f16
    %t19 = math.fma %t18, %k, %c : f16
    %t20 = math.fma %t19, %k, %c : f16
    %t21 = math.fma %t20, %k, %c : f16
    %t22 = math.fma %t21, %k, %c : f16
    %t23 = math.fma %t22, %k, %c : f16
    %t24 = math.fma %t23, %k, %c : f16
    %t25 = math.fma %t24, %k, %c : f16
    %t26 = math.fma %t25, %k, %c : f16
    %t27 = math.fma %t26, %k, %c : f16
    %t28 = math.fma %t27, %k, %c : f16
    %t29 = math.fma %t28, %k, %c : f16
    %t30 = math.fma %t29, %k, %c : f16
    %t31 = math.fma %t30, %k, %c : f16
    %t32 = math.fma %t31, %k, %c : f16
    %t33 = math.fma %t32, %k, %c : f16
    %t34 = math.fma %t33, %k, %c : f16
    %t35 = math.fma %t34, %k, %c : f16
    %t36 = math.fma %t35, %k, %c : f16
    %t37 = math.fma %t36, %k, %c : f16
    %t38 = math.fma %t37, %k, %c : f16
    %t39 = math.fma %t38, %k, %c : f16
    pointwise.yield %t39 : f16
  }
  return
}

// 56 dependent FMAs per element, f32.
func.func @fma56_f32(%x: !v32, %out: !v32) {
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
    %t16 = math.fma %t15, %k, %c : f32
    %t17 = math.fma %t16, %k, %c : f32
    %t18 = math.fma %t17, %k, %c : f32
    %t19 = math.fma %t18, %k, %c : f32
    %t20 = math.fma %t19, %k, %c : f32
    %t21 = math.fma %t20, %k, %c : f32
    %t22 = math.fma %t21, %k, %c : f32
    %t23 = math.fma %t22, %k, %c : f32
    %t24 = math.fma %t23, %k, %c : f32
    %t25 = math.fma %t24, %k, %c : f32
    %t26 = math.fma %t25, %k, %c : f32
    %t27 = math.fma %t26, %k, %c : f32
    %t28 = math.fma %t27, %k, %c : f32
    %t29 = math.fma %t28, %k, %c : f32
    %t30 = math.fma %t29, %k, %c : f32
    %t31 = math.fma %t30, %k, %c : f32
    %t32 = math.fma %t31, %k, %c : f32
    %t33 = math.fma %t32, %k, %c : f32
    %t34 = math.fma %t33, %k, %c : f32
    %t35 = math.fma %t34, %k, %c : f32
    %t36 = math.fma %t35, %k, %c : f32
    %t37 = math.fma %t36, %k, %c : f32
    %t38 = math.fma %t37, %k, %c : f32
    %t39 = math.fma %t38, %k, %c : f32
    %t40 = math.fma %t39, %k, %c : f32
    %t41 = math.fma %t40, %k, %c : f32
    %t42 = math.fma %t41, %k, %c : f32
    %t43 = math.fma %t42, %k, %c : f32
    %t44 = math.fma %t43, %k, %c : f32
    %t45 = math.fma %t44, %k, %c : f32
    %t46 = math.fma %t45, %k, %c : f32
    %t47 = math.fma %t46, %k, %c : f32
    %t48 = math.fma %t47, %k, %c : f32
    %t49 = math.fma %t48, %k, %c : f32
    %t50 = math.fma %t49, %k, %c : f32
    %t51 = math.fma %t50, %k, %c : f32
    %t52 = math.fma %t51, %k, %c : f32
    %t53 = math.fma %t52, %k, %c : f32
    %t54 = math.fma %t53, %k, %c : f32
    %t55 = math.fma %t54, %k, %c : f32
    pointwise.yield %t55 : f32
  }
  return
}

// 72 dependent FMAs per element, f32.
func.func @fma72_f32(%x: !v32, %out: !v32) {
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
    %t16 = math.fma %t15, %k, %c : f32
    %t17 = math.fma %t16, %k, %c : f32
    %t18 = math.fma %t17, %k, %c : f32
    %t19 = math.fma %t18, %k, %c : f32
    %t20 = math.fma %t19, %k, %c : f32
    %t21 = math.fma %t20, %k, %c : f32
    %t22 = math.fma %t21, %k, %c : f32
    %t23 = math.fma %t22, %k, %c : f32
    %t24 = math.fma %t23, %k, %c : f32
    %t25 = math.fma %t24, %k, %c : f32
    %t26 = math.fma %t25, %k, %c : f32
    %t27 = math.fma %t26, %k, %c : f32
    %t28 = math.fma %t27, %k, %c : f32
    %t29 = math.fma %t28, %k, %c : f32
    %t30 = math.fma %t29, %k, %c : f32
    %t31 = math.fma %t30, %k, %c : f32
    %t32 = math.fma %t31, %k, %c : f32
    %t33 = math.fma %t32, %k, %c : f32
    %t34 = math.fma %t33, %k, %c : f32
    %t35 = math.fma %t34, %k, %c : f32
    %t36 = math.fma %t35, %k, %c : f32
    %t37 = math.fma %t36, %k, %c : f32
    %t38 = math.fma %t37, %k, %c : f32
    %t39 = math.fma %t38, %k, %c : f32
    %t40 = math.fma %t39, %k, %c : f32
    %t41 = math.fma %t40, %k, %c : f32
    %t42 = math.fma %t41, %k, %c : f32
    %t43 = math.fma %t42, %k, %c : f32
    %t44 = math.fma %t43, %k, %c : f32
    %t45 = math.fma %t44, %k, %c : f32
    %t46 = math.fma %t45, %k, %c : f32
    %t47 = math.fma %t46, %k, %c : f32
    %t48 = math.fma %t47, %k, %c : f32
    %t49 = math.fma %t48, %k, %c : f32
    %t50 = math.fma %t49, %k, %c : f32
    %t51 = math.fma %t50, %k, %c : f32
    %t52 = math.fma %t51, %k, %c : f32
    %t53 = math.fma %t52, %k, %c : f32
    %t54 = math.fma %t53, %k, %c : f32
    %t55 = math.fma %t54, %k, %c : f32
    %t56 = math.fma %t55, %k, %c : f32
    %t57 = math.fma %t56, %k, %c : f32
    %t58 = math.fma %t57, %k, %c : f32
    %t59 = math.fma %t58, %k, %c : f32
    %t60 = math.fma %t59, %k, %c : f32
    %t61 = math.fma %t60, %k, %c : f32
    %t62 = math.fma %t61, %k, %c : f32
    %t63 = math.fma %t62, %k, %c : f32
    %t64 = math.fma %t63, %k, %c : f32
    %t65 = math.fma %t64, %k, %c : f32
    %t66 = math.fma %t65, %k, %c : f32
    %t67 = math.fma %t66, %k, %c : f32
    %t68 = math.fma %t67, %k, %c : f32
    %t69 = math.fma %t68, %k, %c : f32
    %t70 = math.fma %t69, %k, %c : f32
    %t71 = math.fma %t70, %k, %c : f32
    pointwise.yield %t71 : f32
  }
  return
}

// GELU (tanh) applied three times, f32 storage: f32 with the work per
// byte of a 16-bit GELU and more.
func.func @gelu3_f32(%x: !v32, %out: !v32) {
  pointwise.map ins(%x : !v32) outs(%out : !v32) {
  ^bb0(%a: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k = arith.constant 0.7978845608028654 : f32
    %c = arith.constant 0.044715 : f32
    %g0_a2 = arith.mulf %a, %a : f32
    %g0_a3 = arith.mulf %g0_a2, %a : f32
    %g0_t0 = arith.mulf %c, %g0_a3 : f32
    %g0_t1 = arith.addf %a, %g0_t0 : f32
    %g0_u = arith.mulf %k, %g0_t1 : f32
    %g0_th = math.tanh %g0_u : f32
    %g0_p = arith.addf %one, %g0_th : f32
    %g0_h = arith.mulf %half, %a : f32
    %g0_r = arith.mulf %g0_h, %g0_p : f32
    %g1_a2 = arith.mulf %g0_r, %g0_r : f32
    %g1_a3 = arith.mulf %g1_a2, %g0_r : f32
    %g1_t0 = arith.mulf %c, %g1_a3 : f32
    %g1_t1 = arith.addf %g0_r, %g1_t0 : f32
    %g1_u = arith.mulf %k, %g1_t1 : f32
    %g1_th = math.tanh %g1_u : f32
    %g1_p = arith.addf %one, %g1_th : f32
    %g1_h = arith.mulf %half, %g0_r : f32
    %g1_r = arith.mulf %g1_h, %g1_p : f32
    %g2_a2 = arith.mulf %g1_r, %g1_r : f32
    %g2_a3 = arith.mulf %g2_a2, %g1_r : f32
    %g2_t0 = arith.mulf %c, %g2_a3 : f32
    %g2_t1 = arith.addf %g1_r, %g2_t0 : f32
    %g2_u = arith.mulf %k, %g2_t1 : f32
    %g2_th = math.tanh %g2_u : f32
    %g2_p = arith.addf %one, %g2_th : f32
    %g2_h = arith.mulf %half, %g1_r : f32
    %g2_r = arith.mulf %g2_h, %g2_p : f32
    pointwise.yield %g2_r : f32
  }
  return
}

// Ninth session, held out: kernels written after the threshold of
// pw-hint-global-loads (7.25 estimated instructions per byte) was set,
// to test its predictions. Estimates: sigmoid_f16 7.0, quick_gelu_f16
// 7.0, fma20_f16 6.5, gelu_erf_f32 4.1 (hinted: predicted to gain);
// mish_f32 7.75, log_f16 8.5, fma64_f32 8.5, softplus_f16 11.5 (plain
// loads: the hint predicted to lose).

// 1 / (1 + exp(-x)), f16 storage.
func.func @sigmoid_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %one = arith.constant 1.0 : f16
    %n = arith.negf %a : f16
    %e = math.exp %n : f16
    %d = arith.addf %one, %e : f16
    %r = arith.divf %one, %d : f16
    pointwise.yield %r : f16
  }
  return
}

// 20 dependent FMAs per element in f32 math, f16 storage.
func.func @fma20_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %k = arith.constant 0.999 : f16
    %c = arith.constant 0.001 : f16
    %t0 = math.fma %a, %k, %c : f16
    %t1 = math.fma %t0, %k, %c : f16
    %t2 = math.fma %t1, %k, %c : f16
    %t3 = math.fma %t2, %k, %c : f16
    %t4 = math.fma %t3, %k, %c : f16
    %t5 = math.fma %t4, %k, %c : f16
    %t6 = math.fma %t5, %k, %c : f16
    %t7 = math.fma %t6, %k, %c : f16
    %t8 = math.fma %t7, %k, %c : f16
    %t9 = math.fma %t8, %k, %c : f16
    %t10 = math.fma %t9, %k, %c : f16
    %t11 = math.fma %t10, %k, %c : f16
    %t12 = math.fma %t11, %k, %c : f16
    %t13 = math.fma %t12, %k, %c : f16
    %t14 = math.fma %t13, %k, %c : f16
    %t15 = math.fma %t14, %k, %c : f16
    %t16 = math.fma %t15, %k, %c : f16
    %t17 = math.fma %t16, %k, %c : f16
    %t18 = math.fma %t17, %k, %c : f16
    %t19 = math.fma %t18, %k, %c : f16
    pointwise.yield %t19 : f16
  }
  return
}

// GELU with erf in f32 storage.
func.func @gelu_erf_f32(%x: !v32, %out: !v32) {
  pointwise.map ins(%x : !v32) outs(%out : !v32) {
  ^bb0(%a: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k = arith.constant 0.70710678118654752 : f32
    %u = arith.mulf %a, %k : f32
    %e = math.erf %u : f32
    %p = arith.addf %one, %e : f32
    %h = arith.mulf %half, %a : f32
    %r = arith.mulf %h, %p : f32
    pointwise.yield %r : f32
  }
  return
}

// x * sigmoid(1.702 x), f16 storage.
func.func @quick_gelu_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %one = arith.constant 1.0 : f16
    %k = arith.constant -1.702 : f16
    %n = arith.mulf %a, %k : f16
    %e = math.exp %n : f16
    %d = arith.addf %one, %e : f16
    %r = arith.divf %a, %d : f16
    pointwise.yield %r : f16
  }
  return
}

// x * tanh(log(1 + exp(x))), f32 storage.
func.func @mish_f32(%x: !v32, %out: !v32) {
  pointwise.map ins(%x : !v32) outs(%out : !v32) {
  ^bb0(%a: f32):
    %one = arith.constant 1.0 : f32
    %e = math.exp %a : f32
    %s = arith.addf %one, %e : f32
    %l = math.log %s : f32
    %t = math.tanh %l : f32
    %r = arith.mulf %a, %t : f32
    pointwise.yield %r : f32
  }
  return
}

// Natural logarithm of |x|, f16 storage.
func.func @log_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %m = math.absf %a : f16
    %r = math.log %m : f16
    pointwise.yield %r : f16
  }
  return
}

// 64 dependent FMAs per element, f32.
func.func @fma64_f32(%x: !v32, %out: !v32) {
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
    %t16 = math.fma %t15, %k, %c : f32
    %t17 = math.fma %t16, %k, %c : f32
    %t18 = math.fma %t17, %k, %c : f32
    %t19 = math.fma %t18, %k, %c : f32
    %t20 = math.fma %t19, %k, %c : f32
    %t21 = math.fma %t20, %k, %c : f32
    %t22 = math.fma %t21, %k, %c : f32
    %t23 = math.fma %t22, %k, %c : f32
    %t24 = math.fma %t23, %k, %c : f32
    %t25 = math.fma %t24, %k, %c : f32
    %t26 = math.fma %t25, %k, %c : f32
    %t27 = math.fma %t26, %k, %c : f32
    %t28 = math.fma %t27, %k, %c : f32
    %t29 = math.fma %t28, %k, %c : f32
    %t30 = math.fma %t29, %k, %c : f32
    %t31 = math.fma %t30, %k, %c : f32
    %t32 = math.fma %t31, %k, %c : f32
    %t33 = math.fma %t32, %k, %c : f32
    %t34 = math.fma %t33, %k, %c : f32
    %t35 = math.fma %t34, %k, %c : f32
    %t36 = math.fma %t35, %k, %c : f32
    %t37 = math.fma %t36, %k, %c : f32
    %t38 = math.fma %t37, %k, %c : f32
    %t39 = math.fma %t38, %k, %c : f32
    %t40 = math.fma %t39, %k, %c : f32
    %t41 = math.fma %t40, %k, %c : f32
    %t42 = math.fma %t41, %k, %c : f32
    %t43 = math.fma %t42, %k, %c : f32
    %t44 = math.fma %t43, %k, %c : f32
    %t45 = math.fma %t44, %k, %c : f32
    %t46 = math.fma %t45, %k, %c : f32
    %t47 = math.fma %t46, %k, %c : f32
    %t48 = math.fma %t47, %k, %c : f32
    %t49 = math.fma %t48, %k, %c : f32
    %t50 = math.fma %t49, %k, %c : f32
    %t51 = math.fma %t50, %k, %c : f32
    %t52 = math.fma %t51, %k, %c : f32
    %t53 = math.fma %t52, %k, %c : f32
    %t54 = math.fma %t53, %k, %c : f32
    %t55 = math.fma %t54, %k, %c : f32
    %t56 = math.fma %t55, %k, %c : f32
    %t57 = math.fma %t56, %k, %c : f32
    %t58 = math.fma %t57, %k, %c : f32
    %t59 = math.fma %t58, %k, %c : f32
    %t60 = math.fma %t59, %k, %c : f32
    %t61 = math.fma %t60, %k, %c : f32
    %t62 = math.fma %t61, %k, %c : f32
    %t63 = math.fma %t62, %k, %c : f32
    pointwise.yield %t63 : f32
  }
  return
}

// log(1 + exp(x)), f16 storage.
func.func @softplus_f16(%x: !v16, %out: !v16) {
  pointwise.map ins(%x : !v16) outs(%out : !v16) {
  ^bb0(%a: f16):
    %one = arith.constant 1.0 : f16
    %e = math.exp %a : f16
    %s = arith.addf %one, %e : f16
    %r = math.log %s : f16
    pointwise.yield %r : f16
  }
  return
}
