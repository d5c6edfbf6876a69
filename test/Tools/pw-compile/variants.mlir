// pw-compile turns a function into a family of variants: every memref at one
// rank (1 .. the iteration rank), dynamic sizes, strides and offset, per
// index bitwidth; transpose variants fix stride 1 along the outputs' last
// dim and along dim rank-2 of one input. Maps of 4-byte elements also get a
// linear-narrow variant (8-byte vectors) at ranks >= 2.
// RUN: pw-compile %s -o %t.mlir --quiet
// RUN: FileCheck %s < %t.mlir
// 64-bit variants only when asked for.
// RUN: pw-compile %s -o %t.wide.mlir --quiet --index-bitwidths=32,64
// RUN: FileCheck %s --check-prefix=WIDE < %t.wide.mlir
// RUN: pw-compile %s -o %t.few.mlir --quiet --transpose=false --index-bitwidths=64
// RUN: FileCheck %s --check-prefix=FEW < %t.few.mlir
// A bitwidth given twice builds its variants once.
// RUN: pw-compile %s -o %t.dup.mlir --quiet --transpose=false --index-bitwidths=32,32
// RUN: FileCheck %s --check-prefix=DUP < %t.dup.mlir

// CHECK-NOT: func.func @axpy(
// CHECK-LABEL: func.func @axpy__r1_i32_linear(
// CHECK-SAME: %{{.*}}: memref<?xf32, strided<[?], offset: ?>>, %{{.*}}: memref<?xf32, strided<[?], offset: ?>>, %{{.*}}: f32, %{{.*}}: memref<?xf32, strided<[?], offset: ?>>)
// CHECK-SAME: pointwise.broadcast_resolved, pointwise.tile_index_bitwidth = 32 : i64, pointwise.tile_strategy = "linear"
// CHECK: pointwise.map
// CHECK-LABEL: func.func @axpy__r2_i32_linear(
// CHECK-SAME: memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NOT: tile_vector_bytes
// CHECK-LABEL: func.func @axpy__r2_i32_linear_narrow(
// CHECK-SAME: memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-SAME: pointwise.tile_strategy = "linear", pointwise.tile_vector_bytes = 8 : i64
// CHECK-LABEL: func.func @axpy__r2_i32_transpose0(
// CHECK-SAME: %{{.*}}: memref<?x?xf32, strided<[1, ?], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, ?], offset: ?>>, %{{.*}}: f32, %{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>)
// CHECK-SAME: pointwise.tile_strategy = "transpose"
// CHECK-LABEL: func.func @axpy__r2_i32_transpose1(
// CHECK-SAME: %{{.*}}: memref<?x?xf32, strided<[?, ?], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[1, ?], offset: ?>>, %{{.*}}: f32, %{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>)
// CHECK-NOT: func.func

// WIDE-NOT: func.func @axpy(
// WIDE-LABEL: func.func @axpy__r1_i32_linear(
// WIDE-LABEL: func.func @axpy__r1_i64_linear(
// WIDE-SAME: pointwise.tile_index_bitwidth = 64 : i64
// WIDE-LABEL: func.func @axpy__r2_i32_linear(
// WIDE-LABEL: func.func @axpy__r2_i32_linear_narrow(
// WIDE-LABEL: func.func @axpy__r2_i32_transpose0(
// WIDE-LABEL: func.func @axpy__r2_i32_transpose1(
// WIDE-LABEL: func.func @axpy__r2_i64_linear(
// WIDE-SAME: pointwise.tile_index_bitwidth = 64 : i64
// WIDE-LABEL: func.func @axpy__r2_i64_linear_narrow(
// WIDE-LABEL: func.func @axpy__r2_i64_transpose0(
// WIDE-LABEL: func.func @axpy__r2_i64_transpose1(
// WIDE-NOT: func.func

// FEW-COUNT-2: func.func @axpy__r{{[12]}}_i64_linear(
// FEW: func.func @axpy__r2_i64_linear_narrow(
// FEW-NOT: func.func

// DUP-COUNT-2: func.func @axpy__r{{[12]}}_i32_linear(
// DUP: func.func @axpy__r2_i32_linear_narrow(
// DUP-NOT: func.func

// No narrow variants: a forced vector width, another element size, the CPU.
// RUN: pw-compile %s -o %t.v16.mlir --quiet --vector-bytes=16
// RUN: FileCheck %s --check-prefix=NO-NARROW < %t.v16.mlir
// RUN: pw-compile %s -o %t.cpu.mlir --quiet --target=cpu
// RUN: FileCheck %s --check-prefix=NO-NARROW < %t.cpu.mlir
// RUN: sed -e 's/f32/f64/g' %s > %t.f64.mlir
// RUN: pw-compile %t.f64.mlir -o %t.f64.out.mlir --quiet
// RUN: FileCheck %s --check-prefix=NO-NARROW < %t.f64.out.mlir
// NO-NARROW: func.func @axpy__r2_
// NO-NARROW-NOT: narrow

// A row vector b broadcast over a 2-D a: all variants take b at rank 2 (the
// runtime passes it with a stride-0 dim).
func.func @axpy(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>,
                %b: memref<?xf32>, %alpha: f32, %c: memref<?x?xf32>) {
  pointwise.map ins(%a, %b, %alpha : memref<?x?xf32, strided<[?, ?], offset: ?>>,
                                     memref<?xf32>, f32)
                outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %0 = arith.mulf %y, %s : f32
    %1 = arith.addf %x, %0 : f32
    pointwise.yield %1 : f32
  }
  return
}
