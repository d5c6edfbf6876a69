// The JIT exports the module's functions under names of their own, so that an
// entry named like a C library function is not what its body's libcalls bind
// to: @exp calling exp() would otherwise call itself.
// RUN: pw-run %s --entry exp --fill=iota --arg 3 --arg 3 --print --check | FileCheck %s --check-prefix=EXP
// EXP: [1, 2.71828183, 7.3890561]
// EXP: check passed
// RUN: pw-run %s --entry sinf --fill=iota --arg 2 --arg 2 --print --check | FileCheck %s --check-prefix=SINF
// SINF: [0, 0.841470957]
// SINF: check passed

func.func @exp(%a: memref<?xf64>, %c: memref<?xf64>) {
  pointwise.map ins(%a : memref<?xf64>) outs(%c : memref<?xf64>) {
  ^bb0(%x: f64):
    %0 = math.exp %x : f64
    pointwise.yield %0 : f64
  }
  return
}

func.func @sinf(%a: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32):
    %0 = math.sin %x : f32
    pointwise.yield %0 : f32
  }
  return
}
