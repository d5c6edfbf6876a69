// Every verifier rule of pointwise.map and pointwise.yield reports a precise
// diagnostic.
// RUN: pw-opt %s -split-input-file -verify-diagnostics

func.func @no_outputs(%a: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op expects at least one output}}
  pointwise.map ins(%a : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield
  }
  return
}

// -----

func.func @memref_input_tensor_output(%a: memref<4xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op mixes tensor and memref operands (output #0 is a tensor, input #0 is a memref); a map takes either tensors or memrefs}}
  %r = pointwise.map ins(%a : memref<4xf32>) outs(%t : tensor<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  } -> tensor<4xf32>
  return
}

// -----

func.func @output_is_a_vector(%a: memref<4xf32>, %v: vector<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op output #0 must be a memref or a ranked tensor, got 'vector<4xf32>'}}
  pointwise.map ins(%a : memref<4xf32>) outs(%v : vector<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @output_element_type_unsupported(%c: memref<4xi4>) {
  // expected-error @+1 {{'pointwise.map' op output #0 has unsupported element type 'i4'; expected one of i1, i8, i16, i32, i64, f16, bf16, f32, f64}}
  pointwise.map outs(%c : memref<4xi4>) {
    %0 = arith.constant 1 : i4
    pointwise.yield %0 : i4
  }
  return
}

// -----

func.func @output_of_index_is_unsupported(%c: memref<4xindex>) {
  // expected-error @+1 {{'pointwise.map' op output #0 has unsupported element type 'index'}}
  pointwise.map outs(%c : memref<4xindex>) {
    %0 = arith.constant 1 : index
    pointwise.yield %0 : index
  }
  return
}

// -----

func.func @output_layout_not_strided(%c: memref<4xf32, affine_map<(d0) -> (d0 floordiv 2)>>) {
  // expected-error @+1 {{'pointwise.map' op output #0 must have a strided layout, got 'memref<4xf32, affine_map<(d0) -> (d0 floordiv 2)>>'}}
  pointwise.map outs(%c : memref<4xf32, affine_map<(d0) -> (d0 floordiv 2)>>) {
    %0 = arith.constant 1.0 : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

func.func @output_shapes_differ(%c: memref<4x?xf32>, %d: memref<4x6xf32>, %e: memref<5x6xf32>) {
  // expected-error @+1 {{'pointwise.map' op output #2 of type 'memref<5x6xf32>' does not have the shape of output #0 of type 'memref<4x?xf32>'}}
  pointwise.map outs(%c, %d, %e : memref<4x?xf32>, memref<4x6xf32>, memref<5x6xf32>) {
    %0 = arith.constant 1.0 : f32
    pointwise.yield %0, %0, %0 : f32, f32, f32
  }
  return
}

// -----

// Two later outputs that disagree, each compatible with output #0's dynamic
// size.
func.func @later_output_shapes_differ(%c: memref<?xf32>, %d: memref<3xf32>, %e: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op output #2 of type 'memref<4xf32>' does not have the shape of output #1 of type 'memref<3xf32>'}}
  pointwise.map outs(%c, %d, %e : memref<?xf32>, memref<3xf32>, memref<4xf32>) {
    %0 = arith.constant 1.0 : f32
    pointwise.yield %0, %0, %0 : f32, f32, f32
  }
  return
}

// -----

func.func @output_ranks_differ(%c: memref<4xf32>, %d: memref<1x4xf32>) {
  // expected-error @+1 {{'pointwise.map' op output #1 of type 'memref<1x4xf32>' does not have the shape of output #0 of type 'memref<4xf32>'}}
  pointwise.map outs(%c, %d : memref<4xf32>, memref<1x4xf32>) {
    %0 = arith.constant 1.0 : f32
    pointwise.yield %0, %0 : f32, f32
  }
  return
}

// -----

func.func @output_overlaps_itself(%a: memref<3x4xf32>, %c: memref<3x4xf32, strided<[0, 1]>>) {
  // expected-error @+1 {{'pointwise.map' op output #0 dim 0 has size 3 and stride 0, so its elements overlap}}
  pointwise.map ins(%a : memref<3x4xf32>) outs(%c : memref<3x4xf32, strided<[0, 1]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @output_elements_share_offsets(%a: memref<2x3xf32>, %c: memref<2x3xf32, strided<[1, 1]>>) {
  // expected-error @+1 {{'pointwise.map' op output operand #0 overlaps itself: two of its elements are at element offset 1 (sizes [2, 3], strides [1, 1])}}
  pointwise.map ins(%a : memref<2x3xf32>) outs(%c : memref<2x3xf32, strided<[1, 1]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

// 2^64 elements: the canonical strides saturate to dynamic, the count is
// checked on its own.
func.func @too_many_elements(%a: memref<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>, %c: memref<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>) {
  // expected-error @+1 {{'pointwise.map' op input #0 has more elements than fit in int64}}
  pointwise.map ins(%a : memref<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>) outs(%c : memref<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @integer_too_wide(%a: memref<4xi64>, %c: memref<4xi64>) {
  pointwise.map ins(%a : memref<4xi64>) outs(%c : memref<4xi64>) {
  ^bb0(%x: i64):
    // expected-error @+1 {{'arith.extui' op uses the integer type 'i129'; a 'pointwise.map' body computes on integers of up to 128 bits, index, f16, bf16, f32 and f64 values only}}
    %w = arith.extui %x : i64 to i129
    %t = arith.trunci %w : i129 to i64
    pointwise.yield %t : i64
  }
  return
}

// -----

func.func @same_output_twice(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op outputs #0 and #1 are the same buffer}}
  pointwise.map ins(%a : memref<4xf32>) outs(%c, %c : memref<4xf32>, memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x, %x : f32, f32
  }
  return
}

// -----

func.func @input_is_a_vector(%v: vector<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op input #0 must be a memref, a ranked tensor or a scalar of type index, i1, i8, i16, i32, i64, f16, bf16, f32, f64; got 'vector<4xf32>'}}
  pointwise.map ins(%v : vector<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: vector<4xf32>):
    %0 = arith.constant 1.0 : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

func.func @tensor_input_memref_output(%t: tensor<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op mixes tensor and memref operands (input #0 is a tensor, output #0 is a memref); a map takes either tensors or memrefs}}
  pointwise.map ins(%t : tensor<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @scalar_input_unsigned(%s: ui32, %c: memref<4xi32>) {
  // expected-error @+1 {{'pointwise.map' op input #0 must be a memref, a ranked tensor or a scalar of type index, i1, i8, i16, i32, i64, f16, bf16, f32, f64; got 'ui32'}}
  pointwise.map ins(%s : ui32) outs(%c : memref<4xi32>) {
  ^bb0(%x: ui32):
    %0 = arith.constant 1 : i32
    pointwise.yield %0 : i32
  }
  return
}

// -----

func.func @scalar_input_too_wide(%s: i128, %c: memref<4xi64>) {
  // expected-error @+1 {{'pointwise.map' op input #0 must be a memref, a ranked tensor or a scalar of type index, i1, i8, i16, i32, i64, f16, bf16, f32, f64; got 'i128'}}
  pointwise.map ins(%s : i128) outs(%c : memref<4xi64>) {
  ^bb0(%x: i128):
    %0 = arith.trunci %x : i128 to i64
    pointwise.yield %0 : i64
  }
  return
}

// -----

func.func @input_element_type_unsupported(%a: memref<4xcomplex<f32>>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op input #0 has unsupported element type 'complex<f32>'; expected one of i1, i8, i16, i32, i64, f16, bf16, f32, f64}}
  pointwise.map ins(%a : memref<4xcomplex<f32>>) outs(%c : memref<4xf32>) {
  ^bb0(%x: complex<f32>):
    %0 = arith.constant 1.0 : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

func.func @input_layout_not_strided(%a: memref<4xf32, affine_map<(d0) -> (d0 mod 2)>>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op input #0 must have a strided layout, got 'memref<4xf32, affine_map<(d0) -> (d0 mod 2)>>'}}
  pointwise.map ins(%a : memref<4xf32, affine_map<(d0) -> (d0 mod 2)>>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @input_rank_higher_than_iteration_space(%a: memref<2x4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op input #0 has rank 2, higher than the iteration space's rank 1, so it cannot broadcast to it}}
  pointwise.map ins(%a : memref<2x4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @input_does_not_broadcast(%a: memref<4xf32>, %b: memref<3x1xf32>, %c: memref<3x5xf32>) {
  // expected-error @+1 {{'pointwise.map' op input #1 dim 0 has size 4, which does not broadcast to size 5 of iteration dim 1}}
  pointwise.map ins(%b, %a : memref<3x1xf32>, memref<4xf32>) outs(%c : memref<3x5xf32>) {
  ^bb0(%x: f32, %y: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @input_does_not_broadcast_to_static_size_of_another_output(
    %a: memref<4xf32>, %c: memref<?xf32>, %d: memref<5xf32>) {
  // expected-error @+1 {{'pointwise.map' op input #0 dim 0 has size 4, which does not broadcast to size 5 of iteration dim 0}}
  pointwise.map ins(%a : memref<4xf32>) outs(%c, %d : memref<?xf32>, memref<5xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x, %x : f32, f32
  }
  return
}

// -----

func.func @body_argument_count(%a: memref<4xf32>, %s: f32, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op body must have 2 arguments, one per input, but has 1}}
  pointwise.map ins(%a, %s : memref<4xf32>, f32) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @body_argument_type(%a: memref<4xf32>, %s: f64, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op body argument #1 has type 'f32', but input #1 requires 'f64'}}
  pointwise.map ins(%a, %s : memref<4xf32>, f64) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @body_argument_is_memref(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op body argument #0 has type 'memref<4xf32>', but input #0 requires 'f32'}}
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: memref<4xf32>):
    %0 = arith.constant 1.0 : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

func.func @yield_count(%a: memref<4xf32>, %c: memref<4xf32>, %d: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c, %d : memref<4xf32>, memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'pointwise.yield' op yields 1 values, but the enclosing map has 2 outputs}}
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @yield_type(%a: memref<4xf32>, %c: memref<4xf16>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf16>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'pointwise.yield' op value #0 has type 'f32', but output #0 has element type 'f16'}}
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @yield_outside_map() {
  // expected-error @+1 {{'pointwise.yield' op expects parent op 'pointwise.map'}}
  pointwise.yield
}

// -----

func.func @body_uses_vector_type(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'vector.broadcast' op uses the non-scalar type 'vector<4xf32>'; a 'pointwise.map' body computes on integers of up to 128 bits, index, f16, bf16, f32 and f64 values only}}
    %v = vector.broadcast %x : f32 to vector<4xf32>
    %0 = vector.extract %v[0] : f32 from vector<4xf32>
    pointwise.yield %0 : f32
  }
  return
}

// -----

func.func @body_uses_tensor_type(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'tensor.from_elements' op uses the non-scalar type 'tensor<1xf32>'}}
    %t = tensor.from_elements %x : tensor<1xf32>
    pointwise.yield %x : f32
  }
  return
}

// -----

// f8, f6, f4 and tf32 have no LLVM lowering of their conversions on either
// path; f80 and f128 none on the GPU.
func.func @body_truncates_to_f8(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'arith.truncf' op uses the float type 'f8E4M3FN'; a 'pointwise.map' body computes on integers of up to 128 bits, index, f16, bf16, f32 and f64 values only}}
    %0 = arith.truncf %x : f32 to f8E4M3FN
    %1 = arith.extf %0 : f8E4M3FN to f32
    pointwise.yield %1 : f32
  }
  return
}

// -----

func.func @body_truncates_to_f4(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'arith.truncf' op uses the float type 'f4E2M1FN'}}
    %0 = arith.truncf %x : f32 to f4E2M1FN
    %1 = arith.extf %0 : f4E2M1FN to f32
    pointwise.yield %1 : f32
  }
  return
}

// -----

func.func @body_truncates_to_tf32(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'arith.truncf' op uses the float type 'tf32'}}
    %0 = arith.truncf %x : f32 to tf32
    %1 = arith.extf %0 : tf32 to f32
    pointwise.yield %1 : f32
  }
  return
}

// -----

func.func @body_extends_to_f128(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'arith.extf' op uses the float type 'f128'}}
    %0 = arith.extf %x : f32 to f128
    %1 = arith.truncf %0 : f128 to f32
    pointwise.yield %1 : f32
  }
  return
}

// -----

func.func @body_constant_of_f80(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'arith.constant' op uses the float type 'f80'}}
    %0 = arith.constant 1.0 : f80
    pointwise.yield %x : f32
  }
  return
}

// -----

// A region argument of an unsupported type is found even when no op uses it.
func.func @body_region_argument_of_f8(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'scf.execute_region' op uses the float type 'f8E5M2'}}
    %0 = scf.execute_region -> f32 {
      cf.br ^bb2
    ^bb1(%unused: f8E5M2):
      cf.br ^bb2
    ^bb2:
      scf.yield %x : f32
    }
    pointwise.yield %0 : f32
  }
  return
}

// -----

func.func @body_region_op_is_not_control_flow(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'affine.parallel' op has regions but is not structured control flow; a 'pointwise.map' body allows region ops that implement RegionBranchOpInterface (scf.if, scf.for, scf.while, ...) only}}
    %0 = affine.parallel (%i) = (0) to (4) reduce ("addf") -> f32 {
      affine.yield %x : f32
    }
    pointwise.yield %0 : f32
  }
  return
}

// -----

// Other rounding modes would reach LLVM as constrained intrinsics, which
// assume the mode: the backends would round to nearest even anyway.
func.func @truncf_rounds_upward(%a: memref<4xf32>, %c: memref<4xf16>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf16>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'arith.truncf' op rounds upward; a 'pointwise.map' body rounds to nearest even only (the backends would ignore the mode and give another result)}}
    %h = arith.truncf %x upward : f32 to f16
    pointwise.yield %h : f16
  }
  return
}

// -----

func.func @truncf_rounds_toward_zero_in_control_flow(%a: memref<4xf64>, %c: memref<4xbf16>) {
  pointwise.map ins(%a : memref<4xf64>) outs(%c : memref<4xbf16>) {
  ^bb0(%x: f64):
    %true = arith.constant true
    %r = scf.if %true -> bf16 {
      // expected-error @+1 {{'arith.truncf' op rounds toward_zero}}
      %h = arith.truncf %x toward_zero : f64 to bf16
      scf.yield %h : bf16
    } else {
      %h = arith.truncf %x to_nearest_even : f64 to bf16
      scf.yield %h : bf16
    }
    pointwise.yield %r : bf16
  }
  return
}

// -----

func.func private @opaque(f32) -> f32

func.func @body_calls_a_function(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'func.call' op may have side effects; a 'pointwise.map' body allows only side-effect-free ops}}
    %0 = func.call @opaque(%x) : (f32) -> f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

func.func @body_has_side_effecting_nested_op(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    %true = arith.constant true
    scf.if %true {
      // expected-error @+1 {{'gpu.barrier' op may have side effects}}
      gpu.barrier
    }
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @body_uses_value_from_above(%a: memref<4xf32>, %s: f32, %c: memref<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{'arith.addf' op using value defined outside the region}}
    %0 = arith.addf %x, %s : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

func.func @body_without_terminator(%a: memref<4xf32>, %c: memref<4xf32>) {
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    // expected-error @+1 {{block with no terminator}}
    %0 = arith.negf %x : f32
  }
  return
}

// -----

func.func @body_with_two_blocks(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'pointwise.map' op expects region #0 to have 0 or 1 blocks}}
  pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32):
    cf.br ^bb1
  ^bb1:
    pointwise.yield %x : f32
  }
  return
}
