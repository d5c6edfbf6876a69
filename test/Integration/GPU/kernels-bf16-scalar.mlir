// A bf16 scalar argument, in a library of its own (kernels-bf16-scalar.so):
// the host code pw-compile emits for it converts the scalar through
// __truncsfbf2, a libgcc function that GCC < 13 lacks, so this library may
// not load where the one of kernels.mlir does. test_families.py reports
// that case as an expected failure naming the symbol.

!r2bf16 = memref<?x?xbf16, strided<[?, ?], offset: ?>>

// out = x * s with a bf16 scalar.
func.func @scale_bf16_scalar(%x: !r2bf16, %s: bf16, %out: !r2bf16) {
  pointwise.map ins(%x, %s : !r2bf16, bf16) outs(%out : !r2bf16) {
  ^bb0(%a: bf16, %b: bf16):
    %r = arith.mulf %a, %b : bf16
    pointwise.yield %r : bf16
  }
  return
}
