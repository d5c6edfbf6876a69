// Host launches on the runtime's current stream: one asynchronous launch,
// no stream created, synchronized or destroyed per call.
// RUN: pw-opt %s --pw-gpu-pipeline=launch-on-current-stream=1 | FileCheck %s
// RUN: pw-opt %s --pw-gpu-pipeline=launch-on-current-stream=1 | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM
// RUN: pw-opt %s --pw-gpu-pipeline | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=SYNC
// RUN: not pw-opt %s --pw-canonicalize-broadcast --pw-tile --pw-lower-to-gpu --pw-launch-on-current-stream 2>&1 | FileCheck %s --check-prefix=EARLY

// CHECK: llvm.func @pwGetStream() -> !llvm.ptr
// CHECK: %[[STREAM:.*]] = llvm.call @pwGetStream() : () -> !llvm.ptr
// CHECK: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @scale_kernel::@scale_kernel

// LLVM: %[[STREAM:.*]] = call ptr @pwGetStream()
// LLVM: call void @mgpuLaunchKernel({{.*}}, ptr %[[STREAM]], ptr
// LLVM-NOT: mgpuStreamCreate
// LLVM-NOT: mgpuStreamSynchronize

// SYNC: call ptr @mgpuStreamCreate()
// SYNC: call void @mgpuStreamSynchronize
// SYNC: call void @mgpuStreamDestroy
// SYNC-NOT: pwGetStream

// EARLY: error: 'gpu.launch_func' op pw-launch-on-current-stream runs after gpu-to-llvm

func.func @scale(%x: memref<?xf32>, %y: memref<?xf32>) {
  pointwise.map ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32):
    %two = arith.constant 2.0 : f32
    %r = arith.mulf %a, %two : f32
    pointwise.yield %r : f32
  }
  return
}

// Allocations on the current stream are in its order even when it is the
// legacy default stream (null): pwMemAllocOnStream and pwMemFreeOnStream,
// where mgpuMemAlloc and mgpuMemFree take null for a synchronous call.
// RUN: pw-opt %s --pw-gpu-pipeline=launch-on-current-stream=1 | FileCheck %s --check-prefix=ALLOC
// RUN: pw-opt %s --pw-gpu-pipeline | FileCheck %s --check-prefix=ALLOC-SYNC
// ALLOC-LABEL: llvm.func @temporary
// ALLOC: %[[STREAM:.*]] = llvm.call @pwGetStream()
// ALLOC: llvm.call @pwMemAllocOnStream(%{{.*}}, %[[STREAM]], %{{.*}})
// ALLOC: llvm.call @pwMemFreeOnStream(%{{.*}}, %{{.*}})
// ALLOC-NOT: mgpuMemAlloc
// ALLOC-NOT: mgpuMemFree
// ALLOC-SYNC-LABEL: llvm.func @temporary
// ALLOC-SYNC: llvm.call @mgpuMemAlloc
// ALLOC-SYNC: llvm.call @mgpuMemFree
// ALLOC-SYNC-NOT: OnStream
func.func @temporary(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %t = memref.alloc(%n) : memref<?xf32>
  pointwise.map ins(%x : memref<?xf32>) outs(%t : memref<?xf32>) {
  ^bb0(%a: f32):
    %r = arith.negf %a : f32
    pointwise.yield %r : f32
  }
  pointwise.map ins(%t : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32):
    %r = arith.negf %a : f32
    pointwise.yield %r : f32
  }
  memref.dealloc %t : memref<?xf32>
  return
}
