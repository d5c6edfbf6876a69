// Tensor arith and math ops lowered by upstream's
// convert-elementwise-to-linalg become maps, and compute what upstream's own
// lowering of those linalg ops computes.
// RUN: pw-opt %s --pass-pipeline='builtin.module(func.func(convert-elementwise-to-linalg),pw-convert-linalg-to-pointwise)' | FileCheck %s
// RUN: pw-opt %s --pass-pipeline='builtin.module(func.func(convert-elementwise-to-linalg),pw-convert-linalg-to-pointwise)' -o %t.maps.mlir
// RUN: pw-opt %s --pass-pipeline='builtin.module(func.func(convert-elementwise-to-linalg),one-shot-bufferize{bufferize-function-boundaries},buffer-deallocation-pipeline,convert-bufferization-to-memref,func.func(convert-linalg-to-loops))' -o %t.loops.mlir
// RUN: pw-run %t.maps.mlir --arg 5x3 --arg 5x3 --arg 5x3 --seed 3 --print > %t.maps.txt
// RUN: pw-run %t.loops.mlir --arg 5x3 --arg 5x3 --arg 5x3 --seed 3 --print > %t.loops.txt
// RUN: diff %t.maps.txt %t.loops.txt
// RUN: FileCheck %s --check-prefix=VALUES < %t.maps.txt

// CHECK-LABEL: func @select_of_exp
// CHECK-NOT: linalg.
// CHECK-COUNT-4: pointwise.map
// CHECK-NOT: linalg.
// VALUES: result #0 (5x3@3,1+0 xf32):
// VALUES: result #1 (5x3@3,1+0 xi1):
func.func @select_of_exp(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xi1>) {
  %0 = math.exp %a : tensor<?x?xf32>
  %1 = arith.mulf %0, %b : tensor<?x?xf32>
  %2 = arith.cmpf olt, %1, %c : tensor<?x?xf32>
  %3 = arith.select %2, %1, %c : tensor<?x?xi1>, tensor<?x?xf32>
  return %3, %2 : tensor<?x?xf32>, tensor<?x?xi1>
}
