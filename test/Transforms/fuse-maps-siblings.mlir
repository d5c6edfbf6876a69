// pw-fuse-maps merges maps of one block over the same iteration space that
// read a tensor in common and do not depend on each other into one map with
// the outputs of both.
// RUN: pw-opt %s --split-input-file --allow-unregistered-dialect --pw-fuse-maps | FileCheck %s

// Two maps reading %a: one map, inputs of both once, outputs of both.
// CHECK-LABEL: func @share_an_input
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<4x8xi32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[F:.*]] = tensor.empty() : tensor<4x8xi1>
// CHECK: %[[R:.*]]:2 = pointwise.map ins(%[[A]], %[[B]], %[[C]] : tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xi32>) outs(%[[E]], %[[F]] : tensor<4x8xf32>, tensor<4x8xi1>) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: i32):
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:   %[[I:.*]] = arith.sitofp %[[Z]] : i32 to f32
// CHECK-NEXT:   %[[CMP:.*]] = arith.cmpf olt, %[[X]], %[[I]] : f32
// CHECK-NEXT:   pointwise.yield %[[S]], %[[CMP]] : f32, i1
// CHECK-NEXT: } -> tensor<4x8xf32>, tensor<4x8xi1>
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1
func.func @share_an_input(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi1>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = pointwise.map ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  } -> tensor<4x8xf32>
  %f = tensor.empty() : tensor<4x8xi1>
  %t = pointwise.map ins(%c, %a : tensor<4x8xi32>, tensor<4x8xf32>) outs(%f : tensor<4x8xi1>) {
  ^bb0(%z: i32, %x: f32):
    %0 = arith.sitofp %z : i32 to f32
    %1 = arith.cmpf olt, %x, %0 : f32
    pointwise.yield %1 : i1
  } -> tensor<4x8xi1>
  return %s, %t : tensor<4x8xf32>, tensor<4x8xi1>
}

// -----

// The same destination twice: the second result gets its own tensor.empty.
// CHECK-LABEL: func @same_destination
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[A]]
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: %[[E2:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: pointwise.map ins(%[[A]] : tensor<?xf32>) outs(%[[E]], %[[E2]] : tensor<?xf32>, tensor<?xf32>)
func.func @same_destination(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %s = pointwise.map ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = math.exp %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  %t = pointwise.map ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = math.sin %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  return %s, %t : tensor<?xf32>, tensor<?xf32>
}

// -----

// Both update one argument in place: one map cannot write it twice, so the
// two stay apart.
// CHECK-LABEL: func @same_argument_destination
// CHECK-COUNT-2: pointwise.map
func.func @same_argument_destination(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = pointwise.map ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32):
    %0 = math.exp %x : f32
    pointwise.yield %0 : f32
  } -> tensor<8xf32>
  %t = pointwise.map ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32):
    %0 = math.sin %x : f32
    pointwise.yield %0 : f32
  } -> tensor<8xf32>
  return %s, %t : tensor<8xf32>, tensor<8xf32>
}

// -----

// Different iteration spaces (a static 4x8 and a dynamic one, or 8 and 4x8)
// do not merge.
// CHECK-LABEL: func @different_spaces
// CHECK-COUNT-3: pointwise.map
func.func @different_spaces(%a: tensor<8xf32>, %d: index) -> (tensor<8xf32>, tensor<4x8xf32>, tensor<?x8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %s = pointwise.map ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32):
    %0 = math.exp %x : f32
    pointwise.yield %0 : f32
  } -> tensor<8xf32>
  %f = tensor.empty() : tensor<4x8xf32>
  %t = pointwise.map ins(%a : tensor<8xf32>) outs(%f : tensor<4x8xf32>) {
  ^bb0(%x: f32):
    %0 = math.sin %x : f32
    pointwise.yield %0 : f32
  } -> tensor<4x8xf32>
  %g = tensor.empty(%d) : tensor<?x8xf32>
  %u = pointwise.map ins(%a : tensor<8xf32>) outs(%g : tensor<?x8xf32>) {
  ^bb0(%x: f32):
    %0 = math.cos %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?x8xf32>
  return %s, %t, %u : tensor<8xf32>, tensor<4x8xf32>, tensor<?x8xf32>
}

// -----

// No tensor input in common: no merge.
// CHECK-LABEL: func @nothing_shared
// CHECK-COUNT-2: pointwise.map
func.func @nothing_shared(%a: tensor<8xf32>, %b: tensor<8xf32>, %s: f32) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %r = pointwise.map ins(%a, %s : tensor<8xf32>, f32) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = math.exp %x : f32
    %1 = arith.mulf %0, %y : f32
    pointwise.yield %1 : f32
  } -> tensor<8xf32>
  %f = tensor.empty() : tensor<8xf32>
  %t = pointwise.map ins(%b, %s : tensor<8xf32>, f32) outs(%f : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = math.exp %x : f32
    %1 = arith.mulf %0, %y : f32
    pointwise.yield %1 : f32
  } -> tensor<8xf32>
  return %r, %t : tensor<8xf32>, tensor<8xf32>
}

// -----

// The second map's destination is made after a use of the first's result:
// the merged map goes where the first was only if the second's operands are
// defined there, else where the second was, if the first's results are used
// only after it. Here neither holds (the use sits between the two and the
// destination after the use), so the two stay.
// CHECK-LABEL: func @no_place_for_both
// CHECK: pointwise.map
// CHECK: "test.use"
// CHECK: "test.make"
// CHECK: pointwise.map
func.func @no_place_for_both(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = pointwise.map ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32):
    %0 = math.exp %x : f32
    pointwise.yield %0 : f32
  } -> tensor<8xf32>
  "test.use"(%r) : (tensor<8xf32>) -> ()
  %f = "test.make"() : () -> tensor<8xf32>
  %t = pointwise.map ins(%a : tensor<8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%x: f32):
    %0 = math.sin %x : f32
    pointwise.yield %0 : f32
  } -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// The first map's result is used before the second map, whose operands are
// all defined before the first: the merged map takes the first one's place.
// CHECK-LABEL: func @merged_at_first
// CHECK: %[[R:.*]]:2 = pointwise.map
// CHECK: "test.use"(%[[R]]#0)
// CHECK: return %[[R]]#1
func.func @merged_at_first(%a: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %f = tensor.empty() : tensor<8xf32>
  %r = pointwise.map ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32):
    %0 = math.exp %x : f32
    pointwise.yield %0 : f32
  } -> tensor<8xf32>
  "test.use"(%r) : (tensor<8xf32>) -> ()
  %t = pointwise.map ins(%a : tensor<8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%x: f32):
    %0 = math.sin %x : f32
    pointwise.yield %0 : f32
  } -> tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// Maps in different blocks (the branches of an scf.if) do not merge.
// CHECK-LABEL: func @different_blocks
// CHECK: scf.if
// CHECK: pointwise.map
// CHECK: else
// CHECK: pointwise.map
func.func @different_blocks(%a: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = scf.if %c -> tensor<8xf32> {
    %s = pointwise.map ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%x: f32):
      %0 = math.exp %x : f32
      pointwise.yield %0 : f32
    } -> tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  } else {
    %t = pointwise.map ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%x: f32):
      %0 = math.sin %x : f32
      pointwise.yield %0 : f32
    } -> tensor<8xf32>
    scf.yield %t : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
