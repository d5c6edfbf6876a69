// pw-run runs functions on tensors: --arg gives each tensor argument a view
// (any strides: the pipeline bufferizes tensor arguments into strided
// memrefs), and the returned tensors are printed and compared with the
// reference lowering's. a[i][j] = i + 2j (iota through strides 1,2), b[j] =
// j, s = 0.5.
// RUN: pw-run %s --entry axpy --fill=iota --arg 2x3@1,2 --arg 3 --arg =0.5 --print --check | FileCheck %s
// CHECK-NOT: argument #
// CHECK: result #0 (2x3@3,1+0 xf32):
// CHECK-NEXT: {{\[\[}}0, 2.5, 5], [1, 3.5, 6]]
// CHECK-NEXT: result #1 (2x3@3,1+0 xi1):
// CHECK-NEXT: {{\[\[}}0, 1, 1], [0, 1, 1]]
// CHECK-NEXT: check passed

// A function that updates its argument in place returns a copy of it, which
// pw-run frees; the run is repeated to make a double free or leak of the
// argument's buffer visible to allocator checks.
// RUN: pw-run %s --entry scale_in_place --fill=iota --arg 4 --arg =3 --print --check --bench 3 | FileCheck %s --check-prefix=INPLACE
// INPLACE: result #0 (4@1+0 xf64):
// INPLACE-NEXT: [0, 3, 6, 9]
// INPLACE: check passed
// INPLACE: bench: 3 calls

func.func @axpy(%a: tensor<?x?xf32>, %b: tensor<?xf32>, %s: f32) -> (tensor<?x?xf32>, tensor<?x?xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %m = tensor.empty(%d0, %d1) : tensor<?x?xi1>
  %r:2 = pointwise.map ins(%a, %b, %s : tensor<?x?xf32>, tensor<?xf32>, f32)
                     outs(%e, %m : tensor<?x?xf32>, tensor<?x?xi1>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.mulf %y, %z : f32
    %1 = arith.addf %x, %0 : f32
    %2 = arith.cmpf ogt, %1, %x : f32
    pointwise.yield %1, %2 : f32, i1
  } -> tensor<?x?xf32>, tensor<?x?xi1>
  return %r#0, %r#1 : tensor<?x?xf32>, tensor<?x?xi1>
}

func.func @scale_in_place(%a: tensor<?xf64>, %s: f64) -> tensor<?xf64> {
  %r = pointwise.map ins(%a, %s : tensor<?xf64>, f64) outs(%a : tensor<?xf64>) {
  ^bb0(%x: f64, %y: f64):
    %0 = arith.mulf %x, %y : f64
    pointwise.yield %0 : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}
