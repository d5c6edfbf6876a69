// f64 to bf16 truncation lowers to compiler-rt's __truncdfbf2 on the CPU,
// which Debian 12's libgcc lacks; pw-run's JIT provides it, correctly
// rounded (to nearest even; a detour through f32 would round twice).
// 1 + 2^-8 + 2^-30 is just above the midpoint between two bf16 values:
// direct rounding goes up to 1.0078125, rounding through f32 first would
// land on the midpoint and go down to 1.
// RUN: pw-run %s --arg 1 --arg =1.0039062509313226 --print --check | FileCheck %s
// CHECK: 1.0078125
// CHECK: check passed
func.func @round(%c: memref<?xbf16>, %x: f64) {
  pointwise.map ins(%x : f64) outs(%c : memref<?xbf16>) {
  ^bb0(%v: f64):
    %0 = arith.truncf %v : f64 to bf16
    pointwise.yield %0 : bf16
  }
  return
}
