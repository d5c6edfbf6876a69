// pw-gpu-pipeline allocates no GPU memory: a tensor program whose
// bufferization needs a new buffer is rejected where it needs it.
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa" --verify-diagnostics

func.func @needs_a_temporary(%a: tensor<1024xf32>) -> tensor<1024xf32> {
  // expected-error @+1 {{bufferization allocates a 'memref<1024xf32>' here, and pw-bufferize runs with deallocate=false}}
  %e = tensor.empty() : tensor<1024xf32>
  %r = pointwise.map ins(%a : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
