// pw-fuse-maps computes producer maps inside the maps that read their
// results: chains of any length become one map.
// RUN: pw-opt %s --split-input-file --allow-unregistered-dialect --pw-fuse-maps | FileCheck %s

// Two levels: the consumer takes the producer's inputs after its own, and
// its body computes the producer's value first.
// CHECK-LABEL: func @two_levels
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>, %[[C:.*]]: tensor<4x8xf32>)
// CHECK: %[[E:.*]] = tensor.empty
// CHECK-NEXT: %[[R:.*]] = pointwise.map ins(%[[C]], %[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>) {
// CHECK-NEXT: ^bb0(%[[Z:.*]]: f32, %[[X:.*]]: f32, %[[Y:.*]]: f32):
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:   %[[EXP:.*]] = math.exp %[[S]] : f32
// CHECK-NEXT:   %[[P:.*]] = arith.mulf %[[EXP]], %[[Z]] : f32
// CHECK-NEXT:   pointwise.yield %[[P]] : f32
// CHECK-NEXT: } -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @two_levels(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = pointwise.map ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    %1 = math.exp %0 : f32
    pointwise.yield %1 : f32
  } -> tensor<4x8xf32>
  %d = pointwise.map ins(%s, %c : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %z: f32):
    %0 = arith.mulf %x, %z : f32
    pointwise.yield %0 : f32
  } -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// Four levels over dynamic shapes whose sizes come from one tensor.empty:
// one map remains, reading %a once (the inputs are deduplicated) and
// computing the four steps in order.
// CHECK-LABEL: func @four_levels
// CHECK-SAME: (%[[A:.*]]: tensor<?xi32>, %[[S:.*]]: i32)
// CHECK: pointwise.map ins(%[[S]], %[[A]] : i32, tensor<?xi32>)
// CHECK-NEXT: ^bb0(%[[SV:.*]]: i32, %[[X:.*]]: i32):
// CHECK-NEXT:   %[[V1:.*]] = arith.addi %[[X]], %[[X]] : i32
// CHECK-NEXT:   %[[V2:.*]] = arith.muli %[[V1]], %[[X]] : i32
// CHECK-NEXT:   %[[V3:.*]] = arith.subi %[[V2]], %[[SV]] : i32
// CHECK-NEXT:   %[[V4:.*]] = arith.xori %[[V3]], %[[V1]] : i32
// CHECK-NEXT:   pointwise.yield %[[V4]] : i32
// CHECK-NOT: pointwise.map
func.func @four_levels(%a: tensor<?xi32>, %s: i32) -> tensor<?xi32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi32>
  %e = tensor.empty(%n) : tensor<?xi32>
  %1 = pointwise.map ins(%a : tensor<?xi32>) outs(%e : tensor<?xi32>) {
  ^bb0(%x: i32):
    %0 = arith.addi %x, %x : i32
    pointwise.yield %0 : i32
  } -> tensor<?xi32>
  %2 = pointwise.map ins(%1, %a : tensor<?xi32>, tensor<?xi32>) outs(%e : tensor<?xi32>) {
  ^bb0(%x: i32, %y: i32):
    %0 = arith.muli %x, %y : i32
    pointwise.yield %0 : i32
  } -> tensor<?xi32>
  %3 = pointwise.map ins(%2, %s : tensor<?xi32>, i32) outs(%e : tensor<?xi32>) {
  ^bb0(%x: i32, %y: i32):
    %0 = arith.subi %x, %y : i32
    pointwise.yield %0 : i32
  } -> tensor<?xi32>
  %4 = pointwise.map ins(%3, %1 : tensor<?xi32>, tensor<?xi32>) outs(%e : tensor<?xi32>) {
  ^bb0(%x: i32, %y: i32):
    %0 = arith.xori %x, %y : i32
    pointwise.yield %0 : i32
  } -> tensor<?xi32>
  return %4 : tensor<?xi32>
}

// -----

// A producer whose only users are maps is fused into each and disappears,
// even where its body is expensive, as long as they read it at full shape.
// The two consumers then read the same input over the same space and merge
// into one map, which computes the sine once.
// CHECK-LABEL: func @producer_with_two_map_users
// CHECK-SAME: (%[[A:.*]]: tensor<16xf32>)
// CHECK: %[[R:.*]]:2 = pointwise.map ins(%[[A]] : tensor<16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT:   %[[SIN:.*]] = math.sin %[[X]] : f32
// CHECK-NEXT:   %[[NEG:.*]] = arith.negf %[[SIN]] : f32
// CHECK-NEXT:   %[[ABS:.*]] = math.absf %[[SIN]] : f32
// CHECK-NEXT:   pointwise.yield %[[NEG]], %[[ABS]] : f32, f32
// CHECK-NOT: pointwise.map
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @producer_with_two_map_users(%a: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %p = pointwise.map ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32):
    %0 = math.sin %x : f32
    pointwise.yield %0 : f32
  } -> tensor<16xf32>
  %u = pointwise.map ins(%p : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<16xf32>
  %v = pointwise.map ins(%p : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32):
    %0 = math.absf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<16xf32>
  return %u, %v : tensor<16xf32>, tensor<16xf32>
}

// -----

// A producer whose result is also returned is absorbed by the consumer that
// reads it at full shape: the fused map writes both results, the producer's
// into the producer's destination, and the body computes the sine once.
// CHECK-LABEL: func @producer_also_returned
// CHECK-SAME: (%[[A:.*]]: tensor<16xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<16xf32>
// CHECK: %[[F:.*]] = tensor.empty() : tensor<16xf64>
// CHECK: %[[R:.*]]:2 = pointwise.map ins(%[[A]] : tensor<16xf32>) outs(%[[F]], %[[E]] : tensor<16xf64>, tensor<16xf32>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT:   %[[SIN:.*]] = math.sin %[[X]] : f32
// CHECK-NEXT:   %[[EXT:.*]] = arith.extf %[[SIN]] : f32 to f64
// CHECK-NEXT:   pointwise.yield %[[EXT]], %[[SIN]] : f64, f32
// CHECK-NEXT: } -> tensor<16xf64>, tensor<16xf32>
// CHECK-NOT: pointwise.map
// CHECK: return %[[R]]#1, %[[R]]#0
func.func @producer_also_returned(%a: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf64>) {
  %e = tensor.empty() : tensor<16xf32>
  %p = pointwise.map ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32):
    %0 = math.sin %x : f32
    pointwise.yield %0 : f32
  } -> tensor<16xf32>
  %f = tensor.empty() : tensor<16xf64>
  %u = pointwise.map ins(%p : tensor<16xf32>) outs(%f : tensor<16xf64>) {
  ^bb0(%x: f32):
    %0 = arith.extf %x : f32 to f64
    pointwise.yield %0 : f64
  } -> tensor<16xf64>
  return %p, %u : tensor<16xf32>, tensor<16xf64>
}

// -----

// An expensive producer used by a map and, before that map, by another op
// cannot move into the map: both stay.
// CHECK-LABEL: func @expensive_producer_used_before_consumer
// CHECK: %[[P:.*]] = pointwise.map
// CHECK:   math.exp
// CHECK: "test.use"(%[[P]])
// CHECK: pointwise.map ins(%[[P]] :
// CHECK-NOT: math.exp
func.func @expensive_producer_used_before_consumer(%a: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %p = pointwise.map ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32):
    %0 = math.exp %x : f32
    pointwise.yield %0 : f32
  } -> tensor<16xf32>
  "test.use"(%p) : (tensor<16xf32>) -> ()
  %u = pointwise.map ins(%p : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<16xf32>
  return %u : tensor<16xf32>
}

// -----

// A cheap producer with a use before its consumer is computed again in the
// consumer and kept for the other use; the two maps then read the same input
// over the same space and merge, computing the sum once.
// CHECK-LABEL: func @cheap_producer_kept_for_other_use
// CHECK-SAME: (%[[A:.*]]: tensor<16xf32>)
// CHECK: %[[R:.*]]:2 = pointwise.map ins(%[[A]] : tensor<16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[X]], %[[X]] : f32
// CHECK-NEXT:   %[[N:.*]] = arith.negf %[[S]] : f32
// CHECK-NEXT:   pointwise.yield %[[S]], %[[N]] : f32, f32
// CHECK: "test.use"(%[[R]]#0)
// CHECK: return %[[R]]#1
func.func @cheap_producer_kept_for_other_use(%a: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %p = pointwise.map ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  } -> tensor<16xf32>
  "test.use"(%p) : (tensor<16xf32>) -> ()
  %u = pointwise.map ins(%p : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<16xf32>
  return %u : tensor<16xf32>
}

// -----

// A producer with several results, of which the consumer reads one: the
// other result's computation is not copied into the consumer.
// CHECK-LABEL: func @producer_with_several_outputs
// CHECK-SAME: (%[[A:.*]]: tensor<8xi16>)
// CHECK: %[[R:.*]] = pointwise.map ins(%[[A]] : tensor<8xi16>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: i16):
// CHECK-NEXT:   %[[M:.*]] = arith.muli %[[X]], %[[X]] : i16
// CHECK-NEXT:   %[[EXT:.*]] = arith.extsi %[[M]] : i16 to i64
// CHECK-NEXT:   pointwise.yield %[[EXT]] : i64
// CHECK-NOT: pointwise.map
func.func @producer_with_several_outputs(%a: tensor<8xi16>) -> tensor<8xi64> {
  %e = tensor.empty() : tensor<8xi16>
  %p:2 = pointwise.map ins(%a : tensor<8xi16>) outs(%e, %e : tensor<8xi16>, tensor<8xi16>) {
  ^bb0(%x: i16):
    %0 = arith.addi %x, %x : i16
    %1 = arith.muli %x, %x : i16
    pointwise.yield %0, %1 : i16, i16
  } -> tensor<8xi16>, tensor<8xi16>
  %f = tensor.empty() : tensor<8xi64>
  %u = pointwise.map ins(%p#1 : tensor<8xi16>) outs(%f : tensor<8xi64>) {
  ^bb0(%x: i16):
    %0 = arith.extsi %x : i16 to i64
    pointwise.yield %0 : i64
  } -> tensor<8xi64>
  return %u : tensor<8xi64>
}

// -----

// A map that uses the producer's result as its destination is no map user:
// the producer (cheap) is fused where it is an input and kept for the
// destination.
// CHECK-LABEL: func @result_as_destination
// CHECK: %[[P:.*]] = pointwise.map
// CHECK: pointwise.map ins(%{{.*}} : tensor<4xf32>) outs(%[[P]] : tensor<4xf32>)
func.func @result_as_destination(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %p = pointwise.map ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<4xf32>
  %u = pointwise.map ins(%p : tensor<4xf32>) outs(%p : tensor<4xf32>) {
  ^bb0(%x: f32):
    %0 = arith.mulf %x, %x : f32
    pointwise.yield %0 : f32
  } -> tensor<4xf32>
  return %u : tensor<4xf32>
}

// -----

// tensor.dim of a producer's result reads its destination instead, so the
// shape query does not keep the producer.
// CHECK-LABEL: func @dim_of_result
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[A]]
// CHECK: %[[E:.*]] = tensor.empty(%[[N]])
// CHECK: tensor.dim %[[E]]
// CHECK: pointwise.map ins(%[[A]] : tensor<?xf32>)
// CHECK-NOT: pointwise.map
func.func @dim_of_result(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %p = pointwise.map ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = math.exp %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  %m = tensor.dim %p, %c0 : tensor<?xf32>
  %f = tensor.empty(%m) : tensor<?xf32>
  %u = pointwise.map ins(%p : tensor<?xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  return %u : tensor<?xf32>
}

// -----

// Memref maps are left alone.
// CHECK-LABEL: func @memref_maps
// CHECK: pointwise.map ins(%{{.*}} : memref<4xf32>) outs(%[[T:.*]] : memref<4xf32>)
// CHECK: pointwise.map ins(%[[T]] : memref<4xf32>)
func.func @memref_maps(%a: memref<4xf32>, %b: memref<4xf32>) {
  %t = memref.alloc() : memref<4xf32>
  pointwise.map ins(%a : memref<4xf32>) outs(%t : memref<4xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  }
  pointwise.map ins(%t : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  }
  memref.dealloc %t : memref<4xf32>
  return
}

// -----

// A producer before an scf.if is fused into a consumer in each branch (each
// runs at most once) and goes.
// CHECK-LABEL: func @consumers_in_branches
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[C:.*]]: i1)
// CHECK-NOT: pointwise.map
// CHECK: scf.if
// CHECK-NEXT: pointwise.map ins(%[[A]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
// CHECK-NEXT: arith.negf
// CHECK: else
// CHECK-NEXT: pointwise.map ins(%[[A]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
// CHECK-NEXT: math.absf
func.func @consumers_in_branches(%a: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %p = pointwise.map ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32):
    %0 = math.exp %x : f32
    pointwise.yield %0 : f32
  } -> tensor<4xf32>
  %r = scf.if %c -> tensor<4xf32> {
    %u = pointwise.map ins(%p : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32):
      %0 = arith.negf %x : f32
      pointwise.yield %0 : f32
    } -> tensor<4xf32>
    scf.yield %u : tensor<4xf32>
  } else {
    %v = pointwise.map ins(%p : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32):
      %0 = math.absf %x : f32
      pointwise.yield %0 : f32
    } -> tensor<4xf32>
    scf.yield %v : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A consumer in a loop would compute the producer on every iteration: the
// producer stays outside, computed once.
// CHECK-LABEL: func @consumer_in_loop
// CHECK: %[[P:.*]] = pointwise.map
// CHECK:   math.exp
// CHECK: scf.for
// CHECK:   pointwise.map ins(%[[P]], %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK-NOT: math.exp
func.func @consumer_in_loop(%a: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4xf32>
  %p = pointwise.map ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32):
    %0 = math.exp %x : f32
    pointwise.yield %0 : f32
  } -> tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> tensor<4xf32> {
    %u = pointwise.map ins(%p, %acc : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%x: f32, %y: f32):
      %0 = arith.addf %x, %y : f32
      pointwise.yield %0 : f32
    } -> tensor<4xf32>
    scf.yield %u : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A producer input of static size 5 cannot broadcast to the consumer's 4:
// the program fails at run time either way (the intermediate would have to
// be 5 and 4 at once), and fusing would make a map the verifier rejects, so
// both maps stay.
// CHECK-LABEL: func @impossible_broadcast_left_alone
// CHECK: %[[P:.*]] = pointwise.map ins(%{{.*}} : tensor<5xf32>)
// CHECK: pointwise.map ins(%[[P]] : tensor<?xf32>)
func.func @impossible_broadcast_left_alone(%a: tensor<5xf32>, %n: index) -> tensor<4xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %p = pointwise.map ins(%a : tensor<5xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  %f = tensor.empty() : tensor<4xf32>
  %u = pointwise.map ins(%p : tensor<?xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  } -> tensor<4xf32>
  return %u : tensor<4xf32>
}
