// Element offsets (an operand's offset plus coordinates times strides) are
// bounded by the layout's reach, which the index type holds: pw-tile marks
// their sums and products nsw. They may be negative (the runtime passes
// each operand's first element, whose strides may be negative), so they
// extend to index with their sign. The
// linear strategy's last, partial block loops over its steps, one guarded
// element each.
// RUN: pw-opt %s --split-input-file --pw-tile=index-bitwidth=32 | FileCheck %s

// CHECK-LABEL: func @strided
// The partial block of the vector path: a loop over the thread's 8
// elements (two chunks of four lanes), one element per step.
// CHECK: scf.for %[[STEP:.*]] = %{{.*}} to %c8_i32{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %{{.*}}, %[[STEP]] : i32
// CHECK-NEXT: %[[SCALED:.*]] = arith.muli %[[ROW]], %{{.*}} : i32
// CHECK-NEXT: %[[LINEAR:.*]] = arith.addi %[[SCALED]], %{{.*}} : i32
// CHECK-NEXT: %[[IN_RANGE:.*]] = arith.cmpi ult, %[[LINEAR]], %{{.*}} : i32
// CHECK-NEXT: scf.if %[[IN_RANGE]] {
// CHECK: %[[IN_ROW:.*]] = arith.muli %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[IN_PART:.*]] = arith.addi %{{.*}}, %[[IN_ROW]] overflow<nsw> : i32
// CHECK-NEXT: %[[IN_COLUMN:.*]] = arith.muli %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[IN:.*]] = arith.addi %[[IN_PART]], %[[IN_COLUMN]] overflow<nsw> : i32
// CHECK-NEXT: %[[OUT_ROW:.*]] = arith.muli %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[OUT:.*]] = arith.addi %[[OUT_ROW]], %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[IN_INDEX:.*]] = arith.index_cast %[[IN]] : i32 to index
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[IN_INDEX]]]
// CHECK-NEXT: %[[Y:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[OUT_INDEX:.*]] = arith.index_cast %[[OUT]] : i32 to index
// CHECK-NEXT: memref.store %[[Y]], %{{.*}}[%[[OUT_INDEX]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NOT: memref.store
// CHECK: } else {
func.func @strided(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %c: memref<?x?xf32>) {
  pointwise.map ins(%a : memref<?x?xf32, strided<[?, ?], offset: ?>>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32):
    %y = arith.negf %x : f32
    pointwise.yield %y : f32
  }
  return
}

// -----

// The transpose strategy (a unit stride along dim 0 of the input): each
// operand's offset to its tile, and each element's offset within it, their
// terms along L made first whatever compiler built pw-tile.
// CHECK-LABEL: func @transposed
// CHECK: memref.alloca
// CHECK: %[[TILE_L:.*]] = arith.muli %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[TILE_P:.*]] = arith.muli %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[TILE_PL:.*]] = arith.addi %[[TILE_P]], %[[TILE_L]] overflow<nsw> : i32
// CHECK-NEXT: %[[TILE:.*]] = arith.addi %{{.*}}, %[[TILE_PL]] overflow<nsw> : i32
// CHECK-NEXT: %[[OUT_TILE_P:.*]] = arith.muli %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: arith.addi %[[OUT_TILE_P]], %{{.*}} overflow<nsw> : i32
// CHECK: %[[L:.*]] = arith.muli %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[P:.*]] = arith.muli %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[PL:.*]] = arith.addi %[[P]], %[[L]] overflow<nsw> : i32
// CHECK-NEXT: %[[ELEMENT:.*]] = arith.addi %[[TILE]], %[[PL]] overflow<nsw> : i32
// CHECK-NEXT: %[[INDEX:.*]] = arith.index_cast %[[ELEMENT]] : i32 to index
// CHECK-NEXT: vector.load %{{.*}}[%[[INDEX]]]
func.func @transposed(%a: memref<?x?xf32, strided<[1, ?], offset: ?>>, %c: memref<?x?xf32>) {
  pointwise.map ins(%a : memref<?x?xf32, strided<[1, ?], offset: ?>>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
