// Extra kernel families for the GPU suite (test_families.py), beside those of
// benchmarks/workloads.mlir: rank 6, and every element type a family can
// take (i1, i8, i16, i32, i64, f16, bf16, f32, f64) as memrefs and scalars
// (bf16 scalars: kernels-bf16-scalar.mlir), an in-place map, a memref
// with a static size and memrefs with static strides and offsets. Compiled by
// test/gpu-bundle/gpu-bundle.sh (pw-compile kernels.mlir -o kernels.so); not a
// lit test.

!r6f32 = memref<?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?], offset: ?>>
!r3i32 = memref<?x?x?xi32, strided<[?, ?, ?], offset: ?>>
!r2i64 = memref<?x?xi64, strided<[?, ?], offset: ?>>
!r3f64 = memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
!r3f32 = memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
!r3i1 = memref<?x?x?xi1, strided<[?, ?, ?], offset: ?>>
!r2i8 = memref<?x?xi8, strided<[?, ?], offset: ?>>
!r2i16 = memref<?x?xi16, strided<[?, ?], offset: ?>>
!r2f32 = memref<?x?xf32, strided<[?, ?], offset: ?>>
!r2f16 = memref<?x?xf16, strided<[?, ?], offset: ?>>
!r2bf16 = memref<?x?xbf16, strided<[?, ?], offset: ?>>
!s4f32 = memref<4x?xf32, strided<[?, ?], offset: ?>>
!rowsf32 = memref<?x?xf32, strided<[?, 1], offset: 2>>
!r1i8 = memref<?xi8, strided<[?], offset: ?>>

// out = x + y at rank 6.
func.func @add_f32_r6(%x: !r6f32, %y: !r6f32, %out: !r6f32) {
  pointwise.map ins(%x, %y : !r6f32, !r6f32) outs(%out : !r6f32) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    pointwise.yield %s : f32
  }
  return
}

// out = x * k + y, wrapping i32 arithmetic.
func.func @muladd_i32(%x: !r3i32, %y: !r3i32, %k: i32, %out: !r3i32) {
  pointwise.map ins(%x, %y, %k : !r3i32, !r3i32, i32) outs(%out : !r3i32) {
  ^bb0(%a: i32, %b: i32, %c: i32):
    %m = arith.muli %a, %c : i32
    %r = arith.addi %m, %b : i32
    pointwise.yield %r : i32
  }
  return
}

// out = x ** n (i32, wrapping) and y ** n (f32 base): math.ipowi and
// math.fpowi, lowered through upstream's convert-math-to-funcs.
func.func @powers_i32(%x: !r3i32, %y: !r3f32, %n: i32, %out: !r3i32,
                      %fout: !r3f32) {
  pointwise.map ins(%x, %y, %n : !r3i32, !r3f32, i32)
                outs(%out, %fout : !r3i32, !r3f32) {
  ^bb0(%a: i32, %b: f32, %k: i32):
    %p = math.ipowi %a, %k : i32
    %q = math.fpowi %b, %k : f32, i32
    pointwise.yield %p, %q : i32, f32
  }
  return
}

// out = x - y + k (i64, values beyond 32 bits).
func.func @sub_i64(%x: !r2i64, %y: !r2i64, %k: i64, %out: !r2i64) {
  pointwise.map ins(%x, %y, %k : !r2i64, !r2i64, i64) outs(%out : !r2i64) {
  ^bb0(%a: i64, %b: i64, %c: i64):
    %d = arith.subi %a, %b : i64
    %r = arith.addi %d, %c : i64
    pointwise.yield %r : i64
  }
  return
}

// out = x * s + y in f64.
func.func @fma_f64(%x: !r3f64, %y: !r3f64, %s: f64, %out: !r3f64) {
  pointwise.map ins(%x, %y, %s : !r3f64, !r3f64, f64) outs(%out : !r3f64) {
  ^bb0(%a: f64, %b: f64, %c: f64):
    %m = arith.mulf %a, %c : f64
    %r = arith.addf %m, %b : f64
    pointwise.yield %r : f64
  }
  return
}

// out = x > y, an i1 (torch.bool) output.
func.func @greater_f32(%x: !r3f32, %y: !r3f32, %out: !r3i1) {
  pointwise.map ins(%x, %y : !r3f32, !r3f32) outs(%out : !r3i1) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    pointwise.yield %c : i1
  }
  return
}

// out = c ? a : b, an i1 input.
func.func @where_f64(%c: !r3i1, %a: !r3f64, %b: !r3f64, %out: !r3f64) {
  pointwise.map ins(%c, %a, %b : !r3i1, !r3f64, !r3f64) outs(%out : !r3f64) {
  ^bb0(%p: i1, %x: f64, %y: f64):
    %r = arith.select %p, %x, %y : f64
    pointwise.yield %r : f64
  }
  return
}

// out = float(a) + float(b) for i8 and i16 inputs (signed).
func.func @widen_i8_i16(%a: !r2i8, %b: !r2i16, %out: !r2f32) {
  pointwise.map ins(%a, %b : !r2i8, !r2i16) outs(%out : !r2f32) {
  ^bb0(%x: i8, %y: i16):
    %xf = arith.sitofp %x : i8 to f32
    %yf = arith.sitofp %y : i16 to f32
    %r = arith.addf %xf, %yf : f32
    pointwise.yield %r : f32
  }
  return
}

// out = x * s, an f16 scalar.
func.func @scale_f16(%x: !r2f16, %s: f16, %out: !r2f16) {
  pointwise.map ins(%x, %s : !r2f16, f16) outs(%out : !r2f16) {
  ^bb0(%a: f16, %b: f16):
    %r = arith.mulf %a, %b : f16
    pointwise.yield %r : f16
  }
  return
}

// out = flag ? bf16(float(x) * s) : x: bf16 storage, f32 and i1 scalars.
func.func @scale_bf16(%x: !r2bf16, %s: f32, %flag: i1, %out: !r2bf16) {
  pointwise.map ins(%x, %s, %flag : !r2bf16, f32, i1) outs(%out : !r2bf16) {
  ^bb0(%a: bf16, %b: f32, %f: i1):
    %e = arith.extf %a : bf16 to f32
    %m = arith.mulf %e, %b : f32
    %t = arith.truncf %m : f32 to bf16
    %r = arith.select %f, %t, %a : bf16
    pointwise.yield %r : bf16
  }
  return
}

// a += k in place: the same argument is the map's input and output.
func.func @inc_inplace_f32(%a: !r2f32, %k: f32) {
  pointwise.map ins(%a, %k : !r2f32, f32) outs(%a : !r2f32) {
  ^bb0(%x: f32, %c: f32):
    %r = arith.addf %x, %c : f32
    pointwise.yield %r : f32
  }
  return
}

// out = x + y with a static leading size of 4.
func.func @add_static_f32(%x: !s4f32, %y: !s4f32, %out: !s4f32) {
  pointwise.map ins(%x, %y : !s4f32, !s4f32) outs(%out : !s4f32) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    pointwise.yield %s : f32
  }
  return
}

// out = x * s with declared layouts: rows of stride 1 from element 2 (any
// row pitch) into a row-major output (identity layout: strides [?, 1],
// offset 0).
func.func @scale_rows_f32(%x: !rowsf32, %s: f32, %out: memref<?x?xf32>) {
  pointwise.map ins(%x, %s : !rowsf32, f32) outs(%out : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.mulf %a, %b : f32
    pointwise.yield %r : f32
  }
  return
}

// out = x + 1 on bytes: 2^31 - 1 of them still take 32-bit indices.
func.func @inc_i8(%x: !r1i8, %out: !r1i8) {
  pointwise.map ins(%x : !r1i8) outs(%out : !r1i8) {
  ^bb0(%a: i8):
    %one = arith.constant 1 : i8
    %r = arith.addi %a, %one : i8
    pointwise.yield %r : i8
  }
  return
}
