// A forced index-bitwidth=32 on a static layout whose offsets need 64 bits
// is an error, not a truncated stride.
// RUN: not pw-opt %s --pw-tile=index-bitwidth=32 2>&1 | FileCheck %s

// CHECK: error: 'pointwise.map' op index-bitwidth=32 cannot address this map's operands: their static sizes, strides and offsets reach element offsets beyond 32 bits
// CHECK-NOT: error:
func.func @stride_of_two_to_the_32(%a: memref<2xi8, strided<[4294967296]>>, %c: memref<2xi8>) {
  pointwise.map ins(%a : memref<2xi8, strided<[4294967296]>>) outs(%c : memref<2xi8>) {
  ^bb0(%x: i8):
    pointwise.yield %x : i8
  }
  return
}

