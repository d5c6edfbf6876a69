// f16 and bf16 maps compute in f32 and round when they store (opmath), so
// an intermediate f16 tensor rounds each element once. pw-fuse-maps keeps
// that rounding: the producer's body is computed in f32 explicitly and
// rounded to its element type before the consumer reads it, as -truncf(-v),
// which canonicalization keeps (it folds a plain truncf of a sitofp or
// uitofp into a narrower conversion, which the body would not round).
// RUN: pw-opt %s --split-input-file --pw-fuse-maps | FileCheck %s
// RUN: pw-opt %s --split-input-file --pw-fuse-maps --canonicalize | FileCheck %s

// CHECK-LABEL: func @f16_chain
// CHECK-SAME: (%[[A:.*]]: tensor<8xf16>, %[[B:.*]]: tensor<8xf16>, %[[C:.*]]: tensor<8xf16>)
// CHECK: pointwise.map ins(%[[C]], %[[A]], %[[B]] : tensor<8xf16>, tensor<8xf16>, tensor<8xf16>)
// CHECK-NEXT: ^bb0(%[[Z:.*]]: f16, %[[X:.*]]: f16, %[[Y:.*]]: f16):
// CHECK-DAG:   %[[XE:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-DAG:   %[[YE:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK:       %[[S:.*]] = arith.addf %[[XE]], %[[YE]] : f32
// CHECK-NEXT:  %[[NS:.*]] = arith.negf %[[S]] : f32
// CHECK-NEXT:  %[[NR:.*]] = arith.truncf %[[NS]] : f32 to f16
// CHECK-NEXT:  %[[R:.*]] = arith.negf %[[NR]] : f16
// CHECK-NEXT:  %[[M:.*]] = arith.mulf %[[R]], %[[Z]] : f16
// CHECK-NEXT:  pointwise.yield %[[M]] : f16
func.func @f16_chain(%a: tensor<8xf16>, %b: tensor<8xf16>, %c: tensor<8xf16>) -> tensor<8xf16> {
  %e = tensor.empty() : tensor<8xf16>
  %p = pointwise.map ins(%a, %b : tensor<8xf16>, tensor<8xf16>) outs(%e : tensor<8xf16>) {
  ^bb0(%x: f16, %y: f16):
    %0 = arith.addf %x, %y : f16
    pointwise.yield %0 : f16
  } -> tensor<8xf16>
  %q = pointwise.map ins(%p, %c : tensor<8xf16>, tensor<8xf16>) outs(%e : tensor<8xf16>) {
  ^bb0(%x: f16, %z: f16):
    %0 = arith.mulf %x, %z : f16
    pointwise.yield %0 : f16
  } -> tensor<8xf16>
  return %q : tensor<8xf16>
}

// -----

// A bf16 result that the consumer only widens is still rounded to bf16
// first, as the stored tensor was.
// CHECK-LABEL: func @bf16_widened
// CHECK-SAME: (%[[A:.*]]: tensor<8xbf16>)
// CHECK: pointwise.map ins(%[[A]] : tensor<8xbf16>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: bf16):
// CHECK-NEXT:   %[[XE:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT:   %[[E:.*]] = math.exp %[[XE]] : f32
// CHECK-NEXT:   %[[NE:.*]] = arith.negf %[[E]] : f32
// CHECK-NEXT:   %[[NR:.*]] = arith.truncf %[[NE]] : f32 to bf16
// CHECK-NEXT:   %[[R:.*]] = arith.negf %[[NR]] : bf16
// CHECK-NEXT:   %[[W:.*]] = arith.extf %[[R]] : bf16 to f64
// CHECK-NEXT:   pointwise.yield %[[W]] : f64
func.func @bf16_widened(%a: tensor<8xbf16>) -> tensor<8xf64> {
  %e = tensor.empty() : tensor<8xbf16>
  %p = pointwise.map ins(%a : tensor<8xbf16>) outs(%e : tensor<8xbf16>) {
  ^bb0(%x: bf16):
    %0 = math.exp %x : bf16
    pointwise.yield %0 : bf16
  } -> tensor<8xbf16>
  %f = tensor.empty() : tensor<8xf64>
  %q = pointwise.map ins(%p : tensor<8xbf16>) outs(%f : tensor<8xf64>) {
  ^bb0(%x: bf16):
    %0 = arith.extf %x : bf16 to f64
    pointwise.yield %0 : f64
  } -> tensor<8xf64>
  return %q : tensor<8xf64>
}

// -----

// An integer converted to bf16 by the producer: the rounding stays after
// canonicalization.
// CHECK-LABEL: func @converted_integer
// CHECK-SAME: (%[[I:.*]]: tensor<8xi32>)
// CHECK: pointwise.map ins(%[[I]] : tensor<8xi32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32):
// CHECK-NEXT:   %[[F:.*]] = arith.uitofp %[[X]] : i32 to f32
// CHECK-NEXT:   %[[N:.*]] = arith.negf %[[F]] : f32
// CHECK-NEXT:   %[[T:.*]] = arith.truncf %[[N]] : f32 to bf16
// CHECK-NEXT:   %[[R:.*]] = arith.negf %[[T]] : bf16
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[R]], %[[R]] : bf16
// CHECK-NEXT:   pointwise.yield %[[S]] : bf16
func.func @converted_integer(%i: tensor<8xi32>) -> tensor<8xbf16> {
  %e = tensor.empty() : tensor<8xbf16>
  %p = pointwise.map ins(%i : tensor<8xi32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%x: i32):
    %0 = arith.uitofp %x : i32 to bf16
    pointwise.yield %0 : bf16
  } -> tensor<8xbf16>
  %q = pointwise.map ins(%p : tensor<8xbf16>) outs(%e : tensor<8xbf16>) {
  ^bb0(%x: bf16):
    %0 = arith.addf %x, %x : bf16
    pointwise.yield %0 : bf16
  } -> tensor<8xbf16>
  return %q : tensor<8xbf16>
}
