// pw-bufferize bufferizes modules that hold tensors and leaves memref modules
// exactly as they are.
// RUN: pw-opt %s --split-input-file --pw-bufferize | FileCheck %s
// RUN: pw-opt %s --split-input-file --pw-bufferize=deallocate=false --verify-diagnostics | FileCheck %s --check-prefix=NODEALLOC

// A memref module keeps its allocation, its deallocation and its returned
// view: no copy, nothing freed twice.
// CHECK-LABEL: func @memref_module
// CHECK-NEXT: memref.alloc
// CHECK-NEXT: pointwise.map
// CHECK: memref.dealloc
// CHECK-NEXT: return %arg0
// NODEALLOC-LABEL: func @memref_module
// NODEALLOC-NEXT: memref.alloc
func.func @memref_module(%a: memref<4xf32>) -> memref<4xf32> {
  %t = memref.alloc() : memref<4xf32>
  pointwise.map ins(%a : memref<4xf32>) outs(%t : memref<4xf32>) {
  ^bb0(%x: f32):
    pointwise.yield %x : f32
  }
  memref.dealloc %t : memref<4xf32>
  return %a : memref<4xf32>
}

// -----

// A temporary is freed; the returned buffer is the caller's. Without
// deallocation, the temporary is an error.
// CHECK-LABEL: func @chain
// CHECK-SAME: (%[[A:.*]]: memref<?xf32, strided<[?], offset: ?>>)
// CHECK: %[[T:.*]] = memref.alloc
// CHECK: pointwise.map ins(%[[A]] : {{.*}}) outs(%[[T]] : {{.*}})
// CHECK: pointwise.map ins(%[[T]] : {{.*}}) outs(%[[A]] : {{.*}})
// CHECK: %[[COPY:.*]] = memref.alloc
// CHECK: %[[CAST:.*]] = memref.cast %[[COPY]]
// CHECK: memref.copy %[[A]], %[[CAST]]
// CHECK: memref.dealloc %[[T]]
// CHECK: return %[[CAST]]
func.func @chain(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  // expected-error @+1 {{bufferization allocates a 'memref<?xf32>' here}}
  %e = tensor.empty(%n) : tensor<?xf32>
  %t = pointwise.map ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  %r = pointwise.map ins(%t : tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = math.exp %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A chain of in-place updates of an argument allocates nothing; the result
// is that argument (without deallocation) or the caller's copy of it.
// CHECK-LABEL: func @in_place_chain
// CHECK-SAME: (%[[A:.*]]: memref<?xf32, strided<[?], offset: ?>>)
// CHECK-COUNT-2: pointwise.map ins(%[[A]] : {{.*}}) outs(%[[A]] : {{.*}})
// CHECK: %[[COPY:.*]] = memref.alloc
// CHECK: %[[CAST:.*]] = memref.cast %[[COPY]]
// CHECK: memref.copy %[[A]], %[[CAST]]
// CHECK: return %[[CAST]]
// NODEALLOC-LABEL: func @in_place_chain
// NODEALLOC-SAME: (%[[A:.*]]: memref<?xf32, strided<[?], offset: ?>>)
// NODEALLOC-NOT: memref.alloc
// NODEALLOC-COUNT-2: pointwise.map ins(%[[A]] : {{.*}}) outs(%[[A]] : {{.*}})
// NODEALLOC-NOT: memref.alloc
// NODEALLOC: return %[[A]]
func.func @in_place_chain(%a: tensor<?xf32>) -> tensor<?xf32> {
  %t = pointwise.map ins(%a : tensor<?xf32>) outs(%a : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = arith.negf %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  %r = pointwise.map ins(%t : tensor<?xf32>) outs(%t : tensor<?xf32>) {
  ^bb0(%x: f32):
    %0 = math.exp %x : f32
    pointwise.yield %0 : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A result that needs a new buffer: fine with deallocation, an error
// without.
// CHECK-LABEL: func @needs_a_buffer
// CHECK: memref.alloc
// CHECK: pointwise.map
func.func @needs_a_buffer(%a: tensor<8xf16>) -> tensor<8xf16> {
  // expected-error @+1 {{bufferization allocates a 'memref<8xf16>' here, and pw-bufferize runs with deallocate=false (as pw-gpu-pipeline does, whose maps run on the GPU memory the caller passes): write this value into a destination that the caller passes as a function argument}}
  %e = tensor.empty() : tensor<8xf16>
  %r = pointwise.map ins(%a : tensor<8xf16>) outs(%e : tensor<8xf16>) {
  ^bb0(%x: f16):
    %0 = arith.negf %x : f16
    pointwise.yield %0 : f16
  } -> tensor<8xf16>
  return %r : tensor<8xf16>
}
