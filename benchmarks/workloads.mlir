// The kernel families behind the benchmark workloads of
// ../shared/bench/README.md (mirrored in benchmarks/gpu_bench.py). Every
// function is compiled per rank, with dynamic sizes, strides and offsets:
// one build serves every shape and layout up to the declared rank (callers
// pad lower ranks with leading dims of size 1).

!r4f32 = memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
!r5f32 = memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>
!r4f16 = memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>
!r4bf16 = memref<?x?x?x?xbf16, strided<[?, ?, ?, ?], offset: ?>>

// out = x + y: add_contig, bcast_row, bcast_col, add_transposed,
// nchw_plus_nhwc, strided_slice.
func.func @add_f32(%x: !r4f32, %y: !r4f32, %out: !r4f32) {
  pointwise.map ins(%x, %y : !r4f32, !r4f32) outs(%out : !r4f32) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    pointwise.yield %s : f32
  }
  return
}

// out = x * alpha + y: axpy_scalar.
func.func @axpy_f32(%x: !r4f32, %y: !r4f32, %alpha: f32, %out: !r4f32) {
  pointwise.map ins(%x, %y, %alpha : !r4f32, !r4f32, f32)
                outs(%out : !r4f32) {
  ^bb0(%a: f32, %b: f32, %s: f32):
    %m = arith.mulf %a, %s : f32
    %r = arith.addf %m, %b : f32
    pointwise.yield %r : f32
  }
  return
}

// out = x: transpose_copy (x transposed), flip (x with negative strides).
func.func @copy_f32(%x: !r4f32, %out: !r4f32) {
  pointwise.map ins(%x : !r4f32) outs(%out : !r4f32) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// GELU, tanh approximation; f16 storage, f32 math (opmath).
func.func @gelu_tanh_f16(%x: !r4f16, %out: !r4f16) {
  pointwise.map ins(%x : !r4f16) outs(%out : !r4f16) {
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

// out = float(a) + b: add_bf16_f32_promote.
func.func @add_bf16_f32(%a: !r4bf16, %b: !r4f32, %out: !r4f32) {
  pointwise.map ins(%a, %b : !r4bf16, !r4f32) outs(%out : !r4f32) {
  ^bb0(%x: bf16, %y: f32):
    %e = arith.extf %x : bf16 to f32
    %s = arith.addf %e, %y : f32
    pointwise.yield %s : f32
  }
  return
}

// out = x * s + t: rank5_sliced_scalar.
func.func @scale_shift_f32(%x: !r5f32, %s: f32, %t: f32, %out: !r5f32) {
  pointwise.map ins(%x, %s, %t : !r5f32, f32, f32) outs(%out : !r5f32) {
  ^bb0(%a: f32, %m: f32, %b: f32):
    %p = arith.mulf %a, %m : f32
    %r = arith.addf %p, %b : f32
    pointwise.yield %r : f32
  }
  return
}

// (r cos t, r sin t): polar_2out, two outputs.
func.func @polar_f32(%r: !r4f32, %t: !r4f32, %x: !r4f32, %y: !r4f32) {
  pointwise.map ins(%r, %t : !r4f32, !r4f32) outs(%x, %y : !r4f32, !r4f32) {
  ^bb0(%a: f32, %b: f32):
    %c = math.cos %b : f32
    %s = math.sin %b : f32
    %u = arith.mulf %a, %c : f32
    %v = arith.mulf %a, %s : f32
    pointwise.yield %u, %v : f32, f32
  }
  return
}
