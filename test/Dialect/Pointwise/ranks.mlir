// The iteration space may have any rank, from 0 up past 8, with static
// and dynamic sizes; lower-rank inputs broadcast into it.
// RUN: pw-opt %s | pw-opt | FileCheck %s

// CHECK-LABEL: func @rank_0
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<f32, strided<[], offset: ?>>, memref<f32>) outs(%{{.*}} : memref<f32>)
func.func @rank_0(%a: memref<f32, strided<[], offset: ?>>, %s: memref<f32>, %c: memref<f32>) {
  pointwise.map ins(%a, %s : memref<f32, strided<[], offset: ?>>, memref<f32>) outs(%c : memref<f32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @rank_1
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<?xf32, strided<[?], offset: ?>>, memref<f32>) outs(%{{.*}} : memref<?xf32>)
func.func @rank_1(%a: memref<?xf32, strided<[?], offset: ?>>, %s: memref<f32>, %c: memref<?xf32>) {
  pointwise.map ins(%a, %s : memref<?xf32, strided<[?], offset: ?>>, memref<f32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @rank_2
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<f32>) outs(%{{.*}} : memref<?x?xf32>)
func.func @rank_2(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %s: memref<f32>, %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %s : memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<f32>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @rank_3
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<f32>) outs(%{{.*}} : memref<?x?x?xf32>)
func.func @rank_3(%a: memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, %s: memref<f32>, %c: memref<?x?x?xf32>) {
  pointwise.map ins(%a, %s : memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<f32>) outs(%c : memref<?x?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @rank_4
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<f32>) outs(%{{.*}} : memref<?x?x?x?xf32>)
func.func @rank_4(%a: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, %s: memref<f32>, %c: memref<?x?x?x?xf32>) {
  pointwise.map ins(%a, %s : memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<f32>) outs(%c : memref<?x?x?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @rank_5
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<f32>) outs(%{{.*}} : memref<?x?x?x?x?xf32>)
func.func @rank_5(%a: memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, %s: memref<f32>, %c: memref<?x?x?x?x?xf32>) {
  pointwise.map ins(%a, %s : memref<?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?], offset: ?>>, memref<f32>) outs(%c : memref<?x?x?x?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @rank_6
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?], offset: ?>>, memref<f32>) outs(%{{.*}} : memref<?x?x?x?x?x?xf32>)
func.func @rank_6(%a: memref<?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?], offset: ?>>, %s: memref<f32>, %c: memref<?x?x?x?x?x?xf32>) {
  pointwise.map ins(%a, %s : memref<?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?], offset: ?>>, memref<f32>) outs(%c : memref<?x?x?x?x?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @rank_7
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<?x?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?, ?], offset: ?>>, memref<f32>) outs(%{{.*}} : memref<?x?x?x?x?x?x?xf32>)
func.func @rank_7(%a: memref<?x?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?, ?], offset: ?>>, %s: memref<f32>, %c: memref<?x?x?x?x?x?x?xf32>) {
  pointwise.map ins(%a, %s : memref<?x?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?, ?], offset: ?>>, memref<f32>) outs(%c : memref<?x?x?x?x?x?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @rank_8
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<?x?x?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?, ?, ?], offset: ?>>, memref<f32>) outs(%{{.*}} : memref<?x?x?x?x?x?x?x?xf32>)
func.func @rank_8(%a: memref<?x?x?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?, ?, ?], offset: ?>>, %s: memref<f32>, %c: memref<?x?x?x?x?x?x?x?xf32>) {
  pointwise.map ins(%a, %s : memref<?x?x?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?, ?, ?], offset: ?>>, memref<f32>) outs(%c : memref<?x?x?x?x?x?x?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @rank_12
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<?x?x?x?x?x?x?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?], offset: ?>>, memref<f32>) outs(%{{.*}} : memref<?x?x?x?x?x?x?x?x?x?x?x?xf32>)
func.func @rank_12(%a: memref<?x?x?x?x?x?x?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?], offset: ?>>, %s: memref<f32>, %c: memref<?x?x?x?x?x?x?x?x?x?x?x?xf32>) {
  pointwise.map ins(%a, %s : memref<?x?x?x?x?x?x?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?], offset: ?>>, memref<f32>) outs(%c : memref<?x?x?x?x?x?x?x?x?x?x?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// CHECK-LABEL: func @rank_8_static_with_rank_3_broadcast
// CHECK: pointwise.map ins(%{{.*}}, %{{.*}} : memref<2x1x3x1x2x5x1x4xi8>, memref<5x7x1xi8>) outs(%{{.*}} : memref<2x3x3x2x2x5x7x4xi8>)
func.func @rank_8_static_with_rank_3_broadcast(%a: memref<2x1x3x1x2x5x1x4xi8>,
                                               %b: memref<5x7x1xi8>,
                                               %c: memref<2x3x3x2x2x5x7x4xi8>) {
  pointwise.map ins(%a, %b : memref<2x1x3x1x2x5x1x4xi8>, memref<5x7x1xi8>)
                outs(%c : memref<2x3x3x2x2x5x7x4xi8>) {
  ^bb0(%x: i8, %y: i8):
    %0 = arith.muli %x, %y : i8
    pointwise.yield %0 : i8
  }
  return
}
