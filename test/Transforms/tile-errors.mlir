// pw-tile rejects options and inputs it cannot honor with a diagnostic.
// RUN: not pw-opt %s --pw-tile=strategy=diagonal 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not pw-opt %s --pw-tile=index-bitwidth=16 2>&1 | FileCheck %s --check-prefix=BITWIDTH
// RUN: not pw-opt %s --pw-tile=unroll=-1 2>&1 | FileCheck %s --check-prefix=UNROLL
// RUN: not pw-opt %s --pw-tile=unroll=17 2>&1 | FileCheck %s --check-prefix=UNROLL-HIGH
// RUN: not pw-opt %s --pw-tile=block-size=-1 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not pw-opt %s --pw-tile=block-size=9223372036854775807 2>&1 | FileCheck %s --check-prefix=BLOCK-HIGH
// RUN: not pw-opt %s --pw-tile=vector-bytes=12 2>&1 | FileCheck %s --check-prefix=VECTOR
// RUN: not pw-opt %s --pw-tile=vector-bytes=64 2>&1 | FileCheck %s --check-prefix=VECTOR-HIGH
// RUN: not pw-opt %s --pw-canonicalize-broadcast --pw-tile=strategy=linear 2>&1 | FileCheck %s --check-prefix=LINEAR
// RUN: not pw-opt %s --pw-canonicalize-broadcast --pw-tile=strategy=transpose 2>&1 | FileCheck %s --check-prefix=TRANSPOSE

// STRATEGY: for the --strategy option: Cannot find option named 'diagonal'!
// BITWIDTH: pw-tile: index-bitwidth must be 0, 32 or 64, got 16
// UNROLL: pw-tile: unroll must be 1 to 16, or 0 to decide per map, got -1
// UNROLL-HIGH: pw-tile: unroll must be 1 to 16, or 0 to decide per map, got 17
// BLOCK: pw-tile: block-size must be 1 to 1024 (threads per block), or 0 to decide per map, got -1
// BLOCK-HIGH: pw-tile: block-size must be 1 to 1024 (threads per block), or 0 to decide per map, got 9223372036854775807
// VECTOR: pw-tile: vector-bytes must be a power of two up to 32, or 0 to decide per map, got 12
// VECTOR-HIGH: pw-tile: vector-bytes must be a power of two up to 32, or 0 to decide per map, got 64
// LINEAR: the linear strategy needs stride 1 or 0 along the last dim of every memref operand
// TRANSPOSE: the transpose strategy needs outputs contiguous along the last dim and an input contiguous along another dim
func.func @row_over_transposed(%r: memref<4xf32>, %ct: memref<3x4xf32, strided<[1, 3]>>) {
  pointwise.map ins(%r : memref<4xf32>) outs(%ct : memref<3x4xf32, strided<[1, 3]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
