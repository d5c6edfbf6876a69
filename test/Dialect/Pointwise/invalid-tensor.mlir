// The verifier rules of the tensor form of pointwise.map: results match the
// destinations, and the memref form's rules hold for tensors too.
// RUN: pw-opt %s -split-input-file -verify-diagnostics

func.func @tensor_map_without_results(%a: tensor<4xf32>, %init: tensor<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op has 0 results, but a map on tensors has one per output (1)}}
  pointwise.map ins(%a : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @result_is_not_its_destination_type(%a: tensor<4xf32>, %init: tensor<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op result #0 has type 'tensor<?xf32>', but its destination, output #0, has type 'tensor<4xf32>'}}
  %r = pointwise.map ins(%a : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  } -> tensor<?xf32>
  return
}

// -----

func.func @memref_map_with_results(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op has 1 results, but a map on memrefs writes its outputs and has none}}
  %r = pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  } -> tensor<4xf32>
  return
}

// -----

func.func @scalar_inputs_tensor_outputs_need_results(%s: f32, %init: tensor<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op has 0 results, but a map on tensors has one per output (1)}}
  pointwise.map ins(%s : f32) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @unranked_tensor_input(%a: tensor<*xf32>, %init: tensor<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op input #0 must be a memref, a ranked tensor or a scalar of type index, i1, i8, i16, i32, i64, f16, bf16, f32, f64; got 'tensor<*xf32>'}}
  %r = pointwise.map ins(%a : tensor<*xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  } -> tensor<4xf32>
  return
}

// -----

func.func @tensor_element_type(%a: tensor<4xi4>, %init: tensor<4xi4>) {
  // expected-error @+1 {{'pointwise.map' op input #0 has unsupported element type 'i4'; expected one of i1, i8, i16, i32, i64, f16, bf16, f32, f64}}
  %r = pointwise.map ins(%a : tensor<4xi4>) outs(%init : tensor<4xi4>) {
  ^bb0(%x: i4):
    pointwise.yield %x : i4
  } -> tensor<4xi4>
  return
}

// -----

func.func @tensor_broadcast(%a: tensor<3x4xf32>, %init: tensor<3x5xf32>) {
  // expected-error @+1 {{'pointwise.map' op input #0 dim 1 has size 4, which does not broadcast to size 5 of iteration dim 1}}
  %r = pointwise.map ins(%a : tensor<3x4xf32>) outs(%init : tensor<3x5xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  } -> tensor<3x5xf32>
  return
}

// -----

func.func @tensor_outputs_of_two_shapes(%a: tensor<4xf32>, %i: tensor<4xf32>, %j: tensor<5xf32>) {
  // expected-error @+1 {{'pointwise.map' op output #1 of type 'tensor<5xf32>' does not have the shape of output #0 of type 'tensor<4xf32>'}}
  %r:2 = pointwise.map ins(%a : tensor<4xf32>) outs(%i, %j : tensor<4xf32>, tensor<5xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x, %x : f32, f32
  } -> tensor<4xf32>, tensor<5xf32>
  return
}

// -----

func.func @yield_type_of_a_tensor_output(%a: tensor<4xf32>, %init: tensor<4xf16>) {
  %r = pointwise.map ins(%a : tensor<4xf32>) outs(%init : tensor<4xf16>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'pointwise.yield' op value #0 has type 'f32', but output #0 has element type 'f16'}}
    pointwise.yield %x : f32
  } -> tensor<4xf16>
  return
}
