// A map inside device code cannot become a kernel launch, and a map of a
// nested module is lowered by running the pipeline on that module: both
// are diagnosed instead of ending in errors of upstream passes.
// RUN: not pw-opt %s --split-input-file --pw-gpu-pipeline="format=isa" 2>&1 | FileCheck %s
// RUN: pw-opt %s --split-input-file --pass-pipeline='builtin.module(builtin.module(pw-gpu-pipeline{format=isa}))' 2>&1 | FileCheck %s --check-prefix=NESTED

// CHECK: error: pw-lower-to-gpu: this pointwise.map is inside device code (gpu.func, gpu.launch or gpu.module) and cannot become a kernel launch; put it in host code
module attributes {gpu.container_module} {
  gpu.module @device {
    gpu.func @kernel(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
      pointwise.map ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) {
      ^bb0(%a: f32):
        pointwise.yield %a : f32
      }
      gpu.return
    }
  }
}

// -----

// CHECK: error: pw-lower-to-gpu: this pointwise.map is in a nested module; the GPU lowering serves the maps of the module it runs on (run it on the nested module)
// NESTED: module @inner attributes {gpu.container_module}
// NESTED: llvm.func @scale
// NESTED: gpu.binary @scale_kernel
module {
  module @inner {
    func.func @scale(%x: memref<?xf32>, %y: memref<?xf32>) {
      pointwise.map ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
      ^bb0(%a: f32):
        %c = arith.constant 2.0 : f32
        %r = arith.mulf %a, %c : f32
        pointwise.yield %r : f32
      }
      return
    }
  }
}
