// pw-merge-gpu-modules: the kernels of gpu.modules with the same targets
// share one gpu.module (one binary), and every launch still names its own
// kernel.
// RUN: pw-opt %s --split-input-file --pw-merge-gpu-modules | FileCheck %s

// Outlining names modules apart but not the kernels in them: the second
// @chain_kernel is renamed, with its launch; a declaration both modules
// hold is kept once, and a helper of the same name that differs is renamed
// with its call.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.module @chain_kernel [#nvvm.target<chip = "sm_90">] {
// CHECK-COUNT-1: llvm.func @__nv_sinf(f32) -> f32
// CHECK: llvm.func @helper() -> f32 {
// CHECK-NEXT: llvm.mlir.constant(1.000000e+00 : f32)
// CHECK: llvm.func @chain_kernel(%{{.*}}: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
// CHECK-NEXT: llvm.call @helper()
// CHECK: llvm.func @[[HELPER:helper_[0-9]+]]() -> f32 {
// CHECK-NEXT: llvm.mlir.constant(2.000000e+00 : f32)
// CHECK: llvm.func @[[SECOND:chain_kernel_[0-9]+]](%{{.*}}: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
// CHECK-NEXT: llvm.call @[[HELPER]]()
// CHECK-NEXT: llvm.call @__nv_sinf
// CHECK-NOT: gpu.module
// CHECK: func.func @chain
// CHECK-NEXT: arith.constant
// CHECK-NEXT: gpu.launch_func @chain_kernel::@chain_kernel blocks
// CHECK-NEXT: gpu.launch_func @chain_kernel::@[[SECOND]] blocks
module attributes {gpu.container_module} {
  gpu.module @chain_kernel [#nvvm.target<chip = "sm_90">] {
    llvm.func @__nv_sinf(f32) -> f32
    llvm.func @helper() -> f32 {
      %0 = llvm.mlir.constant(1.0 : f32) : f32
      llvm.return %0 : f32
    }
    llvm.func @chain_kernel(%arg0: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %0 = llvm.call @helper() : () -> f32
      llvm.store %0, %arg0 : f32, !llvm.ptr
      llvm.return
    }
  }
  gpu.module @chain_kernel_0 [#nvvm.target<chip = "sm_90">] {
    llvm.func @__nv_sinf(f32) -> f32
    llvm.func @helper() -> f32 {
      %0 = llvm.mlir.constant(2.0 : f32) : f32
      llvm.return %0 : f32
    }
    llvm.func @chain_kernel(%arg0: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %0 = llvm.call @helper() : () -> f32
      %1 = llvm.call @__nv_sinf(%0) : (f32) -> f32
      llvm.store %1, %arg0 : f32, !llvm.ptr
      llvm.return
    }
  }
  func.func @chain(%arg0: !llvm.ptr) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @chain_kernel::@chain_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%arg0 : !llvm.ptr)
    gpu.launch_func @chain_kernel_0::@chain_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%arg0 : !llvm.ptr)
    return
  }
}

// -----

// Modules for other targets compile apart; each group merges on its own.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.module @a_kernel [#nvvm.target<chip = "sm_90">] {
// CHECK: llvm.func @a_kernel
// CHECK: llvm.func @c_kernel
// CHECK: }
// CHECK: gpu.module @b_kernel [#nvvm.target<chip = "sm_80">] {
// CHECK: llvm.func @b_kernel
// CHECK: }
// CHECK-NOT: gpu.module
// CHECK: gpu.launch_func @a_kernel::@a_kernel
// CHECK: gpu.launch_func @b_kernel::@b_kernel
// CHECK: gpu.launch_func @a_kernel::@c_kernel
module attributes {gpu.container_module} {
  gpu.module @a_kernel [#nvvm.target<chip = "sm_90">] {
    llvm.func @a_kernel() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @b_kernel [#nvvm.target<chip = "sm_80">] {
    llvm.func @b_kernel() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @c_kernel [#nvvm.target<chip = "sm_90">] {
    llvm.func @c_kernel() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  func.func @three() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @a_kernel::@a_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @b_kernel::@b_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @c_kernel::@c_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// One gpu.module: nothing to do.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.module @only_kernel [#nvvm.target<chip = "sm_90">] {
// CHECK: gpu.launch_func @only_kernel::@only_kernel
module attributes {gpu.container_module} {
  gpu.module @only_kernel [#nvvm.target<chip = "sm_90">] {
    llvm.func @only_kernel() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  func.func @one() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @only_kernel::@only_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// A launch of a later module's kernel whose name is an earlier module's
// (@choose_kernel_0::@choose_kernel) keeps naming that kernel while the
// module @choose_kernel merges first.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.module @first_kernel [#nvvm.target<chip = "sm_90">] {
// CHECK: llvm.func @first_kernel() attributes {gpu.kernel, nvvm.kernel} {
// CHECK: llvm.func @choose_kernel() attributes {gpu.kernel, nvvm.kernel} {
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK: llvm.func @[[ELSE:choose_kernel_[0-9]+]]() attributes {gpu.kernel, nvvm.kernel} {
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK-NOT: gpu.module
// CHECK: gpu.launch_func @first_kernel::@first_kernel blocks
// CHECK: gpu.launch_func @first_kernel::@choose_kernel blocks
// CHECK: gpu.launch_func @first_kernel::@[[ELSE]] blocks
module attributes {gpu.container_module} {
  gpu.module @first_kernel [#nvvm.target<chip = "sm_90">] {
    llvm.func @first_kernel() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @choose_kernel [#nvvm.target<chip = "sm_90">] {
    llvm.func @choose_kernel() attributes {gpu.kernel, nvvm.kernel} {
      %0 = llvm.mlir.constant(1 : i32) : i32
      llvm.return
    }
  }
  gpu.module @choose_kernel_0 [#nvvm.target<chip = "sm_90">] {
    llvm.func @choose_kernel() attributes {gpu.kernel, nvvm.kernel} {
      %0 = llvm.mlir.constant(2 : i32) : i32
      llvm.return
    }
  }
  func.func @choose(%negate: i1) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @first_kernel::@first_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    scf.if %negate {
      gpu.launch_func @choose_kernel::@choose_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    } else {
      gpu.launch_func @choose_kernel_0::@choose_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    }
    return
  }
}
