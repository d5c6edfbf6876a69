// pw-bf16-math-to-nvvm: a tanh inside the f32 computation of one bf16
// number, rounded back to bf16 (a tanh-GELU in op math), becomes libdevice's
// large-argument branch alone where trying all 65,536 inputs shows that no
// rounded result can change; libdevice's tanhf stays otherwise.
// RUN: pw-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(pw-bf16-math-to-nvvm))' | FileCheck %s

gpu.module @gelu {
  // CHECK-LABEL: gpu.func @scalar
  // CHECK: %[[Q:.*]] = arith.addf
  // CHECK: %[[U:.*]] = arith.mulf %{{.*}}, %[[Q]] : f32
  // CHECK: %[[A:.*]] = math.absf %[[U]] : f32
  // CHECK: %[[Y:.*]] = arith.mulf %[[A]], %{{.*}} : f32
  // CHECK: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[Y]]) : (f32) -> f32
  // CHECK: %[[D:.*]] = arith.addf %[[E]], %[[ONE:.*]] : f32
  // CHECK: %[[R:.*]] = nvvm.rcp.approx.ftz.f %[[D]] : f32
  // CHECK: %[[L:.*]] = math.fma %[[R]], %{{.*}}, %[[ONE]] : f32
  // CHECK: %[[SAT:.*]] = arith.cmpf oge, %[[A]], %{{.*}} : f32
  // CHECK: %[[C:.*]] = arith.select %[[SAT]], %{{.*}}, %[[L]] : f32
  // CHECK: %[[S:.*]] = math.copysign %[[C]], %[[U]] : f32
  // CHECK: %[[SMALL:.*]] = arith.cmpf olt, %[[A]], %{{.*}} : f32
  // CHECK: %[[T:.*]] = arith.select %[[SMALL]], %[[U]], %[[S]] : f32
  // CHECK: arith.addf %{{.*}}, %[[T]] : f32
  // CHECK-NOT: math.tanh
  gpu.func @scalar(%in: bf16, %out: memref<bf16>) kernel {
    %c0 = arith.constant 0.044715 : f32
    %c1 = arith.constant 0.7978845608 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %x = arith.extf %in : bf16 to f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %p = arith.mulf %c0, %x3 : f32
    %q = arith.addf %x, %p : f32
    %u = arith.mulf %c1, %q : f32
    %t = math.tanh %u : f32
    %d = arith.addf %one, %t : f32
    %h = arith.mulf %half, %x : f32
    %r = arith.mulf %h, %d : f32
    %b = arith.truncf %r : f32 to bf16
    memref.store %b, %out[] : memref<bf16>
    gpu.return
  }

  // The GELU of a vector body, as pw-tile emits it for bf16 operands, with
  // pw-fuse-maps' sign guards around its input: the instructions lane by
  // lane.
  // CHECK-LABEL: gpu.func @vector
  // CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
  // CHECK-COUNT-4: nvvm.rcp.approx.ftz.f
  // CHECK: math.copysign %{{.*}}, %{{.*}} : vector<4xf32>
  // CHECK-NOT: math.tanh
  gpu.func @vector(%in: vector<4xbf16>, %out: memref<4xbf16>) kernel {
    %c0 = arith.constant dense<0.044715> : vector<4xf32>
    %c1 = arith.constant dense<0.7978845608> : vector<4xf32>
    %half = arith.constant dense<0.5> : vector<4xf32>
    %one = arith.constant dense<1.0> : vector<4xf32>
    %e = arith.extf %in : vector<4xbf16> to vector<4xf32>
    %x = arith.negf %e : vector<4xf32>
    %y = arith.negf %x : vector<4xf32>
    %x2 = arith.mulf %y, %y : vector<4xf32>
    %x3 = arith.mulf %x2, %y : vector<4xf32>
    %p = arith.mulf %x3, %c0 : vector<4xf32>
    %q = arith.addf %y, %p : vector<4xf32>
    %u = arith.mulf %q, %c1 : vector<4xf32>
    %t = math.tanh %u : vector<4xf32>
    %d = arith.addf %t, %one : vector<4xf32>
    %h = arith.mulf %y, %half : vector<4xf32>
    %r = arith.mulf %h, %d : vector<4xf32>
    %b = arith.truncf %r : vector<4xf32> to vector<4xbf16>
    %i = arith.constant 0 : index
    vector.store %b, %out[%i] : memref<4xbf16>, vector<4xbf16>
    gpu.return
  }
}

// -----

// Refused by the check: 1 + tanh(x) and tanh(x) - x rounded to bf16. The
// first lies within the exp2 formula's error of a bf16 rounding boundary
// for some inputs (x = 2^-8: 1 + tanh(x) is just below the midpoint 1 +
// 2^-8), the second cancels to less than that error. And a GELU with a
// fast-math flag that lets LLVM reassociate: the bounds would not hold.
gpu.module @refused {
  // CHECK-LABEL: gpu.func @one_plus_tanh
  // CHECK: math.tanh
  // CHECK-NOT: nvvm.rcp.approx.ftz.f
  gpu.func @one_plus_tanh(%in: bf16, %out: memref<bf16>) kernel {
    %one = arith.constant 1.0 : f32
    %x = arith.extf %in : bf16 to f32
    %t = math.tanh %x : f32
    %d = arith.addf %one, %t : f32
    %b = arith.truncf %d : f32 to bf16
    memref.store %b, %out[] : memref<bf16>
    gpu.return
  }
  // CHECK-LABEL: gpu.func @reassociated_gelu
  // CHECK: math.tanh
  // CHECK-NOT: nvvm.rcp.approx.ftz.f
  gpu.func @reassociated_gelu(%in: bf16, %out: memref<bf16>) kernel {
    %c0 = arith.constant 0.044715 : f32
    %c1 = arith.constant 0.7978845608 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %x = arith.extf %in : bf16 to f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %p = arith.mulf %c0, %x3 : f32
    %q = arith.addf %x, %p fastmath<reassoc> : f32
    %u = arith.mulf %c1, %q : f32
    %t = math.tanh %u : f32
    %d = arith.addf %one, %t : f32
    %h = arith.mulf %half, %x : f32
    %r = arith.mulf %h, %d : f32
    %b = arith.truncf %r : f32 to bf16
    memref.store %b, %out[] : memref<bf16>
    gpu.return
  }
  // CHECK-LABEL: gpu.func @cancellation
  // CHECK: math.tanh
  // CHECK-NOT: nvvm.rcp.approx.ftz.f
  gpu.func @cancellation(%in: bf16, %out: memref<bf16>) kernel {
    %x = arith.extf %in : bf16 to f32
    %t = math.tanh %x : f32
    %d = arith.subf %t, %x : f32
    %b = arith.truncf %d : f32 to bf16
    memref.store %b, %out[] : memref<bf16>
    gpu.return
  }
}

// -----

// Not a function of one bf16 number rounded to bf16: two bf16 numbers, an
// f16 number, a result stored unrounded, a result compared, lanes with
// different constants.
gpu.module @not_functions {
  // CHECK-LABEL: gpu.func @two_numbers
  // CHECK: math.tanh
  gpu.func @two_numbers(%a: bf16, %b: bf16, %out: memref<bf16>) kernel {
    %one = arith.constant 1.0 : f32
    %x = arith.extf %a : bf16 to f32
    %y = arith.extf %b : bf16 to f32
    %t = math.tanh %y : f32
    %d = arith.addf %one, %t : f32
    %r = arith.mulf %x, %d : f32
    %c = arith.truncf %r : f32 to bf16
    memref.store %c, %out[] : memref<bf16>
    gpu.return
  }
  // CHECK-LABEL: gpu.func @half_number
  // CHECK: math.tanh
  gpu.func @half_number(%in: f16, %out: memref<f16>) kernel {
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %x = arith.extf %in : f16 to f32
    %t = math.tanh %x : f32
    %d = arith.addf %one, %t : f32
    %r = arith.mulf %x, %d : f32
    %s = arith.mulf %r, %half : f32
    %c = arith.truncf %s : f32 to f16
    memref.store %c, %out[] : memref<f16>
    gpu.return
  }
  // CHECK-LABEL: gpu.func @unrounded
  // CHECK: math.tanh
  gpu.func @unrounded(%in: bf16, %out: memref<bf16>, %wide: memref<f32>) kernel {
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %x = arith.extf %in : bf16 to f32
    %t = math.tanh %x : f32
    %d = arith.addf %one, %t : f32
    %r = arith.mulf %x, %d : f32
    %s = arith.mulf %r, %half : f32
    %c = arith.truncf %s : f32 to bf16
    memref.store %c, %out[] : memref<bf16>
    memref.store %d, %wide[] : memref<f32>
    gpu.return
  }
  // CHECK-LABEL: gpu.func @compared
  // CHECK: math.tanh
  gpu.func @compared(%in: bf16, %out: memref<bf16>, %flag: memref<i1>) kernel {
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %x = arith.extf %in : bf16 to f32
    %t = math.tanh %x : f32
    %d = arith.addf %one, %t : f32
    %r = arith.mulf %x, %d : f32
    %s = arith.mulf %r, %half : f32
    %c = arith.truncf %s : f32 to bf16
    %n = arith.cmpf olt, %d, %half : f32
    memref.store %c, %out[] : memref<bf16>
    memref.store %n, %flag[] : memref<i1>
    gpu.return
  }
  // CHECK-LABEL: gpu.func @lanes_apart
  // CHECK: math.tanh
  gpu.func @lanes_apart(%in: vector<2xbf16>, %out: memref<2xbf16>) kernel {
    %scale = arith.constant dense<[0.5, 2.0]> : vector<2xf32>
    %one = arith.constant dense<1.0> : vector<2xf32>
    %x = arith.extf %in : vector<2xbf16> to vector<2xf32>
    %u = arith.mulf %x, %scale : vector<2xf32>
    %t = math.tanh %u : vector<2xf32>
    %d = arith.addf %t, %one : vector<2xf32>
    %r = arith.mulf %x, %d : vector<2xf32>
    %b = arith.truncf %r : vector<2xf32> to vector<2xbf16>
    %i = arith.constant 0 : index
    vector.store %b, %out[%i] : memref<2xbf16>, vector<2xbf16>
    gpu.return
  }
}

// -----

// A target that flushes subnormals: libdevice's polynomial branch then
// flushes too, which the check's bounds do not model, so the GELU keeps
// libdevice's tanhf.
gpu.module @flushing [#nvvm.target<flags = {"ftz"}>] {
  // CHECK-LABEL: gpu.func @gelu
  // CHECK: math.tanh
  // CHECK-NOT: nvvm.rcp.approx.ftz.f
  gpu.func @gelu(%in: bf16, %out: memref<bf16>) kernel {
    %c0 = arith.constant 0.044715 : f32
    %c1 = arith.constant 0.7978845608 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %x = arith.extf %in : bf16 to f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %p = arith.mulf %c0, %x3 : f32
    %q = arith.addf %x, %p : f32
    %u = arith.mulf %c1, %q : f32
    %t = math.tanh %u : f32
    %d = arith.addf %one, %t : f32
    %h = arith.mulf %half, %x : f32
    %r = arith.mulf %h, %d : f32
    %b = arith.truncf %r : f32 to bf16
    memref.store %b, %out[] : memref<bf16>
    gpu.return
  }
}
