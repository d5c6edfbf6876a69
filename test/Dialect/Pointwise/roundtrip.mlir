// Every operand kind pointwise.map accepts prints and parses back unchanged,
// in the custom and in the generic form.
// RUN: pw-opt %s | pw-opt | FileCheck %s
// RUN: pw-opt %s --mlir-print-op-generic | pw-opt | FileCheck %s

// CHECK-LABEL: func @axpy_dynamic_strided_broadcast_scalar
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[B:.*]]: memref<?xf32>, %[[ALPHA:.*]]: f32, %[[C:.*]]: memref<?x?xf32>)
// CHECK:      pointwise.map ins(%[[A]], %[[B]], %[[ALPHA]] : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?xf32>, f32) outs(%[[C]] : memref<?x?xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[S:.*]]: f32):
// CHECK-NEXT:   %[[P:.*]] = arith.mulf %[[Y]], %[[S]] : f32
// CHECK-NEXT:   %[[R:.*]] = arith.addf %[[X]], %[[P]] : f32
// CHECK-NEXT:   pointwise.yield %[[R]] : f32
// CHECK-NEXT: }
func.func @axpy_dynamic_strided_broadcast_scalar(
    %a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?xf32>,
    %alpha: f32, %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %b, %alpha : memref<?x?xf32, strided<[?, ?], offset: ?>>,
                                     memref<?xf32>, f32)
                outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %0 = arith.mulf %y, %s : f32
    %1 = arith.addf %x, %0 : f32
    pointwise.yield %1 : f32
  }
  return
}

// CHECK-LABEL: func @static_strides_and_offset
// CHECK: pointwise.map ins(%{{.*}} : memref<4x8xf32, strided<[16, 2], offset: 3>>) outs(%{{.*}} : memref<4x8xf32, strided<[1, 4]>>)
func.func @static_strides_and_offset(%a: memref<4x8xf32, strided<[16, 2], offset: 3>>,
                                     %c: memref<4x8xf32, strided<[1, 4]>>) {
  pointwise.map ins(%a : memref<4x8xf32, strided<[16, 2], offset: 3>>)
                outs(%c : memref<4x8xf32, strided<[1, 4]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// CHECK-LABEL: func @stride_zero_broadcast_input
// CHECK: pointwise.map ins(%{{.*}} : memref<4x8xf32, strided<[0, 1]>>) outs(%{{.*}} : memref<4x8xf32>)
func.func @stride_zero_broadcast_input(%a: memref<4x8xf32, strided<[0, 1]>>,
                                       %c: memref<4x8xf32>) {
  pointwise.map ins(%a : memref<4x8xf32, strided<[0, 1]>>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// CHECK-LABEL: func @negative_static_strides
// CHECK: pointwise.map ins(%{{.*}} : memref<3x8xf32, strided<[-8, -1], offset: 23>>) outs(%{{.*}} : memref<3x8xf32, strided<[8, -1], offset: 7>>)
func.func @negative_static_strides(%a: memref<3x8xf32, strided<[-8, -1], offset: 23>>,
                                   %c: memref<3x8xf32, strided<[8, -1], offset: 7>>) {
  pointwise.map ins(%a : memref<3x8xf32, strided<[-8, -1], offset: 23>>)
                outs(%c : memref<3x8xf32, strided<[8, -1], offset: 7>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// CHECK-LABEL: func @size_one_and_missing_leading_dims_broadcast
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<1x8xf32>, memref<8xf32>, memref<f32>) outs(%{{.*}} : memref<5x4x8xf32>)
func.func @size_one_and_missing_leading_dims_broadcast(
    %row: memref<1x8xf32>, %vec: memref<8xf32>, %zero_d: memref<f32>,
    %c: memref<5x4x8xf32>) {
  pointwise.map ins(%row, %vec, %zero_d : memref<1x8xf32>, memref<8xf32>, memref<f32>)
                outs(%c : memref<5x4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.addf %x, %y : f32
    %1 = arith.addf %0, %z : f32
    pointwise.yield %1 : f32
  }
  return
}

// CHECK-LABEL: func @dynamic_size_broadcasts_against_static
// CHECK: pointwise.map ins(%{{.*}} : memref<?x1xf32>) outs(%{{.*}} : memref<4x?xf32>)
func.func @dynamic_size_broadcasts_against_static(%a: memref<?x1xf32>,
                                                  %c: memref<4x?xf32>) {
  pointwise.map ins(%a : memref<?x1xf32>) outs(%c : memref<4x?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// CHECK-LABEL: func @rank_zero_iteration_space
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<f64>, f64) outs(%{{.*}} : memref<f64>)
func.func @rank_zero_iteration_space(%a: memref<f64>, %s: f64, %c: memref<f64>) {
  pointwise.map ins(%a, %s : memref<f64>, f64) outs(%c : memref<f64>) {
  ^bb0(%x: f64, %y: f64):
    %0 = arith.mulf %x, %y : f64
    pointwise.yield %0 : f64
  }
  return
}

// CHECK-LABEL: func @size_zero_iteration_space
// CHECK: pointwise.map ins(%{{.*}} : memref<0x4xi32>) outs(%{{.*}} : memref<0x4xi32>)
func.func @size_zero_iteration_space(%a: memref<0x4xi32>, %c: memref<0x4xi32>) {
  pointwise.map ins(%a : memref<0x4xi32>) outs(%c : memref<0x4xi32>) {
  ^bb0(%x: i32):
    pointwise.yield %x : i32
  }
  return
}

// CHECK-LABEL: func @scalars_of_every_kind
// CHECK: pointwise.map ins(%{{.*}} : i1, i8, i16, i32, i64, index, f16, bf16, f32, f64) outs(%{{.*}} : memref<16xf64>)
// CHECK-NEXT: ^bb0(%{{.*}}: i1, %{{.*}}: i8, %{{.*}}: i16, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: index, %{{.*}}: f16, %{{.*}}: bf16, %{{.*}}: f32, %{{.*}}: f64):
func.func @scalars_of_every_kind(%b: i1, %i8: i8, %i16: i16, %i32: i32, %i64: i64,
                                 %idx: index, %h: f16, %bh: bf16, %f: f32,
                                 %d: f64, %c: memref<16xf64>) {
  pointwise.map ins(%b, %i8, %i16, %i32, %i64, %idx, %h, %bh, %f, %d
                    : i1, i8, i16, i32, i64, index, f16, bf16, f32, f64)
                outs(%c : memref<16xf64>) {
  ^bb0(%vb: i1, %v8: i8, %v16: i16, %v32: i32, %v64: i64, %vi: index,
       %vh: f16, %vbh: bf16, %vf: f32, %vd: f64):
    %0 = arith.index_cast %vi : index to i64
    %1 = arith.addi %0, %v64 : i64
    %2 = arith.sitofp %1 : i64 to f64
    %3 = arith.extf %vh : f16 to f64
    %4 = arith.extf %vbh : bf16 to f64
    %5 = arith.extf %vf : f32 to f64
    %6 = arith.addf %2, %3 : f64
    %7 = arith.addf %6, %4 : f64
    %8 = arith.addf %7, %5 : f64
    %9 = arith.select %vb, %8, %vd : f64
    pointwise.yield %9 : f64
  }
  return
}

// CHECK-LABEL: func @several_outputs_of_different_types
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<?xf32>, memref<?xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : memref<?xf32>, memref<?xf32>, memref<?xi1, strided<[?], offset: ?>>)
// CHECK: pointwise.yield %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, i1
func.func @several_outputs_of_different_types(
    %r: memref<?xf32>, %theta: memref<?xf32>, %x: memref<?xf32>,
    %y: memref<?xf32>, %positive: memref<?xi1, strided<[?], offset: ?>>) {
  pointwise.map ins(%r, %theta : memref<?xf32>, memref<?xf32>)
                outs(%x, %y, %positive : memref<?xf32>, memref<?xf32>,
                                         memref<?xi1, strided<[?], offset: ?>>) {
  ^bb0(%rr: f32, %t: f32):
    %c = math.cos %t : f32
    %s = math.sin %t : f32
    %0 = arith.mulf %rr, %c : f32
    %1 = arith.mulf %rr, %s : f32
    %zero = arith.constant 0.0 : f32
    %2 = arith.cmpf ogt, %rr, %zero : f32
    pointwise.yield %0, %1, %2 : f32, f32, i1
  }
  return
}

// CHECK-LABEL: func @no_inputs_fill
// CHECK: pointwise.map outs(%{{.*}} : memref<2x3xbf16>) {
// CHECK-NEXT: arith.constant
func.func @no_inputs_fill(%c: memref<2x3xbf16>) {
  pointwise.map outs(%c : memref<2x3xbf16>) {
    %0 = arith.constant 1.5 : bf16
    pointwise.yield %0 : bf16
  }
  return
}

// CHECK-LABEL: func @in_place_update
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16>)
// CHECK: pointwise.map ins(%[[A]] : memref<?x?xf16>) outs(%[[A]] : memref<?x?xf16>)
func.func @in_place_update(%a: memref<?x?xf16>) {
  pointwise.map ins(%a : memref<?x?xf16>) outs(%a : memref<?x?xf16>) {
  ^bb0(%x: f16):
    %0 = arith.negf %x : f16
    pointwise.yield %0 : f16
  }
  return
}

// CHECK-LABEL: func @discardable_attributes_and_nested_control_flow
// CHECK: pointwise.map ins(%{{.*}} : memref<8xi64>) outs(%{{.*}} : memref<8xi64>) attributes {note = "kept"} {
// CHECK: scf.if
// CHECK: scf.yield
func.func @discardable_attributes_and_nested_control_flow(%a: memref<8xi64>,
                                                          %c: memref<8xi64>) {
  pointwise.map ins(%a : memref<8xi64>) outs(%c : memref<8xi64>) attributes {note = "kept"} {
  ^bb0(%x: i64):
    %zero = arith.constant 0 : i64
    %negative = arith.cmpi slt, %x, %zero : i64
    %0 = scf.if %negative -> (i64) {
      %1 = arith.subi %zero, %x : i64
      scf.yield %1 : i64
    } else {
      scf.yield %x : i64
    }
    pointwise.yield %0 : i64
  }
  return
}

// An output with a static size of 0 has no elements, so stride 0 on its
// other dims overlaps nothing (the run-time rule agrees).
// CHECK-LABEL: func @empty_output_with_stride_zero
// CHECK: pointwise.map ins(%{{.*}} : memref<0x4xf32>) outs(%{{.*}} : memref<0x4xf32, strided<[0, 0]>>)
func.func @empty_output_with_stride_zero(%a: memref<0x4xf32>,
                                         %c: memref<0x4xf32, strided<[0, 0]>>) {
  pointwise.map ins(%a : memref<0x4xf32>) outs(%c : memref<0x4xf32, strided<[0, 0]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
