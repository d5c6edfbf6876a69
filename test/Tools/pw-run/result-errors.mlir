// Results pw-run cannot take, and tensor programs on --target=cuda
// --gpu-path=family, are errors that say why.
// RUN: not pw-run %s --entry scalar_result --arg 4 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: pw-run: entry 'scalar_result' returns a f32 as result #0; pw-run takes results that are ranked tensors or memrefs
// RUN: not pw-run %s --entry tensor_program --target=cuda --gpu-path=family --arg 4 2>&1 | FileCheck %s --check-prefix=CUDA
// CUDA: pw-run: entry 'tensor_program' takes or returns tensors or returns memrefs; --gpu-path=family runs kernel families, whose outputs are memref arguments (--gpu-path=pipeline runs tensor programs)
// RUN: not pw-run %s --entry tensor_program --gpu-path=family --arg 4 2>&1 | FileCheck %s --check-prefix=PATH
// PATH: pw-run: --gpu-path needs --target=cuda

func.func @scalar_result(%a: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<4xf32>
  return %x : f32
}

func.func @tensor_program(%a: tensor<?xf32>) -> tensor<?xf32> {
  %r = pointwise.map ins(%a : tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
