// Opmath computes f16/bf16 map bodies in f32, but math.isinf, math.isnormal
// and math.isfinite answer for the narrow type, whose range decides them:
// they take their operand rounded to its storage type (an f16 subnormal is
// normal in f32; an f32 product above 65504 is finite, its f16 rounding is
// not). math.isnan is computed in f32: rounding neither makes nor removes a
// NaN.
// RUN: pw-opt %s --pw-lower-to-loops | FileCheck %s
// RUN: pw-opt %s --pw-tile | FileCheck %s

// CHECK-LABEL: func.func @half_classes
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[SQUARE:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[STORED:.*]] = arith.truncf %[[SQUARE]] : f32 to f16
// CHECK: math.isinf %[[STORED]] : f16
// CHECK: %[[STORED2:.*]] = arith.truncf %[[SQUARE]] : f32 to f16
// CHECK: math.isnormal %[[STORED2]] : f16
// CHECK: %[[STORED3:.*]] = arith.truncf %[[SQUARE]] : f32 to f16
// CHECK: math.isfinite %[[STORED3]] : f16
// CHECK: math.isnan %[[SQUARE]] : f32
func.func @half_classes(%a: memref<?xf16>, %inf: memref<?xi1>, %normal: memref<?xi1>, %finite: memref<?xi1>, %nan: memref<?xi1>) {
  pointwise.map ins(%a : memref<?xf16>) outs(%inf, %normal, %finite, %nan : memref<?xi1>, memref<?xi1>, memref<?xi1>, memref<?xi1>) {
  ^bb0(%x: f16):
    %s = arith.mulf %x, %x : f16
    %i = math.isinf %s : f16
    %n = math.isnormal %s : f16
    %f = math.isfinite %s : f16
    %q = math.isnan %s : f16
    pointwise.yield %i, %n, %f, %q : i1, i1, i1, i1
  }
  return
}

// CHECK-LABEL: func.func @bf16_classes
// CHECK: %[[Y:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[STORED:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK: math.isnormal %[[STORED]] : bf16
func.func @bf16_classes(%a: memref<?xbf16>, %normal: memref<?xi1>) {
  pointwise.map ins(%a : memref<?xbf16>) outs(%normal : memref<?xi1>) {
  ^bb0(%x: bf16):
    %n = math.isnormal %x : bf16
    pointwise.yield %n : i1
  }
  return
}
