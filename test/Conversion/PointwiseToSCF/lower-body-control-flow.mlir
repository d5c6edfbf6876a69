// Structured control flow in a map body is cloned with the rest of the body:
// its regions use the clones of the body values they capture (the element
// loaded, scalars, constants), and f16/bf16 values flowing through it are
// computed in f32 like the rest of the body.
// RUN: pw-opt %s --pw-lower-to-loops | FileCheck %s
// RUN: pw-opt %s --pw-canonicalize-broadcast --pw-tile | FileCheck %s

// CHECK-LABEL: func.func @negate_unless
// CHECK-SAME: (%{{.*}}: memref<?xf32>, %[[KEEP:.*]]: i1,
// CHECK: %[[X:.*]] = memref.load
// CHECK-NEXT: %[[R:.*]] = scf.if %[[KEEP]] -> (f32) {
// CHECK-NEXT:   scf.yield %[[X]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT:   %[[N:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT:   scf.yield %[[N]] : f32
// CHECK-NEXT: }
// CHECK: memref.store %[[R]]
func.func @negate_unless(%a: memref<?xf32>, %keep: i1, %c: memref<?xf32>) {
  pointwise.map ins(%a, %keep : memref<?xf32>, i1) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %k: i1):
    %r = scf.if %k -> f32 {
      scf.yield %x : f32
    } else {
      %n = arith.negf %x : f32
      scf.yield %n : f32
    }
    pointwise.yield %r : f32
  }
  return
}

// The loop multiplies by the element, which it captures, not by an
// iter_arg.
// CHECK-LABEL: func.func @power
// CHECK-SAME: (%{{.*}}: memref<?xi32>, %[[N:.*]]: index,
// CHECK: %[[X:.*]] = memref.load
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (i32) {
// CHECK-NEXT:   %[[M:.*]] = arith.muli %[[ACC]], %[[X]] : i32
// CHECK-NEXT:   scf.yield %[[M]] : i32
// CHECK-NEXT: }
// CHECK: memref.store %[[R]]
func.func @power(%a: memref<?xi32>, %n: index, %c: memref<?xi32>) {
  pointwise.map ins(%a, %n : memref<?xi32>, index) outs(%c : memref<?xi32>) {
  ^bb0(%x: i32, %k: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %one) -> i32 {
      %m = arith.muli %acc, %x : i32
      scf.yield %m : i32
    }
    pointwise.yield %r : i32
  }
  return
}

// Both regions of the while loop capture values of the body: a scalar
// input and a constant.
// CHECK-LABEL: func.func @halve_below_limit
// CHECK-SAME: (%{{.*}}: memref<?xf32>, %[[LIMIT:.*]]: f32,
// CHECK: %[[X:.*]] = memref.load
// CHECK-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[R:.*]] = scf.while (%[[V:.*]] = %[[X]]) : (f32) -> f32 {
// CHECK-NEXT:   %[[BIG:.*]] = arith.cmpf ogt, %[[V]], %[[LIMIT]] : f32
// CHECK-NEXT:   scf.condition(%[[BIG]]) %[[V]] : f32
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%[[W:.*]]: f32):
// CHECK-NEXT:   %[[H:.*]] = arith.mulf %[[W]], %[[HALF]] : f32
// CHECK-NEXT:   scf.yield %[[H]] : f32
// CHECK-NEXT: }
// CHECK: memref.store %[[R]]
func.func @halve_below_limit(%a: memref<?xf32>, %limit: f32, %c: memref<?xf32>) {
  pointwise.map ins(%a, %limit : memref<?xf32>, f32) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %l: f32):
    %half = arith.constant 0.5 : f32
    %r = scf.while (%v = %x) : (f32) -> f32 {
      %big = arith.cmpf ogt, %v, %l : f32
      scf.condition(%big) %v : f32
    } do {
    ^bb0(%w: f32):
      %h = arith.mulf %w, %half : f32
      scf.yield %h : f32
    }
    pointwise.yield %r : f32
  }
  return
}

// f16 through a loop and a branch: the iter_arg, the results and the
// captured scalar are f32, nothing computes in f16, and the result is
// rounded to f16 once, when it is stored.
// CHECK-LABEL: func.func @half_scaled_twice
// CHECK-SAME: (%{{.*}}: memref<?xf16>, %[[S:.*]]: f16,
// CHECK-NOT: {{arith\.(mulf|subf|divf|cmpf) .* : f16}}
// CHECK: %[[XH:.*]] = memref.load
// CHECK-NEXT: %[[X:.*]] = arith.extf %[[XH]] : f16 to f32
// CHECK-NEXT: %[[SW:.*]] = arith.extf %[[S]] : f16 to f32
// CHECK: %[[R:.*]] = scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[X]]) -> (f32) {
// CHECK-NEXT:   %[[M:.*]] = arith.mulf %[[ACC]], %[[SW]] : f32
// CHECK-NEXT:   %[[POS:.*]] = arith.cmpf ogt, %[[M]], %[[X]] : f32
// CHECK-NEXT:   %[[B:.*]] = scf.if %[[POS]] -> (f32) {
// CHECK-NEXT:     scf.yield %[[M]] : f32
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %[[D:.*]] = arith.subf %[[M]], %[[SW]] : f32
// CHECK-NEXT:     scf.yield %[[D]] : f32
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.yield %[[B]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: %[[Q:.*]] = arith.divf %[[R]], %[[SW]] : f32
// CHECK-NEXT: %[[Q2:.*]] = arith.divf %[[Q]], %[[SW]] : f32
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[Q2]] : f32 to f16
// CHECK: memref.store %[[H]]
// CHECK-NOT: {{arith\.(mulf|subf|divf|cmpf) .* : f16}}
func.func @half_scaled_twice(%a: memref<?xf16>, %s: f16, %c: memref<?xf16>) {
  pointwise.map ins(%a, %s : memref<?xf16>, f16) outs(%c : memref<?xf16>) {
  ^bb0(%x: f16, %k: f16):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %big = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> f16 {
      %m = arith.mulf %acc, %k : f16
      %pos = arith.cmpf ogt, %m, %x : f16
      %n = scf.if %pos -> f16 {
        scf.yield %m : f16
      } else {
        %d = arith.subf %m, %k : f16
        scf.yield %d : f16
      }
      scf.yield %n : f16
    }
    %q = arith.divf %big, %k : f16
    %r = arith.divf %q, %k : f16
    pointwise.yield %r : f16
  }
  return
}

// A region of several blocks, whose bf16 block arguments become f32.
// CHECK-LABEL: func.func @bf16_branches
// CHECK: %[[XH:.*]] = memref.load
// CHECK-NEXT: %[[X:.*]] = arith.extf %[[XH]] : bf16 to f32
// CHECK: %[[R:.*]] = scf.execute_region -> f32 {
// CHECK-NEXT:   %[[NEG:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f32
// CHECK-NEXT:   cf.cond_br %[[NEG]], ^bb2(%[[X]] : f32), ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   %[[D:.*]] = arith.addf %[[X]], %[[X]] : f32
// CHECK-NEXT:   cf.br ^bb2(%[[D]] : f32)
// CHECK-NEXT: ^bb2(%[[V:.*]]: f32):
// CHECK-NEXT:   scf.yield %[[V]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[R]] : f32 to bf16
// CHECK: memref.store %[[H]]
func.func @bf16_branches(%a: memref<?xbf16>, %c: memref<?xbf16>) {
  pointwise.map ins(%a : memref<?xbf16>) outs(%c : memref<?xbf16>) {
  ^bb0(%x: bf16):
    %zero = arith.constant 0.0 : bf16
    %r = scf.execute_region -> bf16 {
      %neg = arith.cmpf olt, %x, %zero : bf16
      cf.cond_br %neg, ^bb2(%x : bf16), ^bb1
    ^bb1:
      %d = arith.addf %x, %x : bf16
      cf.br ^bb2(%d : bf16)
    ^bb2(%v: bf16):
      scf.yield %v : bf16
    }
    pointwise.yield %r : bf16
  }
  return
}
