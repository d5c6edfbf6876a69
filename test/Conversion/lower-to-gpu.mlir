// pw-lower-to-gpu moves the tiled loops into an outlined kernel; inputs the
// kernel only reads are marked noalias and readonly.
// RUN: pw-opt %s --pw-canonicalize-broadcast --pw-tile --pw-lower-to-gpu | FileCheck %s

// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @axpy
// CHECK: gpu.launch_func @axpy_kernel::@axpy_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(
// CHECK-NOT: scf.parallel
// CHECK: gpu.module @axpy_kernel {
// CHECK: gpu.func @axpy_kernel(
// CHECK-SAME: %{{.*}}: memref<1099511627776xf32> {llvm.noalias, llvm.readonly}, %{{.*}}: memref<1099511627776xf32> {llvm.noalias, llvm.readonly}, %{{.*}}: f32, %{{.*}}: memref<1099511627776xf32>,
// CHECK-SAME: kernel
// CHECK-DAG: gpu.block_id x
// CHECK-DAG: gpu.thread_id x
// CHECK: vector.load
// CHECK: vector.store
func.func @axpy(%x: memref<?xf32>, %y: memref<?xf32>, %alpha: f32, %c: memref<?xf32>) {
  pointwise.map ins(%x, %y, %alpha : memref<?xf32>, memref<?xf32>, f32) outs(%c : memref<?xf32>) {
  ^bb0(%a: f32, %b: f32, %s: f32):
    %0 = arith.mulf %a, %s : f32
    %1 = arith.addf %0, %b : f32
    pointwise.yield %1 : f32
  }
  return
}

// The transpose strategy's tile becomes workgroup memory of the kernel, and
// a barrier separates the thread loop that fills it from the one that reads
// it.
// CHECK-LABEL: func.func @transpose_copy
// CHECK-NOT: memref.alloca
// CHECK: gpu.launch_func @transpose_copy_kernel::@transpose_copy_kernel
// CHECK: gpu.func @transpose_copy_kernel(
// CHECK-SAME: workgroup(%[[TILE:.*]] : memref<64x65xf32, #gpu.address_space<workgroup>>)
// CHECK: memref.store %{{.*}}, %[[TILE]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[TILE]]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @transpose_copy(%b: memref<64x96xf32, strided<[1, 64]>>, %c: memref<64x96xf32>) {
  pointwise.map ins(%b : memref<64x96xf32, strided<[1, 64]>>) outs(%c : memref<64x96xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}
