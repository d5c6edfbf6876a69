// Debian's mlir-opt with PointwisePlugin.so parses the dialect and runs the
// pipelines with output identical to pw-opt's (plugin passes are named
// inside -p). Without the plugin, mlir-opt does not know the dialect.
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NO-PLUGIN
// RUN: mlir-opt %s --load-dialect-plugin=%pointwise_plugin | FileCheck %s --check-prefix=PARSE
// RUN: mlir-opt %s --load-dialect-plugin=%pointwise_plugin --load-pass-plugin=%pointwise_plugin -p 'builtin.module(pw-cpu-pipeline)' -o %t.cpu-plugin.mlir
// RUN: pw-opt %s --pw-cpu-pipeline -o %t.cpu-pw-opt.mlir
// RUN: diff %t.cpu-plugin.mlir %t.cpu-pw-opt.mlir
// RUN: FileCheck %s --check-prefix=CPU < %t.cpu-plugin.mlir
// The GPU binaries record how long translation took: that property aside,
// the outputs are identical.
// RUN: mlir-opt %s --load-dialect-plugin=%pointwise_plugin --load-pass-plugin=%pointwise_plugin -p 'builtin.module(pw-gpu-pipeline{format=isa})' | sed -e 's/LLVMIRToISATimeInMs = [0-9]*/T/' > %t.gpu-plugin.mlir
// RUN: pw-opt %s --pw-gpu-pipeline=format=isa | sed -e 's/LLVMIRToISATimeInMs = [0-9]*/T/' > %t.gpu-pw-opt.mlir
// RUN: diff %t.gpu-plugin.mlir %t.gpu-pw-opt.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.gpu-plugin.mlir
// Each pass runs on its own too.
// RUN: mlir-opt %s --load-dialect-plugin=%pointwise_plugin --load-pass-plugin=%pointwise_plugin -p 'builtin.module(pw-canonicalize-broadcast,pw-coalesce-dims,pw-lower-to-loops)' | FileCheck %s --check-prefix=LOOPS

// NO-PLUGIN: error: Dialect `pointwise' not found for custom op 'pointwise.map'

// PARSE-LABEL: func.func @scale
// PARSE: pointwise.map ins(%{{.*}}, %{{.*}} : memref<?xf32>, f32) outs(%{{.*}} : memref<?xf32>)

// CPU-LABEL: llvm.func @scale
// CPU: llvm.fmul
// CPU-NOT: pointwise.map

// GPU: llvm.func @scale
// GPU: gpu.launch_func @scale_kernel
// GPU: gpu.binary @scale_kernel

// LOOPS-LABEL: func.func @scale
// LOOPS: scf.for
// LOOPS: arith.mulf
// LOOPS-NOT: pointwise.map

func.func @scale(%x: memref<?xf32>, %s: f32, %y: memref<?xf32>) {
  pointwise.map ins(%x, %s : memref<?xf32>, f32) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = arith.mulf %a, %b : f32
    pointwise.yield %0 : f32
  }
  return
}
