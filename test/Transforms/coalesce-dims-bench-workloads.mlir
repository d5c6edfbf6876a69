// The coalesced rank of every workload in the benchmark suite (the same
// shapes and strides as benchmarks' peers.py), as pw-coalesce-dims computes
// it at compile time and the runtime computes it at run time.
// RUN: pw-opt %s --pw-coalesce-dims | FileCheck %s

// CHECK-LABEL: func @add_contig_f32
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<67108864xf32>, memref<67108864xf32>) outs(%{{.*}} : memref<67108864xf32>)
func.func @add_contig_f32(%a: memref<67108864xf32>, %b: memref<67108864xf32>, %c: memref<67108864xf32>) {
  pointwise.map ins(%a, %b : memref<67108864xf32>, memref<67108864xf32>) outs(%c : memref<67108864xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @axpy_scalar_f32
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<67108864xf32>, memref<67108864xf32>, f32) outs(%{{.*}} : memref<67108864xf32>)
func.func @axpy_scalar_f32(%x: memref<67108864xf32>, %y: memref<67108864xf32>, %s: f32, %c: memref<67108864xf32>) {
  pointwise.map ins(%x, %y, %s : memref<67108864xf32>, memref<67108864xf32>, f32) outs(%c : memref<67108864xf32>) {
  ^bb0(%a: f32, %b: f32, %alpha: f32):
    %0 = arith.mulf %a, %alpha : f32
    %1 = arith.addf %0, %b : f32
    pointwise.yield %1 : f32
  }
  return
}

// Rank 2: the row vector repeats with stride 0 along the rows.
// CHECK-LABEL: func @bcast_row_f32
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<8192x8192xf32>, memref<8192x8192xf32, strided<[0, 1]>>) outs(%{{.*}} : memref<8192x8192xf32>)
func.func @bcast_row_f32(%a: memref<8192x8192xf32>, %r: memref<8192xf32>, %c: memref<8192x8192xf32>) {
  pointwise.map ins(%a, %r : memref<8192x8192xf32>, memref<8192xf32>) outs(%c : memref<8192x8192xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @bcast_col_f32
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<8192x8192xf32>, memref<8192x8192xf32, strided<[1, 0]>>) outs(%{{.*}} : memref<8192x8192xf32>)
func.func @bcast_col_f32(%a: memref<8192x8192xf32>, %col: memref<8192x1xf32>, %c: memref<8192x8192xf32>) {
  pointwise.map ins(%a, %col : memref<8192x8192xf32>, memref<8192x1xf32>) outs(%c : memref<8192x8192xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// Rank 2: the operands disagree on the fastest dim (tiled transpose).
// CHECK-LABEL: func @add_transposed_f32
// CHECK-NOT: memref.reinterpret_cast
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<8192x8192xf32>, memref<8192x8192xf32, strided<[1, 8192]>>) outs(%{{.*}} : memref<8192x8192xf32>)
func.func @add_transposed_f32(%a: memref<8192x8192xf32>, %bt: memref<8192x8192xf32, strided<[1, 8192]>>, %c: memref<8192x8192xf32>) {
  pointwise.map ins(%a, %bt : memref<8192x8192xf32>, memref<8192x8192xf32, strided<[1, 8192]>>) outs(%c : memref<8192x8192xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @transpose_copy_f32
// CHECK: pointwise.map ins(%{{.*}} : memref<8192x8192xf32, strided<[1, 8192]>>) outs(%{{.*}} : memref<8192x8192xf32>)
func.func @transpose_copy_f32(%bt: memref<8192x8192xf32, strided<[1, 8192]>>, %c: memref<8192x8192xf32>) {
  pointwise.map ins(%bt : memref<8192x8192xf32, strided<[1, 8192]>>) outs(%c : memref<8192x8192xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// Rank 3: a batch of 32 transposes of 256 x 3136.
// CHECK-LABEL: func @nchw_plus_nhwc_f32
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<32x256x3136xf32, strided<[802816, 3136, 1]>>, memref<32x256x3136xf32, strided<[802816, 1, 256]>>) outs(%{{.*}} : memref<32x256x3136xf32, strided<[802816, 3136, 1]>>)
func.func @nchw_plus_nhwc_f32(%x: memref<32x256x56x56xf32>, %y: memref<32x256x56x56xf32, strided<[802816, 1, 14336, 256]>>, %c: memref<32x256x56x56xf32>) {
  pointwise.map ins(%x, %y : memref<32x256x56x56xf32>, memref<32x256x56x56xf32, strided<[802816, 1, 14336, 256]>>) outs(%c : memref<32x256x56x56xf32>) {
  ^bb0(%a: f32, %b: f32):
    %0 = arith.addf %a, %b : f32
    pointwise.yield %0 : f32
  }
  return
}

// Rank 1: every other column of a 8192 x 16384 matrix is a uniform step of 2.
// CHECK-LABEL: func @strided_slice_f32
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<67108864xf32, strided<[2]>>, memref<67108864xf32, strided<[1]>>) outs(%{{.*}} : memref<67108864xf32, strided<[1]>>)
func.func @strided_slice_f32(%a: memref<8192x8192xf32, strided<[16384, 2]>>, %b: memref<8192x8192xf32>, %c: memref<8192x8192xf32>) {
  pointwise.map ins(%a, %b : memref<8192x8192xf32, strided<[16384, 2]>>, memref<8192x8192xf32>) outs(%c : memref<8192x8192xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// Rank 1 with stride -1 from the last element.
// CHECK-LABEL: func @flip_f32
// CHECK: pointwise.map ins(%{{.*}} : memref<67108864xf32, strided<[-1], offset: 67108863>>) outs(%{{.*}} : memref<67108864xf32, strided<[1]>>)
func.func @flip_f32(%x: memref<8192x8192xf32, strided<[-8192, -1], offset: 67108863>>, %c: memref<8192x8192xf32>) {
  pointwise.map ins(%x : memref<8192x8192xf32, strided<[-8192, -1], offset: 67108863>>) outs(%c : memref<8192x8192xf32>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// CHECK-LABEL: func @gelu_tanh_f16
// CHECK: pointwise.map ins(%{{.*}} : memref<134217728xf16>) outs(%{{.*}} : memref<134217728xf16>)
func.func @gelu_tanh_f16(%x: memref<134217728xf16>, %c: memref<134217728xf16>) {
  pointwise.map ins(%x : memref<134217728xf16>) outs(%c : memref<134217728xf16>) {
  ^bb0(%a: f16):
    %f = arith.extf %a : f16 to f32
    %0 = math.tanh %f : f32
    %1 = arith.truncf %0 : f32 to f16
    pointwise.yield %1 : f16
  }
  return
}

// CHECK-LABEL: func @add_bf16_f32_promote
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<67108864xbf16>, memref<67108864xf32>) outs(%{{.*}} : memref<67108864xf32>)
func.func @add_bf16_f32_promote(%a: memref<67108864xbf16>, %b: memref<67108864xf32>, %c: memref<67108864xf32>) {
  pointwise.map ins(%a, %b : memref<67108864xbf16>, memref<67108864xf32>) outs(%c : memref<67108864xf32>) {
  ^bb0(%x: bf16, %y: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.addf %0, %y : f32
    pointwise.yield %1 : f32
  }
  return
}

// Rank 3: base[:, :, 1:, :, :-1] of 8x16x33x64x65 merges (8, 16) and
// (32, 64); the last dim keeps its gap of one element per row.
// CHECK-LABEL: func @rank5_sliced_scalar_f32
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<128x2048x64xf32, strided<[137280, 65, 1], offset: 4160>>, f32, f32) outs(%{{.*}} : memref<128x2048x64xf32, strided<[131072, 64, 1]>>)
func.func @rank5_sliced_scalar_f32(%x: memref<8x16x32x64x64xf32, strided<[2196480, 137280, 4160, 65, 1], offset: 4160>>, %s: f32, %t: f32, %c: memref<8x16x32x64x64xf32>) {
  pointwise.map ins(%x, %s, %t : memref<8x16x32x64x64xf32, strided<[2196480, 137280, 4160, 65, 1], offset: 4160>>, f32, f32) outs(%c : memref<8x16x32x64x64xf32>) {
  ^bb0(%a: f32, %scale: f32, %shift: f32):
    %0 = arith.mulf %a, %scale : f32
    %1 = arith.addf %0, %shift : f32
    pointwise.yield %1 : f32
  }
  return
}

// CHECK-LABEL: func @polar_2out_f32
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<67108864xf32>, memref<67108864xf32>) outs(%{{.*}}, %{{.*}} : memref<67108864xf32>, memref<67108864xf32>)
func.func @polar_2out_f32(%r: memref<67108864xf32>, %t: memref<67108864xf32>, %x: memref<67108864xf32>, %y: memref<67108864xf32>) {
  pointwise.map ins(%r, %t : memref<67108864xf32>, memref<67108864xf32>) outs(%x, %y : memref<67108864xf32>, memref<67108864xf32>) {
  ^bb0(%rr: f32, %th: f32):
    %c = math.cos %th : f32
    %s = math.sin %th : f32
    %0 = arith.mulf %rr, %c : f32
    %1 = arith.mulf %rr, %s : f32
    pointwise.yield %0, %1 : f32, f32
  }
  return
}
