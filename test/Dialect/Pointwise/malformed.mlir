// Malformed pointwise.map syntax, custom or generic, is reported as a
// diagnostic, never a crash.
// RUN: pw-opt %s -split-input-file -verify-diagnostics

func.func @more_inputs_than_types(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{custom op 'pointwise.map' number of operands and types do not match: got 2 operands and 1 types}}
  pointwise.map ins(%a, %c : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @outs_without_types(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{expected ':'}}
  pointwise.map ins(%a : memref<4xf32>) outs(%c) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @missing_body(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{expected '{' to begin a region}}
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>)
  return
}

// -----

func.func @outs_before_ins(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{expected '{' to begin a region}}
  pointwise.map outs(%c : memref<4xf32>) ins(%a : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @yield_values_and_types_disagree(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{custom op 'pointwise.yield' number of operands and types do not match: got 2 operands and 1 types}}
    pointwise.yield %x, %x : f32
  }
  return
}

// -----

func.func @empty_body(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op expects a non-empty block}}
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  }
  return
}

// -----

func.func @generic_form_without_segment_sizes(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op operand count (2) does not match with the total size (0) specified in attribute 'operandSegmentSizes'}}
  "pointwise.map"(%a, %c) ({
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @generic_form_wrong_segment_sizes(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op operand count (2) does not match with the total size (4) specified in attribute 'operandSegmentSizes'}}
  "pointwise.map"(%a, %c) <{operandSegmentSizes = array<i32: 1, 3>}> ({
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @generic_form_empty_region(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  "pointwise.map"(%a, %c) <{operandSegmentSizes = array<i32: 1, 1>}> ({
  }) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @generic_form_without_region(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op requires one region}}
  "pointwise.map"(%a, %c) <{operandSegmentSizes = array<i32: 1, 1>}> : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @generic_form_with_scalar_result(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op result #0 must be variadic of ranked tensor of any type values, but got 'f32'}}
  %r = "pointwise.map"(%a, %c) <{operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }) : (memref<4xf32>, memref<4xf32>) -> (f32)
  return
}
