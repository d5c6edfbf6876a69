// tanh of every bf16 number: the input is the 65,536 bit patterns (iota of
// i16), the output the bits of tanh rounded to bf16, NaN as one quiet NaN
// (0x7FC0) since NaN payloads may differ. Integers compare exactly, so the
// GPU runs of this module (test/Integration/GPU/pipeline.test and
// layouts.test, whose bf16 tanh is pw-bf16-math-to-nvvm's sequence) check
// every bf16 input bit for bit against the CPU's libm tanhf.
// RUN: pw-run %s --entry bf16_tanh --fill=iota --check | FileCheck %s
// CHECK: check passed
//
// The smallest subnormals stay themselves (tanh(x) rounds to x), also on
// hosts whose AVX512-BF16 conversion instruction flushes subnormals: the
// CPU pipeline rounds to bf16 with integer operations.
// RUN: pw-run %s --entry bf16_tanh_subnormals --fill=iota --print | FileCheck %s --check-prefix=SUBNORMAL
// SUBNORMAL: argument #1 (4@1+0 xi16):
// SUBNORMAL-NEXT: [0, 1, 2, 3]

func.func @bf16_tanh(%bits: memref<65536xi16>, %out: memref<65536xi16>) {
  pointwise.map ins(%bits : memref<65536xi16>) outs(%out : memref<65536xi16>) {
  ^bb0(%b: i16):
    %x = arith.bitcast %b : i16 to bf16
    %t = math.tanh %x : bf16
    %r = arith.bitcast %t : bf16 to i16
    %nan = arith.cmpf uno, %t, %t : bf16
    %quiet = arith.constant 0x7FC0 : i16
    %s = arith.select %nan, %quiet, %r : i16
    pointwise.yield %s : i16
  }
  return
}

func.func @bf16_tanh_subnormals(%bits: memref<4xi16>, %out: memref<4xi16>) {
  pointwise.map ins(%bits : memref<4xi16>) outs(%out : memref<4xi16>) {
  ^bb0(%b: i16):
    %x = arith.bitcast %b : i16 to bf16
    %t = math.tanh %x : bf16
    %r = arith.bitcast %t : bf16 to i16
    pointwise.yield %r : i16
  }
  return
}
