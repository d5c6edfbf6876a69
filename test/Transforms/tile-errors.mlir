// pw-tile rejects options and inputs it cannot honor with a diagnostic.
// RUN: not pw-opt %s --pw-tile=strategy=diagonal 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: not pw-opt %s --pw-tile=index-bitwidth=16 2>&1 | FileCheck %s --check-prefix=BITWIDTH
// RUN: not pw-opt %s --pw-tile=unroll=-1 2>&1 | FileCheck %s --check-prefix=UNROLL
// RUN: not pw-opt %s --pw-tile=block-size=-1 2>&1 | FileCheck %s --check-prefix=POSITIVE
// RUN: not pw-opt %s --pw-tile 2>&1 | FileCheck %s --check-prefix=CANONICAL
// RUN: not pw-opt %s --pw-canonicalize-broadcast --pw-tile=strategy=linear 2>&1 | FileCheck %s --check-prefix=LINEAR
// RUN: not pw-opt %s --pw-canonicalize-broadcast --pw-tile=strategy=transpose 2>&1 | FileCheck %s --check-prefix=TRANSPOSE

// STRATEGY: pw-tile: unknown strategy 'diagonal'; expected auto, linear, transpose or general
// BITWIDTH: pw-tile: index-bitwidth must be 0, 32 or 64, got 16
// UNROLL: pw-tile: unroll must be positive, or 0 to decide per map, got -1
// POSITIVE: pw-tile: block-size and vector-bytes must be positive, or 0 to decide per map
// CANONICAL: pw-tile needs every memref input at the iteration rank; run pw-canonicalize-broadcast first
// LINEAR: the linear strategy needs stride 1 or 0 along the last dim of every memref operand
// TRANSPOSE: the transpose strategy needs outputs contiguous along the last dim and an input contiguous along another dim
func.func @row_over_transposed(%r: memref<4xf32>, %ct: memref<3x4xf32, strided<[1, 3]>>) {
  pointwise.map ins(%r : memref<4xf32>) outs(%ct : memref<3x4xf32, strided<[1, 3]>>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
