// RUN: pw-opt %s --pw-place-buffers-on-device --split-input-file --verify-diagnostics | FileCheck %s

// Allocations become stream-ordered GPU allocations, copies become maps.
// CHECK-LABEL: func.func @temporary_and_copy
// CHECK-SAME: (%[[A:.*]]: memref<?x4xf16>, %[[N:.*]]: index, %[[OUT:.*]]: memref<?x4xf16, strided<[8, 1]>>)
// CHECK: %[[S:.*]] = gpu.wait async
// CHECK: %[[T:.*]], %[[DONE:.*]] = gpu.alloc async [%[[S]]] (%[[N]]) : memref<?x4xf16>
// CHECK: gpu.wait [%[[DONE]]]
// CHECK: pointwise.map ins(%[[A]] : memref<?x4xf16>) outs(%[[T]] : memref<?x4xf16>) {
// CHECK: ^bb0(%[[X:.*]]: f16):
// CHECK: pointwise.yield %[[X]] : f16
// CHECK: pointwise.map ins(%[[T]] : memref<?x4xf16>) outs(%[[OUT]] : memref<?x4xf16, strided<[8, 1]>>) {
// CHECK: ^bb0(%[[Y:.*]]: f16):
// CHECK: pointwise.yield %[[Y]] : f16
// CHECK: %[[S2:.*]] = gpu.wait async
// CHECK: %[[FREED:.*]] = gpu.dealloc async [%[[S2]]] %[[T]] : memref<?x4xf16>
// CHECK: gpu.wait [%[[FREED]]]
// CHECK-NOT: memref.
// CHECK: return
func.func @temporary_and_copy(%a: memref<?x4xf16>, %n: index, %out: memref<?x4xf16, strided<[8, 1]>>) {
  %t = memref.alloc(%n) : memref<?x4xf16>
  memref.copy %a, %t : memref<?x4xf16> to memref<?x4xf16>
  memref.copy %t, %out : memref<?x4xf16> to memref<?x4xf16, strided<[8, 1]>>
  memref.dealloc %t : memref<?x4xf16>
  return
}

// -----

// The host cannot read GPU memory.
func.func @host_load(%a: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' op reads or writes the elements of a 'memref<4xf32>' on the host; under pw-gpu-pipeline the buffers of host code are GPU memory}}
  %s = memref.load %a[%c0] : memref<4xf32>
  pointwise.map ins(%s : f32) outs(%out : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @stack_buffer(%out: memref<4xf32>) {
  // expected-error @+1 {{'memref.alloca' op allocates host stack memory}}
  %t = memref.alloca() : memref<4xf32>
  pointwise.map ins(%t : memref<4xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

func.func @host_global(%out: memref<4xf32>) {
  // expected-error @+1 {{'memref.get_global' op reads a host global}}
  %t = memref.get_global @table : memref<4xf32>
  pointwise.map ins(%t : memref<4xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  return
}

// -----

func.func @layout(%n: index) {
  // expected-error @+1 {{'memref.alloc' op allocates a 'memref<4xf32, strided<[2]>>' with a layout}}
  %t = memref.alloc() : memref<4xf32, strided<[2]>>
  return
}

// -----

// Map bodies and kernels are not host code: nothing in them is rejected.
// CHECK-LABEL: func.func @body_untouched
// CHECK: memref.load
func.func @body_untouched(%a: memref<4xf32>, %out: memref<4xf32>) {
  %a_c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %a_c1, %gy = %a_c1, %gz = %a_c1) threads(%tx, %ty, %tz) in (%x = %a_c1, %y = %a_c1, %z = %a_c1) {
    %c0 = arith.constant 0 : index
    %v = memref.load %a[%c0] : memref<4xf32>
    memref.store %v, %out[%c0] : memref<4xf32>
    gpu.terminator
  }
  return
}
