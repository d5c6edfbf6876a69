// pw-canonicalize-broadcast gives every memref input the iteration shape and
// spells broadcasting as stride-0 dims; running it twice changes nothing.
// RUN: pw-opt %s --pw-canonicalize-broadcast | FileCheck %s
// RUN: pw-opt %s --pw-canonicalize-broadcast --pw-canonicalize-broadcast | FileCheck %s

// CHECK-LABEL: func @row_broadcast
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[R:.*]]: memref<8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT: %[[RB:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [4, 8], strides: [0, 1] : memref<8xf32> to memref<4x8xf32, strided<[0, 1]>>
// CHECK-NEXT: pointwise.map ins(%[[A]], %[[RB]] : memref<4x8xf32>, memref<4x8xf32, strided<[0, 1]>>) outs(%[[C]] : memref<4x8xf32>)
func.func @row_broadcast(%a: memref<4x8xf32>, %r: memref<8xf32>, %c: memref<4x8xf32>) {
  pointwise.map ins(%a, %r : memref<4x8xf32>, memref<8xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @column_broadcast
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [4, 8], strides: [1, 0] : memref<4x1xf32> to memref<4x8xf32, strided<[1, 0]>>
func.func @column_broadcast(%a: memref<4x8xf32>, %col: memref<4x1xf32>, %c: memref<4x8xf32>) {
  pointwise.map ins(%a, %col : memref<4x8xf32>, memref<4x1xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @zero_d_input_and_scalar
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [5], sizes: [2, 3], strides: [0, 0] : memref<f32, strided<[], offset: 5>> to memref<2x3xf32, strided<[0, 0], offset: 5>>
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<2x3xf32, strided<[0, 0], offset: 5>>, f32)
func.func @zero_d_input_and_scalar(%z: memref<f32, strided<[], offset: 5>>, %s: f32, %c: memref<2x3xf32>) {
  pointwise.map ins(%z, %s : memref<f32, strided<[], offset: 5>>, f32) outs(%c : memref<2x3xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// Already canonical inputs, negative strides included, are left alone.
// CHECK-LABEL: func @canonical_inputs_unchanged
// CHECK-NOT: memref.reinterpret_cast
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<3x8xf32, strided<[-8, -1], offset: 23>>, memref<3x8xf32, strided<[0, 1]>>)
func.func @canonical_inputs_unchanged(%a: memref<3x8xf32, strided<[-8, -1], offset: 23>>,
                                      %b: memref<3x8xf32, strided<[0, 1]>>,
                                      %c: memref<3x8xf32>) {
  pointwise.map ins(%a, %b : memref<3x8xf32, strided<[-8, -1], offset: 23>>, memref<3x8xf32, strided<[0, 1]>>)
                outs(%c : memref<3x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// A size-1 dim broadcasts to a dynamic iteration size taken from output #0.
// CHECK-LABEL: func @static_one_to_dynamic_size
// CHECK-SAME: (%[[A:.*]]: memref<1x8xf32>, %[[C:.*]]: memref<?x8xf32>)
// CHECK: %[[D:.*]] = memref.dim %[[C]], %c0
// CHECK: memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[D]], 8], strides: [0, 1] : memref<1x8xf32> to memref<?x8xf32, strided<[0, 1]>>
func.func @static_one_to_dynamic_size(%a: memref<1x8xf32>, %c: memref<?x8xf32>) {
  pointwise.map ins(%a : memref<1x8xf32>) outs(%c : memref<?x8xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// A dynamic size may be 1 at run time: its stride becomes `size == 1 ? 0 :
// stride`, and its size the iteration size.
// CHECK-LABEL: func @dynamic_size_broadcasts_at_run_time
// CHECK-SAME: (%[[R:.*]]: memref<?xf32, strided<[?], offset: ?>>, %[[C:.*]]: memref<4x?xf32>)
// CHECK: %[[BASE:.*]], %[[OFFSET:.*]], %[[SIZE:.*]], %[[STRIDE:.*]] = memref.extract_strided_metadata %[[R]]
// CHECK: %[[D:.*]] = memref.dim %[[C]], %c1
// CHECK: %[[IS_ONE:.*]] = arith.cmpi eq, %[[SIZE]], %c1
// CHECK: %[[S:.*]] = arith.select %[[IS_ONE]], %c0{{.*}}, %[[STRIDE]] : index
// CHECK: memref.reinterpret_cast %[[R]] to offset: [%[[OFFSET]]], sizes: [4, %[[D]]], strides: [0, %[[S]]] : memref<?xf32, strided<[?], offset: ?>> to memref<4x?xf32, strided<[0, ?], offset: ?>>
func.func @dynamic_size_broadcasts_at_run_time(%r: memref<?xf32, strided<[?], offset: ?>>, %c: memref<4x?xf32>) {
  pointwise.map ins(%r : memref<?xf32, strided<[?], offset: ?>>) outs(%c : memref<4x?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// Several outputs and an in-place input: only the broadcast input changes.
// CHECK-LABEL: func @several_outputs_in_place
// CHECK-SAME: (%[[A:.*]]: memref<2x5xi32>, %[[B:.*]]: memref<5xi32>, %[[D:.*]]: memref<2x5xi32>)
// CHECK: %[[BB:.*]] = memref.reinterpret_cast %[[B]] {{.*}} strides: [0, 1]
// CHECK: pointwise.map ins(%[[A]], %[[BB]] : memref<2x5xi32>, memref<2x5xi32, strided<[0, 1]>>) outs(%[[A]], %[[D]] : memref<2x5xi32>, memref<2x5xi32>)
func.func @several_outputs_in_place(%a: memref<2x5xi32>, %b: memref<5xi32>, %d: memref<2x5xi32>) {
  pointwise.map ins(%a, %b : memref<2x5xi32>, memref<5xi32>) outs(%a, %d : memref<2x5xi32>, memref<2x5xi32>) {
  ^bb0(%x: i32, %y: i32):
    %0 = arith.addi %x, %y : i32
    %1 = arith.subi %x, %y : i32
    pointwise.yield %0, %1 : i32, i32
  }
  return
}

// A size-0 iteration space: a size-1 dim broadcasts to size 0.
// CHECK-LABEL: func @size_zero_iteration_space
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [0, 4], strides: [0, 1] : memref<1x4xf16> to memref<0x4xf16, strided<[0, 1]>>
func.func @size_zero_iteration_space(%a: memref<1x4xf16>, %c: memref<0x4xf16>) {
  pointwise.map ins(%a : memref<1x4xf16>) outs(%c : memref<0x4xf16>) {
  ^bb0(%x: f16):
    pointwise.yield %x : f16
  }
  return
}

// Under pointwise.broadcast_resolved (a kernel family's variants: the runtime
// has already broadcast every operand to the iteration shape), dynamic sizes
// are kept and the static unit stride stays static.
// CHECK-LABEL: func @broadcast_resolved_by_the_caller
// CHECK-NOT: arith.select
// CHECK-NOT: memref.reinterpret_cast
// CHECK: pointwise.map ins(%arg0 : memref<?x?xf32, strided<[1, ?], offset: ?>>)
func.func @broadcast_resolved_by_the_caller(
    %x: memref<?x?xf32, strided<[1, ?], offset: ?>>,
    %y: memref<?x?xf32, strided<[?, 1], offset: ?>>)
    attributes {pointwise.broadcast_resolved} {
  pointwise.map ins(%x : memref<?x?xf32, strided<[1, ?], offset: ?>>)
                outs(%y : memref<?x?xf32, strided<[?, 1], offset: ?>>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// An input that is also the output has the iteration shape: its static unit
// stride stays static (no run-time size-1 select).
// CHECK-LABEL: func @in_place_keeps_static_strides
// CHECK-NOT: arith.select
// CHECK-NOT: memref.reinterpret_cast
// CHECK: pointwise.map ins(%arg0 : memref<?x?xf32, strided<[?, 1]>>) outs(%arg0 : memref<?x?xf32, strided<[?, 1]>>)
func.func @in_place_keeps_static_strides(%x: memref<?x?xf32, strided<[?, 1]>>) {
  pointwise.map ins(%x : memref<?x?xf32, strided<[?, 1]>>)
                outs(%x : memref<?x?xf32, strided<[?, 1]>>) {
  ^bb0(%a: f32):
    %0 = arith.addf %a, %a : f32
    pointwise.yield %0 : f32
  }
  return
}
