// pw-coalesce-dims leaves a map with a negative static offset as it is:
// memref.reinterpret_cast cannot keep that offset.
// RUN: pw-opt %s --pw-coalesce-dims | FileCheck %s

// CHECK-LABEL: func @negative_static_offset
// CHECK-NOT: memref.reinterpret_cast
// CHECK: pointwise.map ins(%{{.*}} : memref<4x4xf32, strided<[4, 1], offset: -100>>) outs(%{{.*}} : memref<4x4xf32>)
func.func @negative_static_offset(%a: memref<4x4xf32, strided<[4, 1], offset: -100>>, %c: memref<4x4xf32>) {
  pointwise.map ins(%a : memref<4x4xf32, strided<[4, 1], offset: -100>>) outs(%c : memref<4x4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
