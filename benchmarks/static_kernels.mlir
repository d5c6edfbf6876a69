// The same maps with static and with dynamic layouts, for
// benchmarks/static_kernels_ab.sh: pw-gpu-pipeline's kernels for static
// types (sizes, strides and offsets as immediates, the strategy and vector
// width chosen at compile time) against those for fully dynamic ones.

!dyn2f32 = memref<?x?xf32, strided<[?, ?], offset: ?>>
!dyn2f16 = memref<?x?xf16, strided<[?, ?], offset: ?>>

func.func @add_static(%a: memref<8192x8192xf32>, %b: memref<8192x8192xf32>, %c: memref<8192x8192xf32>) {
  pointwise.map ins(%a, %b : memref<8192x8192xf32>, memref<8192x8192xf32>) outs(%c : memref<8192x8192xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @add_dynamic(%a: !dyn2f32, %b: !dyn2f32, %c: !dyn2f32) {
  pointwise.map ins(%a, %b : !dyn2f32, !dyn2f32) outs(%c : !dyn2f32) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @add_transposed_static(%a: memref<8192x8192xf32, strided<[1, 8192]>>, %b: memref<8192x8192xf32>, %c: memref<8192x8192xf32>) {
  pointwise.map ins(%a, %b : memref<8192x8192xf32, strided<[1, 8192]>>, memref<8192x8192xf32>) outs(%c : memref<8192x8192xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @row_slice_static(%a: memref<8192x8000xf32, strided<[8192, 1]>>, %b: memref<8192x8000xf32>, %c: memref<8192x8000xf32>) {
  pointwise.map ins(%a, %b : memref<8192x8000xf32, strided<[8192, 1]>>, memref<8192x8000xf32>) outs(%c : memref<8192x8000xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

func.func @add_f16_static(%a: memref<8192x8192xf16>, %b: memref<8192x8192xf16>, %c: memref<8192x8192xf16>) {
  pointwise.map ins(%a, %b : memref<8192x8192xf16>, memref<8192x8192xf16>) outs(%c : memref<8192x8192xf16>) {
  ^bb0(%x: f16, %y: f16):
    %0 = arith.addf %x, %y : f16
    pointwise.yield %0 : f16
  }
  return
}

func.func @add_f16_dynamic(%a: !dyn2f16, %b: !dyn2f16, %c: !dyn2f16) {
  pointwise.map ins(%a, %b : !dyn2f16, !dyn2f16) outs(%c : !dyn2f16) {
  ^bb0(%x: f16, %y: f16):
    %0 = arith.addf %x, %y : f16
    pointwise.yield %0 : f16
  }
  return
}
