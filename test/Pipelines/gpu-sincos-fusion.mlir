// pw-gpu-pipeline computes a sine and a cosine of one value with one
// math.sincos (libdevice's sincosf: one argument reduction), and keeps
// those of different values apart (docs/Performance.md, row
// `sincos-fusion`).
// RUN: pw-opt %s --split-input-file --pw-gpu-pipeline=format=isa --mlir-print-ir-after=math-sincos-fusion -o /dev/null 2>&1 | FileCheck %s

// CHECK-LABEL: IR Dump After MathSincosFusionPass
// CHECK: gpu.func @polar_kernel
// CHECK-NOT: math.sin {{.*}}: f32
// CHECK-NOT: math.cos {{.*}}: f32
// CHECK: %[[SIN:.*]], %[[COS:.*]] = math.sincos %{{.*}} : f32
// CHECK-DAG: arith.mulf %{{.*}}, %[[COS]] : f32
// CHECK-DAG: arith.mulf %{{.*}}, %[[SIN]] : f32
// CHECK: gpu.return
func.func @polar(%r: memref<1024xf32>, %t: memref<1024xf32>,
                 %x: memref<1024xf32>, %y: memref<1024xf32>) {
  pointwise.map ins(%r, %t : memref<1024xf32>, memref<1024xf32>)
                outs(%x, %y : memref<1024xf32>, memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = math.cos %b : f32
    %s = math.sin %b : f32
    %u = arith.mulf %a, %c : f32
    %v = arith.mulf %a, %s : f32
    pointwise.yield %u, %v : f32, f32
  }
  return
}

// -----

// CHECK-LABEL: IR Dump After MathSincosFusionPass
// CHECK: gpu.func @apart_kernel
// CHECK-NOT: math.sincos
// CHECK-DAG: math.cos %{{.*}} : f32
// CHECK-DAG: math.sin %{{.*}} : f32
// CHECK-NOT: math.sincos
// CHECK: gpu.return
func.func @apart(%r: memref<1024xf32>, %t: memref<1024xf32>,
                 %x: memref<1024xf32>) {
  pointwise.map ins(%r, %t : memref<1024xf32>, memref<1024xf32>)
                outs(%x : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = math.cos %a : f32
    %s = math.sin %b : f32
    %u = arith.addf %s, %c : f32
    pointwise.yield %u : f32
  }
  return
}
