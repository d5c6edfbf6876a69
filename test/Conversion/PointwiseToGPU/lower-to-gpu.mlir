// pw-lower-to-gpu moves the tiled loops into an outlined kernel; inputs the
// kernel only reads are marked noalias and readonly.
// RUN: pw-opt %s --pw-canonicalize-broadcast --pw-tile --pw-lower-to-gpu | FileCheck %s
// RUN: pw-opt %s --pw-canonicalize-broadcast --pw-tile --pw-lower-to-gpu | FileCheck %s --check-prefix=NOCAP
// RUN: pw-opt %s --pw-canonicalize-broadcast --pw-tile --pw-lower-to-gpu=transpose-blocks-per-sm=5 | FileCheck %s --check-prefix=CAP
// RUN: not pw-opt %s --pw-lower-to-gpu=transpose-blocks-per-sm=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not pw-opt %s --pw-lower-to-gpu=transpose-blocks-per-sm=4294967297 2>&1 | FileCheck %s --check-prefix=HUGE

// NEGATIVE: pw-lower-to-gpu: transpose-blocks-per-sm must be 0 to 2147483647, got -1
// HUGE: pw-lower-to-gpu: transpose-blocks-per-sm must be 0 to 2147483647, got 4294967297

// By default no launch asks for dynamic shared memory.
// NOCAP: module attributes {gpu.container_module}
// NOCAP-NOT: pwOccupancySharedMemory
// NOCAP-NOT: dynamic_shared_memory_size

// With a cap, kernels with tiles are launched with the padding the runtime
// sizes for the device; the others as before.
// CAP: func.func private @pwOccupancySharedMemory(i32, i32) -> i32
// CAP-LABEL: func.func @axpy
// CAP-NOT: pwOccupancySharedMemory
// CAP-NOT: dynamic_shared_memory_size
// CAP: gpu.launch_func @axpy_kernel::@axpy_kernel
// CAP-LABEL: func.func @transpose_copy
// One 64 x 65 f32 tile: 16640 bytes.
// CAP: %[[STATIC:.*]] = arith.constant 16640 : i32
// CAP: %[[BLOCKS:.*]] = arith.constant 5 : i32
// CAP: %[[PAD:.*]] = func.call @pwOccupancySharedMemory(%[[STATIC]], %[[BLOCKS]]) : (i32, i32) -> i32
// CAP: gpu.launch_func @transpose_copy_kernel::@transpose_copy_kernel {{.*}} dynamic_shared_memory_size %[[PAD]] args(
// CAP-LABEL: func.func @transpose_add
// Two tiles.
// CAP: %[[STATIC2:.*]] = arith.constant 33280 : i32
// CAP: func.call @pwOccupancySharedMemory(%[[STATIC2]], %{{.*}})
// CAP: gpu.launch_func @transpose_add_kernel::@transpose_add_kernel {{.*}} dynamic_shared_memory_size

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

// Two transposed inputs: two tiles.
// CHECK-LABEL: func.func @transpose_add
// CHECK: gpu.func @transpose_add_kernel(
// CHECK-SAME: workgroup(%{{.*}} : memref<64x65xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64x65xf32, #gpu.address_space<workgroup>>)
func.func @transpose_add(%a: memref<64x96xf32, strided<[1, 64]>>, %b: memref<64x96xf32, strided<[1, 64]>>, %c: memref<64x96xf32>) {
  pointwise.map ins(%a, %b : memref<64x96xf32, strided<[1, 64]>>, memref<64x96xf32, strided<[1, 64]>>) outs(%c : memref<64x96xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    pointwise.yield %s : f32
  }
  return
}
