// What pw-convert-linalg-to-pointwise leaves as it is: reductions, bodies
// with linalg.index or tensor.extract, element types the dialect lacks,
// indexing maps that are not projected permutations, outputs with different
// permutations, and tensor ops with a transposed input (no tensor view
// transposes).
// RUN: pw-opt %s --split-input-file --pw-convert-linalg-to-pointwise | FileCheck %s

// CHECK-LABEL: func @reduction
// CHECK: linalg.generic
// CHECK-NOT: pointwise.map
func.func @reduction(%a: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.addf %x, %o : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @uses_linalg_index
// CHECK: linalg.generic
// CHECK-NOT: pointwise.map
func.func @uses_linalg_index(%init: tensor<8xi64>) -> tensor<8xi64> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%init : tensor<8xi64>) {
  ^bb0(%o: i64):
    %i = linalg.index 0 : index
    %0 = arith.index_cast %i : index to i64
    linalg.yield %0 : i64
  } -> tensor<8xi64>
  return %r : tensor<8xi64>
}

// -----

// CHECK-LABEL: func @tensor_extract_in_body
// CHECK: linalg.generic
// CHECK: tensor.extract
// CHECK-NOT: pointwise.map
func.func @tensor_extract_in_body(%a: tensor<8xf32>, %table: tensor<16xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c3 = arith.constant 3 : index
    %t = tensor.extract %table[%c3] : tensor<16xf32>
    %0 = arith.addf %x, %t : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// CHECK-LABEL: func @unsupported_element_types
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: pointwise.map
func.func @unsupported_element_types(%a: tensor<8xf8E4M3FN>, %i: tensor<8xf8E4M3FN>, %c: tensor<8xcomplex<f32>>, %j: tensor<8xcomplex<f32>>) -> (tensor<8xf8E4M3FN>, tensor<8xcomplex<f32>>) {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf8E4M3FN>) outs(%i : tensor<8xf8E4M3FN>) {
  ^bb0(%x: f8E4M3FN, %o: f8E4M3FN):
    linalg.yield %x : f8E4M3FN
  } -> tensor<8xf8E4M3FN>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%c : tensor<8xcomplex<f32>>) outs(%j : tensor<8xcomplex<f32>>) {
  ^bb0(%x: complex<f32>, %o: complex<f32>):
    linalg.yield %x : complex<f32>
  } -> tensor<8xcomplex<f32>>
  return %r, %s : tensor<8xf8E4M3FN>, tensor<8xcomplex<f32>>
}

// -----

// CHECK-LABEL: func @not_a_projected_permutation
// CHECK: linalg.generic
// CHECK-NOT: pointwise.map
func.func @not_a_projected_permutation(%a: memref<16xf32>, %c: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 * 2)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : memref<16xf32>) outs(%c : memref<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// CHECK-LABEL: func @outputs_in_two_orders
// CHECK: linalg.generic
// CHECK-NOT: pointwise.map
func.func @outputs_in_two_orders(%a: memref<4x4xf32>, %c: memref<4x4xf32>, %d: memref<4x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%c, %d : memref<4x4xf32>, memref<4x4xf32>) {
  ^bb0(%x: f32, %o: f32, %p: f32):
    linalg.yield %x, %x : f32, f32
  }
  return
}

// -----

// CHECK-LABEL: func @transposed_tensor_input
// CHECK: linalg.transpose
// CHECK-NOT: pointwise.map
func.func @transposed_tensor_input(%a: tensor<8x4xf32>, %init: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.transpose ins(%a : tensor<8x4xf32>) outs(%init : tensor<4x8xf32>) permutation = [1, 0]
  return %r : tensor<4x8xf32>
}

// -----

// A body op with side effects stays in linalg too.
// CHECK-LABEL: func @side_effect_in_body
// CHECK: linalg.generic
// CHECK-NOT: pointwise.map
func.func @side_effect_in_body(%a: memref<8xf32>, %c: memref<8xf32>, %log: memref<1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : memref<8xf32>) outs(%c : memref<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c0 = arith.constant 0 : index
    memref.store %x, %log[%c0] : memref<1xf32>
    linalg.yield %x : f32
  }
  return
}
