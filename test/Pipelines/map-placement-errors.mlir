// A map inside an op the pipelines do not lower (async.execute, whose region
// must stay one block once the map's loops are branches) is a pointwise
// diagnostic before anything changes.
// RUN: pw-opt %s --pw-cpu-pipeline --verify-diagnostics
// RUN: pw-opt %s --pw-gpu-pipeline=format=isa --verify-diagnostics

func.func @in_async_execute(%a: memref<4x8xf32>, %c: memref<4x8xf32>) {
  %t = async.execute {
    // expected-error @+1 {{'pointwise.map' op inside 'async.execute': pw-}}
    pointwise.map ins(%a : memref<4x8xf32>) outs(%c : memref<4x8xf32>) {
    ^bb0(%x: f32):
      %0 = arith.negf %x : f32
      pointwise.yield %0 : f32
    }
    async.yield
  }
  async.await %t : !async.token
  return
}
