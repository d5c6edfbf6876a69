// arith.sitofp to bf16 converts to f32 first, as PyTorch's int32 -> bfloat16
// does (c10::BFloat16 is made from a float), so 16842753 = 2^24 + 2^16 + 1
// is rounded twice: to the f32 2^24 + 2^16, then, a tie, to the even bf16
// 2^24 = 16777216. Rounded once it would be 2^24 + 2^17 = 16908288. Its
// neighbours, which f32 holds exactly, round once either way.
// RUN: pw-run %s --fill=iota --arg 3 --arg 3 --print --check | FileCheck %s
// RUN: pw-run %s --fill=iota --arg 3 --arg 3 --print --lowering=tiled | FileCheck %s
// CHECK: argument #1 (3@1+0 xbf16):
// CHECK-NEXT: [16777216, 16777216, 16908288]

func.func @to_bf16(%a: memref<?xi32>, %c: memref<?xbf16>) {
  pointwise.map ins(%a : memref<?xi32>) outs(%c : memref<?xbf16>) {
  ^bb0(%i: i32):
    %base = arith.constant 16842752 : i32
    %x = arith.addi %i, %base : i32
    %h = arith.sitofp %x : i32 to bf16
    pointwise.yield %h : bf16
  }
  return
}
