// pw-bufferize=identity-layout=1: function boundaries take the identity
// layout, so the maps of a static tensor function see static, contiguous
// memrefs; by default they see fully dynamic strided layouts.
// RUN: pw-opt %s --pw-bufferize=identity-layout=1 | FileCheck %s
// RUN: pw-opt %s --pw-bufferize | FileCheck %s --check-prefix=DYNAMIC

// CHECK-LABEL: func @add
// CHECK-SAME: (%[[A:.*]]: memref<1024x1024xf32>, %[[B:.*]]: memref<1024x1024xf32>, %[[OUT:.*]]: memref<1024x1024xf32>)
// CHECK: pointwise.map ins(%[[A]], %[[B]] : memref<1024x1024xf32>, memref<1024x1024xf32>) outs(%[[OUT]] : memref<1024x1024xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
// DYNAMIC-LABEL: func @add
// DYNAMIC-SAME: memref<1024x1024xf32, strided<[?, ?], offset: ?>>
func.func @add(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>,
               %out: memref<1024x1024xf32>) {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %r = pointwise.map ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    pointwise.yield %s : f32
  } -> tensor<1024x1024xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<1024x1024xf32>, memref<1024x1024xf32>) -> ()
  return
}

// A returned tensor is a new contiguous buffer the caller owns.
// CHECK-LABEL: func @scale
// CHECK-SAME: (%[[X:.*]]: memref<256xf32>) -> memref<256xf32>
// CHECK: %[[R:.*]] = memref.alloc() {{.*}}: memref<256xf32>
// CHECK: pointwise.map ins(%[[X]]{{.*}}outs(%[[R]] : memref<256xf32>)
// CHECK: return %[[R]] : memref<256xf32>
func.func @scale(%x: tensor<256xf32>) -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %c = arith.constant 2.0 : f32
  %r = pointwise.map ins(%x, %c : tensor<256xf32>, f32) outs(%e : tensor<256xf32>) {
  ^bb0(%v: f32, %k: f32):
    %s = arith.mulf %v, %k : f32
    pointwise.yield %s : f32
  } -> tensor<256xf32>
  return %r : tensor<256xf32>
}
