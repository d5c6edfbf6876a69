// TOSA elementwise ops lowered by upstream's tosa-to-linalg convert to maps,
// broadcasts included, and compute what upstream's own lowering of the
// linalg ops computes.
// RUN: pw-opt %s --pass-pipeline='builtin.module(func.func(tosa-to-linalg),pw-convert-linalg-to-pointwise,canonicalize)' | FileCheck %s
// RUN: pw-opt %s --pass-pipeline='builtin.module(func.func(tosa-to-linalg),pw-convert-linalg-to-pointwise)' -o %t.maps.mlir
// RUN: pw-opt %s --pass-pipeline='builtin.module(func.func(tosa-to-linalg),one-shot-bufferize{bufferize-function-boundaries},buffer-deallocation-pipeline,convert-bufferization-to-memref,func.func(convert-linalg-to-loops))' -o %t.loops.mlir
// RUN: pw-run %t.maps.mlir --arg 3x4 --arg 1x4 --arg 3x1 --seed 7 --print > %t.maps.txt
// RUN: pw-run %t.loops.mlir --arg 3x4 --arg 1x4 --arg 3x1 --seed 7 --print > %t.loops.txt
// RUN: diff %t.maps.txt %t.loops.txt
// RUN: FileCheck %s --check-prefix=VALUES < %t.maps.txt

// CHECK-LABEL: func @tosa_chain
// CHECK-NOT: linalg.
// CHECK: pointwise.map
// CHECK-NOT: linalg.
// VALUES: result #0 (3x4@4,1+0 xf32):
func.func @tosa_chain(%a: tensor<3x4xf32>, %b: tensor<1x4xf32>, %c: tensor<3x1xf32>) -> tensor<3x4xf32> {
  %0 = tosa.add %a, %b : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  %1 = tosa.tanh %0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %2 = tosa.mul %1, %c, %shift : (tensor<3x4xf32>, tensor<3x1xf32>, tensor<1xi8>) -> tensor<3x4xf32>
  %3 = tosa.clamp %2 {min_val = -0.5 : f32, max_val = 0.5 : f32} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %4 = tosa.abs %3 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %5 = tosa.sub %4, %a : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %5 : tensor<3x4xf32>
}
