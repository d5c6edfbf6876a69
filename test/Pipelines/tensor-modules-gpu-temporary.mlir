// pw-gpu-pipeline gives a tensor program's temporaries GPU memory on the
// runtime's current stream: allocation, launch and release are ordered on
// one stream, the legacy default one included (pwMemAllocOnStream and
// pwMemFreeOnStream, where mgpuMemAlloc and mgpuMemFree take a null stream
// for a synchronous call), and nothing waits. A returned buffer is the
// caller's.
// RUN: pw-opt %s --pw-bufferize --pw-place-buffers-on-device | FileCheck %s --check-prefix=PLACED
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa launch-on-current-stream=1" | FileCheck %s --check-prefix=HOST
// RUN: pw-opt %s --pw-gpu-pipeline="format=isa" | FileCheck %s --check-prefix=SYNC

// PLACED-LABEL: func.func @chain
// PLACED: %[[S0:.*]] = gpu.wait async
// PLACED: %[[T:.*]], %[[A0:.*]] = gpu.alloc async [%[[S0]]] () : memref<1024xf32>
// PLACED: gpu.wait [%[[A0]]]
// PLACED: pointwise.map ins(%{{.*}} : memref<1024xf32, strided<[?], offset: ?>>) outs(%[[T]] : memref<1024xf32>)
// PLACED: %[[R:.*]], %{{.*}} = gpu.alloc async
// PLACED: pointwise.map ins(%[[T]], %{{.*}} : memref<1024xf32>, {{.*}}) outs(%[[R]] : memref<1024xf32>)
// PLACED: %[[S2:.*]] = gpu.wait async
// PLACED: %[[D:.*]] = gpu.dealloc async [%[[S2]]] %[[T]] : memref<1024xf32>
// PLACED: gpu.wait [%[[D]]]
// PLACED-NOT: memref.alloc
// PLACED: return %[[R]] : memref<1024xf32>

// HOST-LABEL: llvm.func @chain
// HOST-NOT: mgpuStreamCreate
// HOST: %[[STREAM:.*]] = llvm.call @pwGetStream()
// HOST: llvm.call @pwMemAllocOnStream(%{{.*}}, %[[STREAM]], %{{.*}})
// HOST: gpu.launch_func <%{{.*}} : !llvm.ptr> @chain_kernel::@chain_kernel
// HOST: gpu.launch_func <%{{.*}} : !llvm.ptr> @chain_kernel::@chain_kernel_0
// HOST: llvm.call @pwMemFreeOnStream
// HOST-NOT: mgpuStreamSynchronize
// HOST-NOT: mgpuStreamDestroy
// HOST: llvm.return
func.func @chain(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  %t = pointwise.map ins(%a : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<1024xf32>
  %e2 = tensor.empty() : tensor<1024xf32>
  %r = pointwise.map ins(%t, %b : tensor<1024xf32>, tensor<1024xf32>) outs(%e2 : tensor<1024xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.mulf %x, %y : f32
    pointwise.yield %0 : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// Without the current stream, each allocation and release is synchronous, on
// a stream of its own.
// SYNC-LABEL: llvm.func @chain
// SYNC: %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// SYNC: llvm.call @mgpuMemAlloc(%{{.*}}, %[[STREAM]], %{{.*}})
// SYNC: llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// SYNC: llvm.call @mgpuStreamDestroy(%[[STREAM]])
