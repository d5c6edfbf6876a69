// The pipelines take tensor-level modules: they bufferize first. The CPU
// pipeline frees temporaries; the GPU pipeline runs maps on the caller's
// buffers and rejects a temporary (tensor-modules-gpu-temporary.mlir).
// RUN: pw-opt %s --pw-cpu-pipeline | FileCheck %s --check-prefix=CPU
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=GPU
// The plugin gives Debian's mlir-opt the same pipeline and output.
// RUN: pw-opt %s --pw-cpu-pipeline > %t.pw-opt.mlir
// RUN: mlir-opt %s --load-dialect-plugin=%pointwise_plugin --load-pass-plugin=%pointwise_plugin -p 'builtin.module(pw-cpu-pipeline)' > %t.mlir-opt.mlir
// RUN: diff %t.pw-opt.mlir %t.mlir-opt.mlir

// CPU-NOT: {{tensor<\?}}
// CPU-NOT: pointwise.map
// CPU: llvm.func @gelu_in_place(
// CPU: llvm.return
// GPU-NOT: {{tensor<\?}}
// GPU: llvm.func @gelu_in_place(
// GPU: gpu.launch_func
// GPU: gpu.binary @{{.*}} [#gpu.object<#nvvm.target
func.func @gelu_in_place(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = pointwise.map ins(%x : tensor<?x?xf32>) outs(%x : tensor<?x?xf32>) {
  ^bb0(%v: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k = arith.constant 0.7978845608 : f32
    %c = arith.constant 0.044715 : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %inner = arith.mulf %c, %v3 : f32
    %sum = arith.addf %v, %inner : f32
    %scaled = arith.mulf %k, %sum : f32
    %t = math.tanh %scaled : f32
    %onep = arith.addf %one, %t : f32
    %hv = arith.mulf %half, %v : f32
    %g = arith.mulf %hv, %onep : f32
    pointwise.yield %g : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
