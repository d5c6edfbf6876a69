// Ops the conversion leaves as they are: each stays linalg and no map
// appears.
// RUN: pw-opt %s --pw-convert-linalg-to-pointwise | FileCheck %s
// RUN: pw-opt %s --pw-convert-linalg-to-pointwise | FileCheck %s --check-prefix=NO-MAP
// NO-MAP-NOT: pointwise.map

// CHECK-LABEL: func @reduction
// CHECK: linalg.generic
func.func @reduction(%a: memref<4x8xf32>, %c: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x8xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %0 = arith.addf %x, %acc : f32
    linalg.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @named_reduce
// CHECK: linalg.reduce
func.func @named_reduce(%a: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.reduce ins(%a : tensor<4x8xf32>) outs(%init : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %0 = arith.addf %x, %acc : f32
      linalg.yield %0 : f32
    }
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func @matmul
// CHECK: linalg.matmul
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x2xf32>, %c: memref<4x2xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>) outs(%c : memref<4x2xf32>)
  return
}

// CHECK-LABEL: func @index_in_body
// CHECK: linalg.generic
// CHECK: linalg.index 1
func.func @index_in_body(%c: memref<4x8xindex>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<4x8xindex>) {
  ^bb0(%out: index):
    %0 = linalg.index 1 : index
    linalg.yield %0 : index
  }
  return
}

// CHECK-LABEL: func @tensor_extract_in_body
// CHECK: linalg.generic
// CHECK: tensor.extract
func.func @tensor_extract_in_body(%table: tensor<16xf32>, %i: tensor<4xindex>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%i : tensor<4xindex>) outs(%init : tensor<4xf32>) {
  ^bb0(%j: index, %out: f32):
    %0 = tensor.extract %table[%j] : tensor<16xf32>
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// A body with side effects (a load of a captured buffer).
// CHECK-LABEL: func @load_in_body
// CHECK: linalg.generic
// CHECK: memref.load
func.func @load_in_body(%table: memref<16xf32>, %i: memref<4xindex>, %c: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%i : memref<4xindex>) outs(%c : memref<4xf32>) {
  ^bb0(%j: index, %out: f32):
    %0 = memref.load %table[%j] : memref<16xf32>
    linalg.yield %0 : f32
  }
  return
}

// A call, which may have side effects.
// CHECK-LABEL: func @call_in_body
// CHECK: linalg.generic
// CHECK: func.call @opaque
func.func private @opaque(f32) -> f32
func.func @call_in_body(%a: memref<4xf32>, %c: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %0 = func.call @opaque(%x) : (f32) -> f32
    linalg.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @f8_elements
// CHECK: linalg.generic
func.func @f8_elements(%a: memref<4xf8E4M3FN>, %c: memref<4xf8E4M3FN>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<4xf8E4M3FN>) outs(%c : memref<4xf8E4M3FN>) {
  ^bb0(%x: f8E4M3FN, %out: f8E4M3FN):
    linalg.yield %x : f8E4M3FN
  }
  return
}

// An i4 input, although the body computes in i32.
// CHECK-LABEL: func @i4_elements
// CHECK: linalg.generic
func.func @i4_elements(%a: tensor<4xi4>, %init: tensor<4xi32>) -> tensor<4xi32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<4xi4>) outs(%init : tensor<4xi32>) {
  ^bb0(%x: i4, %out: i32):
    %0 = arith.extsi %x : i4 to i32
    linalg.yield %0 : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// CHECK-LABEL: func @complex_elements
// CHECK: linalg.copy
func.func @complex_elements(%a: memref<4xcomplex<f32>>, %c: memref<4xcomplex<f32>>) {
  linalg.copy ins(%a : memref<4xcomplex<f32>>) outs(%c : memref<4xcomplex<f32>>)
  return
}

// An f32 buffer whose body goes through f80.
// CHECK-LABEL: func @f80_in_body
// CHECK: linalg.generic
func.func @f80_in_body(%a: memref<4xf32>, %c: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %0 = arith.extf %x : f32 to f80
    %1 = arith.truncf %0 : f80 to f32
    linalg.yield %1 : f32
  }
  return
}

// Maps that are not projected permutations: a sum of loops, a repeated loop.
// CHECK-LABEL: func @not_projected_permutation
// CHECK: linalg.generic
// CHECK: linalg.generic
func.func @not_projected_permutation(%a: memref<12xf32>, %b: memref<4x4xf32>, %c: memref<4x8xf32>, %d: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<12xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0, d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%b : memref<4x4xf32>) outs(%d : memref<4xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  return
}

// An output indexed by fewer loops than there are, all parallel: several
// iterations write one element.
// CHECK-LABEL: func @output_not_permutation
// CHECK: linalg.generic
func.func @output_not_permutation(%a: memref<4x8xf32>, %c: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  return
}

// Tensors have no transposing view.
// CHECK-LABEL: func @tensor_transpose
// CHECK: linalg.transpose
// CHECK: linalg.generic
func.func @tensor_transpose(%a: tensor<4x8xf32>, %init: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %t = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%init : tensor<8x4xf32>) permutation = [1, 0]
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%init : tensor<8x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %0 = math.exp %x : f32
    linalg.yield %0 : f32
  } -> tensor<8x4xf32>
  return %t, %g : tensor<8x4xf32>, tensor<8x4xf32>
}

// Tensor outputs in two orders: the second result would need a transpose.
// CHECK-LABEL: func @tensor_outputs_in_two_orders
// CHECK: linalg.generic
func.func @tensor_outputs_in_two_orders(%a: tensor<4x4xf32>, %i0: tensor<4x4xf32>, %i1: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d1, d0)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%i0, %i1 : tensor<4x4xf32>, tensor<4x4xf32>) {
  ^bb0(%x: f32, %o0: f32, %o1: f32):
    linalg.yield %x, %x : f32, f32
  } -> (tensor<4x4xf32>, tensor<4x4xf32>)
  return %r#0, %r#1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// A memref with a layout that is not strided.
// CHECK-LABEL: func @non_strided_layout
// CHECK: linalg.copy
func.func @non_strided_layout(%a: memref<4x4xf32, affine_map<(d0, d1) -> (d0 * 4 + (d1 mod 4))>>, %c: memref<4x4xf32>) {
  linalg.copy ins(%a : memref<4x4xf32, affine_map<(d0, d1) -> (d0 * 4 + (d1 mod 4))>>) outs(%c : memref<4x4xf32>)
  return
}
