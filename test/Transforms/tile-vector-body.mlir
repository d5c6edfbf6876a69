// pw-tile's linear vector path computes the body of a map with f16/bf16
// operands once per chunk, on vectors of the chunk's lanes (in f32, the
// opmath type), so that NVPTX selects packed instructions; other maps, and
// bodies with regions, compute lane by lane (docs/Performance.md, row
// `vector-body`).
// RUN: pw-opt %s --split-input-file --pw-canonicalize-broadcast --pw-coalesce-dims --pw-tile | FileCheck %s

// CHECK-LABEL: func @half_body_on_vectors
// CHECK: vector.load %{{.*}} : memref<1099511627776xf16>, vector<8xf16>
// CHECK: %[[WIDE:.*]] = arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: %[[PRODUCT:.*]] = arith.mulf %[[WIDE]], %{{.*}} : vector<8xf32>
// CHECK: %[[ROUNDED:.*]] = arith.truncf %[[PRODUCT]] : vector<8xf32> to vector<8xf16>
// CHECK-NOT: arith.mulf %{{.*}} : f32
// CHECK: vector.store %{{.*}} : memref<1099511627776xf16>, vector<8xf16>
func.func @half_body_on_vectors(%a: memref<64x64xf16>, %c: memref<64x64xf16>) {
  pointwise.map ins(%a : memref<64x64xf16>) outs(%c : memref<64x64xf16>) {
  ^bb0(%x: f16):
    %k = arith.constant 3.0 : f16
    %0 = arith.mulf %x, %k : f16
    pointwise.yield %0 : f16
  }
  return
}

// -----

// A float-to-integer conversion saturates on vectors as on scalars (4
// lanes: the vector width follows the widest element, i32).
// CHECK-LABEL: func @saturating_conversion_on_vectors
// CHECK: arith.fptosi %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK: arith.cmpf oge, %{{.*}} : vector<4xf32>
// CHECK: arith.select %{{.*}} : vector<4xi1>, vector<4xi32>
func.func @saturating_conversion_on_vectors(%a: memref<4096xbf16>, %c: memref<4096xi32>) {
  pointwise.map ins(%a : memref<4096xbf16>) outs(%c : memref<4096xi32>) {
  ^bb0(%x: bf16):
    %0 = arith.fptosi %x : bf16 to i32
    pointwise.yield %0 : i32
  }
  return
}

// -----

// f32 maps compute lane by lane.
// CHECK-LABEL: func @float_body_lane_by_lane
// CHECK-NOT: arith.addf %{{.*}} : vector
// CHECK: arith.addf %{{.*}} : f32
// CHECK-NOT: arith.addf %{{.*}} : vector
func.func @float_body_lane_by_lane(%a: memref<64x64xf32>, %c: memref<64x64xf32>) {
  pointwise.map ins(%a : memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32):
    %0 = arith.addf %x, %x : f32
    pointwise.yield %0 : f32
  }
  return
}

// -----

// A body with a region computes lane by lane.
// CHECK-LABEL: func @region_body_lane_by_lane
// CHECK-NOT: arith.addf %{{.*}} : vector
// CHECK: scf.if
// CHECK-NOT: arith.addf %{{.*}} : vector
func.func @region_body_lane_by_lane(%a: memref<64x64xf16>, %c: memref<64x64xf16>) {
  pointwise.map ins(%a : memref<64x64xf16>) outs(%c : memref<64x64xf16>) {
  ^bb0(%x: f16):
    %zero = arith.constant 0.0 : f16
    %positive = arith.cmpf ogt, %x, %zero : f16
    %0 = scf.if %positive -> (f16) {
      %1 = arith.addf %x, %x : f16
      scf.yield %1 : f16
    } else {
      scf.yield %zero : f16
    }
    pointwise.yield %0 : f16
  }
  return
}
