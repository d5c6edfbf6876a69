// Passes that lower maps reject a tensor map with a diagnostic that says to
// bufferize first.
// RUN: pw-opt %s --pw-tile --verify-diagnostics
// RUN: pw-opt %s --pw-lower-to-loops --verify-diagnostics

func.func @tensor_map(%a: tensor<4x1x8xf32>, %init: tensor<4x3x8xf32>) -> tensor<4x3x8xf32> {
  // expected-error @+1 {{'pointwise.map' op on tensors reaches pw-}}
  %r = pointwise.map ins(%a : tensor<4x1x8xf32>) outs(%init : tensor<4x3x8xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<4x3x8xf32>
  return %r : tensor<4x3x8xf32>
}
