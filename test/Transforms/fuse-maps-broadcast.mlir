// A producer read through a broadcast is computed again for every consumer
// element that reads it: pw-fuse-maps fuses it only if it is cheap (at most
// max-recompute-ops ops besides constants, no transcendental math, no
// division, no regions).
// RUN: pw-opt %s --split-input-file --pw-fuse-maps | FileCheck %s
// RUN: pw-opt %s --split-input-file --pw-fuse-maps=max-recompute-ops=1 | FileCheck %s --check-prefix=ONE

// A cheap row producer fused into a consumer that broadcasts it over rows:
// the row input %r broadcasts to the consumer's space directly.
// CHECK-LABEL: func @cheap_row_fused
// CHECK-SAME: (%[[M:.*]]: tensor<4x8xf32>, %[[R:.*]]: tensor<8xf32>)
// CHECK: pointwise.map ins(%[[M]], %[[R]] : tensor<4x8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT:   %[[TWO:.*]] = arith.constant 2.0
// CHECK-NEXT:   %[[S:.*]] = arith.mulf %[[Y]], %[[TWO]] : f32
// CHECK-NEXT:   %[[T:.*]] = arith.addf %[[S]], %[[Y]] : f32
// CHECK-NEXT:   %[[U:.*]] = arith.addf %[[X]], %[[T]] : f32
// CHECK-NEXT:   pointwise.yield %[[U]]
// CHECK-NOT: pointwise.map
// With max-recompute-ops=1 the two ops are too many.
// ONE-LABEL: func @cheap_row_fused
// ONE: %[[P:.*]] = pointwise.map ins(%{{.*}} : tensor<8xf32>)
// ONE: pointwise.map ins(%{{.*}}, %[[P]] : tensor<4x8xf32>, tensor<8xf32>)
func.func @cheap_row_fused(%m: tensor<4x8xf32>, %r: tensor<8xf32>) -> tensor<4x8xf32> {
  %e8 = tensor.empty() : tensor<8xf32>
  %p = pointwise.map ins(%r : tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%y: f32):
    %two = arith.constant 2.0 : f32
    %0 = arith.mulf %y, %two : f32
    %1 = arith.addf %0, %y : f32
    pointwise.yield %1 : f32
  } -> tensor<8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %u = pointwise.map ins(%m, %p : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  } -> tensor<4x8xf32>
  return %u : tensor<4x8xf32>
}

// -----

// A transcendental producer (math.exp) read through a size-1 dim stays: the
// consumer reads its result.
// CHECK-LABEL: func @expensive_column_kept
// CHECK: %[[P:.*]] = pointwise.map
// CHECK:   math.exp
// CHECK: pointwise.map ins(%{{.*}}, %[[P]] : tensor<4x8xf32>, tensor<4x1xf32>)
// CHECK-NOT: math.exp
func.func @expensive_column_kept(%m: tensor<4x8xf32>, %c: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %e1 = tensor.empty() : tensor<4x1xf32>
  %p = pointwise.map ins(%c : tensor<4x1xf32>) outs(%e1 : tensor<4x1xf32>) {
  ^bb0(%y: f32):
    %0 = math.exp %y : f32
    pointwise.yield %0 : f32
  } -> tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %u = pointwise.map ins(%m, %p : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.mulf %x, %y : f32
    pointwise.yield %0 : f32
  } -> tensor<4x8xf32>
  return %u : tensor<4x8xf32>
}

// -----

// Division counts as expensive too.
// CHECK-LABEL: func @division_kept
// CHECK: %[[P:.*]] = pointwise.map
// CHECK:   arith.divsi
// CHECK: pointwise.map ins(%{{.*}}, %[[P]] : tensor<4x8xi32>, tensor<8xi32>)
func.func @division_kept(%m: tensor<4x8xi32>, %r: tensor<8xi32>) -> tensor<4x8xi32> {
  %e8 = tensor.empty() : tensor<8xi32>
  %p = pointwise.map ins(%r : tensor<8xi32>) outs(%e8 : tensor<8xi32>) {
  ^bb0(%y: i32):
    %c3 = arith.constant 3 : i32
    %0 = arith.divsi %y, %c3 : i32
    pointwise.yield %0 : i32
  } -> tensor<8xi32>
  %e = tensor.empty() : tensor<4x8xi32>
  %u = pointwise.map ins(%m, %p : tensor<4x8xi32>, tensor<8xi32>) outs(%e : tensor<4x8xi32>) {
  ^bb0(%x: i32, %y: i32):
    %0 = arith.addi %x, %y : i32
    pointwise.yield %0 : i32
  } -> tensor<4x8xi32>
  return %u : tensor<4x8xi32>
}

// -----

// Dynamic sizes that do not provably match (two function arguments) may
// broadcast at run time: the expensive producer stays, the cheap one is
// fused.
// CHECK-LABEL: func @unprovable_sizes
// CHECK: %[[P:.*]] = pointwise.map
// CHECK:   math.tanh
// CHECK: pointwise.map ins(%[[P]], %{{.*}} : tensor<?xf32>, tensor<?xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.negf
// CHECK-NEXT: arith.addf
// CHECK-NOT: pointwise.map
func.func @unprovable_sizes(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %ea = tensor.empty(%n) : tensor<?xf32>
  %p = pointwise.map ins(%a : tensor<?xf32>) outs(%ea : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = math.tanh %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  %m = tensor.dim %b, %c0 : tensor<?xf32>
  %eb = tensor.empty(%m) : tensor<?xf32>
  %q = pointwise.map ins(%b : tensor<?xf32>) outs(%eb : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  %u = pointwise.map ins(%p, %q : tensor<?xf32>, tensor<?xf32>) outs(%eb : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  return %u : tensor<?xf32>
}

// -----

// Sizes that come from the same SSA value, through tensor.dim of a tensor
// and through a map's destination, are provably equal: the expensive
// producer is read at full shape and fused.
// CHECK-LABEL: func @provable_dynamic_sizes
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>)
// CHECK: pointwise.map ins(%[[A]] : tensor<?x?xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.tanh
// CHECK-NEXT: arith.negf
// CHECK-NOT: pointwise.map
func.func @provable_dynamic_sizes(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %m = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n, %m) : tensor<?x?xf32>
  %p = pointwise.map ins(%a : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32):
    %0 = math.tanh %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?x?xf32>
  %n2 = tensor.dim %p, %c0 : tensor<?x?xf32>
  %m2 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %f = tensor.empty(%n2, %m2) : tensor<?x?xf32>
  %u = pointwise.map ins(%p : tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?x?xf32>
  return %u : tensor<?x?xf32>
}

// -----

// A cheap producer with a full-shape user and a broadcast user: fused into
// both, then gone.
// CHECK-LABEL: func @cheap_producer_full_and_broadcast_users
// CHECK-COUNT-2: arith.negf
// CHECK-NOT: pointwise.map ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<8xf32>)
func.func @cheap_producer_full_and_broadcast_users(%r: tensor<8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>) {
  %e8 = tensor.empty() : tensor<8xf32>
  %p = pointwise.map ins(%r : tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%y: f32):
    %0 = arith.negf %y : f32
    pointwise.yield %0 : f32
  } -> tensor<8xf32>
  %u = pointwise.map ins(%p : tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%y: f32):
    %0 = arith.mulf %y, %y : f32
    pointwise.yield %0 : f32
  } -> tensor<8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %v = pointwise.map ins(%p : tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%y: f32):
    %0 = arith.addf %y, %y : f32
    pointwise.yield %0 : f32
  } -> tensor<4x8xf32>
  return %u, %v : tensor<8xf32>, tensor<4x8xf32>
}
