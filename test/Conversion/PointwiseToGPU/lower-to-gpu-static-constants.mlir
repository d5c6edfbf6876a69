// pw-lower-to-gpu sinks constants into the launch before outlining: a map
// of static layout launches a kernel whose sizes, strides and offsets are
// constants of its body, and whose only arguments are the flat views of the
// operands and the alignment flag the host computes once per launch.
// RUN: pw-opt %s --pw-canonicalize-broadcast --pw-coalesce-dims --pw-tile --pw-lower-to-gpu | FileCheck %s

// CHECK-LABEL: func.func @row_slice
// CHECK: %[[GRID:.*]] = arith.constant 2000 : index
// CHECK: %[[THREADS:.*]] = arith.constant 128 : index
// CHECK: gpu.launch_func @row_slice_kernel::@row_slice_kernel blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%[[THREADS]], %{{.*}}, %{{.*}}) args(%{{.*}} : memref<1099511627776xf32>, %{{.*}} : memref<1099511627776xf32>, %{{.*}} : memref<1099511627776xf32>, %[[ALIGNED:.*]] : i1)
// CHECK: gpu.func @row_slice_kernel(%{{.*}}: memref<1099511627776xf32> {llvm.noalias, llvm.readonly}, %{{.*}}: memref<1099511627776xf32> {llvm.noalias, llvm.readonly}, %{{.*}}: memref<1099511627776xf32>, %[[FLAG:.*]]: i1) kernel
// CHECK-DAG: arith.constant 1024000 : i32
// CHECK-DAG: arith.constant 1000 : i32
// CHECK-DAG: arith.constant 1024 : i32
// CHECK: scf.if %[[FLAG]]
func.func @row_slice(%a: memref<1024x1000xf32, strided<[1024, 1]>>, %b: memref<1024x1000xf32>, %c: memref<1024x1000xf32>) {
  pointwise.map ins(%a, %b : memref<1024x1000xf32, strided<[1024, 1]>>, memref<1024x1000xf32>) outs(%c : memref<1024x1000xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    pointwise.yield %0 : f32
  }
  return
}
