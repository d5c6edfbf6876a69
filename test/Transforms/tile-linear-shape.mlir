// The linear strategy's block size and vector bytes: by default (both 0)
// 8-byte vectors in blocks of 256 threads for rank-1 maps whose memref
// operands all have 4-byte elements, 16-byte vectors in blocks of 128
// threads for every other map (docs/Performance.md, row `linear-shape`); each
// option given explicitly is kept.
// RUN: pw-opt %s --split-input-file --pw-tile | FileCheck %s --check-prefixes=CHECK,AUTO
// RUN: pw-opt %s --split-input-file --pw-tile="block-size=128 vector-bytes=16" | FileCheck %s --check-prefixes=CHECK,FIXED
// RUN: pw-opt %s --split-input-file --pw-tile=block-size=64 | FileCheck %s --check-prefixes=CHECK,SIXTYFOUR

// CHECK-LABEL: func @rank1_f32
// CHECK: scf.parallel
// AUTO: %[[THREADS:.*]] = arith.constant 256 : index
// FIXED: %[[THREADS:.*]] = arith.constant 128 : index
// SIXTYFOUR: %[[THREADS:.*]] = arith.constant 64 : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[THREADS]])
// AUTO: vector.load %{{.*}} {alignment = 8 : i64} : memref<{{.*}}xf32>, vector<2xf32>
// FIXED: vector.load %{{.*}} {alignment = 16 : i64} : memref<{{.*}}xf32>, vector<4xf32>
// SIXTYFOUR: vector.load %{{.*}} {alignment = 8 : i64} : memref<{{.*}}xf32>, vector<2xf32>
// CHECK: pointwise.strategy = "linear"
func.func @rank1_f32(%a: memref<?xf32>, %b: memref<?xi32>, %c: memref<?xf32>) {
  pointwise.map ins(%a, %b : memref<?xf32>, memref<?xi32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %y: i32):
    %0 = arith.sitofp %y : i32 to f32
    %1 = arith.addf %x, %0 : f32
    pointwise.yield %1 : f32
  }
  return
}

// -----

// 2-byte elements keep 16-byte vectors (8 halves) in blocks of 128.
// CHECK-LABEL: func @rank1_f16
// CHECK: scf.parallel
// AUTO: %[[THREADS:.*]] = arith.constant 128 : index
// FIXED: %[[THREADS:.*]] = arith.constant 128 : index
// SIXTYFOUR: %[[THREADS:.*]] = arith.constant 64 : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[THREADS]])
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<{{.*}}xf16>, vector<8xf16>
func.func @rank1_f16(%a: memref<?xf16>, %c: memref<?xf16>) {
  pointwise.map ins(%a : memref<?xf16>) outs(%c : memref<?xf16>) {
  ^bb0(%x: f16):
    %0 = arith.negf %x : f16
    pointwise.yield %0 : f16
  }
  return
}

// -----

// Mixed element sizes (bf16 and f32) keep 16 bytes of the widest.
// CHECK-LABEL: func @rank1_bf16_f32
// CHECK: scf.parallel
// AUTO: %[[THREADS:.*]] = arith.constant 128 : index
// FIXED: %[[THREADS:.*]] = arith.constant 128 : index
// SIXTYFOUR: %[[THREADS:.*]] = arith.constant 64 : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[THREADS]])
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<{{.*}}xbf16>, vector<4xbf16>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<{{.*}}xf32>, vector<4xf32>
func.func @rank1_bf16_f32(%a: memref<?xbf16>, %b: memref<?xf32>, %c: memref<?xf32>) {
  pointwise.map ins(%a, %b : memref<?xbf16>, memref<?xf32>) outs(%c : memref<?xf32>) {
  ^bb0(%x: bf16, %y: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.addf %0, %y : f32
    pointwise.yield %1 : f32
  }
  return
}

// -----

// Rank 2 (a broadcast row) keeps 16-byte vectors in blocks of 128.
// CHECK-LABEL: func @rank2_f32
// CHECK: scf.parallel
// AUTO: %[[THREADS:.*]] = arith.constant 128 : index
// FIXED: %[[THREADS:.*]] = arith.constant 128 : index
// SIXTYFOUR: %[[THREADS:.*]] = arith.constant 64 : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[THREADS]])
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<{{.*}}xf32>, vector<4xf32>
func.func @rank2_f32(%a: memref<?x?xf32>, %r: memref<?x?xf32, strided<[0, 1]>>, %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %r : memref<?x?xf32>, memref<?x?xf32, strided<[0, 1]>>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// The general strategy takes 128 threads by default.
// CHECK-LABEL: func @rank1_general
// CHECK: scf.parallel
// AUTO: %[[THREADS:.*]] = arith.constant 128 : index
// FIXED: %[[THREADS:.*]] = arith.constant 128 : index
// SIXTYFOUR: %[[THREADS:.*]] = arith.constant 64 : index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[THREADS]])
// CHECK: pointwise.strategy = "general"
func.func @rank1_general(%a: memref<64xf32, strided<[2]>>, %c: memref<64xf32>) {
  pointwise.map ins(%a : memref<64xf32, strided<[2]>>) outs(%c : memref<64xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
