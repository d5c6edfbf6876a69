// The host code of a family: a packed entry per variant, the pw_family_<name>
// table (a pwFamily of Runtime.h) and the C entry point that calls
// pwFamilyLaunch; the launches go on the runtime's current stream.
// RUN: pw-compile %s -o %t.ll --quiet --index-bitwidths=64
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck %s --check-prefix=INDEX < %t.ll
// RUN: pw-compile %s -o %t.o --quiet --index-bitwidths=64
// RUN: nm %t.o | FileCheck %s --check-prefix=SYMBOLS
// RUN: pw-compile %s -o %t-nocap.ll --quiet --index-bitwidths=64 --transpose-blocks-per-sm=0
// RUN: FileCheck %s --check-prefix=NOCAP < %t-nocap.ll
// RUN: not pw-compile %s -o %t-bad.ll --quiet --transpose-blocks-per-sm=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// The transpose variant's launch asks the runtime for the shared memory that
// caps it at 3 resident blocks per SM (--transpose-blocks-per-sm, default 3);
// with 0, no variant asks.
// CHECK-DAG: call i32 @pwOccupancySharedMemory(i32 {{[1-9][0-9]*}}, i32 3)
// NOCAP-NOT: pwOccupancySharedMemory
// NEGATIVE: transpose-blocks-per-sm must be 0 to 2147483647, got -1

// The family index: a pointer to the table in section pw_families, and
// pw_library_families, weak so that the objects of one library share it,
// returning the section's start and its number of pointers.
// CHECK-DAG: @pw_family_scale.index = private constant ptr @pw_family_scale, section "pw_families", align 8
// CHECK-DAG: @llvm.compiler.used = appending global [4 x ptr] [ptr @pw_family_layouts.index, ptr @pw_family_other.index, ptr @pw_family_rank0.index, ptr @pw_family_scale.index], section "llvm.metadata"
// INDEX: define weak_odr ptr @pw_library_families(ptr
// INDEX: lshr exact i64 sub (i64 ptrtoint (ptr @__stop_pw_families to i64), i64 ptrtoint (ptr @__start_pw_families to i64)), 3
// INDEX: ret ptr @__start_pw_families
// SYMBOLS-DAG: W pw_library_families

// The table: name, 4 arguments, 1 output, 3 inputs, 3 variants (64-bit
// indices only).
// CHECK-DAG: @pw_family_scale.name = private constant [6 x i8] c"scale\00"
// CHECK-DAG: @pw_family_scale.sizes0 = private constant [2 x i64] [i64 -1, i64 8]
// An identity layout is static: row-major strides, offset 0.
// CHECK-DAG: @pw_family_scale.strides3 = private constant [2 x i64] [i64 8, i64 1]
// The arguments: {kind, element type, rank, ABI version 2, static sizes, static strides
// (null: all dynamic), static offset}; i1 is type 0.
// CHECK-DAG: @pw_family_scale.arguments = private constant [4 x { i32, i32, i32, i32, ptr, ptr, i64 }] [{ i32, i32, i32, i32, ptr, ptr, i64 } { i32 1, i32 7, i32 2, i32 2, ptr @pw_family_scale.sizes0, ptr null, i64 0 }, { i32, i32, i32, i32, ptr, ptr, i64 } { i32 0, i32 7, i32 0, i32 2, ptr null, ptr null, i64 0 }, { i32, i32, i32, i32, ptr, ptr, i64 } { i32 0, i32 0, i32 0, i32 2, ptr null, ptr null, i64 0 }, { i32, i32, i32, i32, ptr, ptr, i64 } { i32 1, i32 5, i32 2, i32 2, ptr @pw_family_scale.sizes3, ptr @pw_family_scale.strides3, i64 0 }]
// CHECK-DAG: @pw_family_scale.outputs = private constant [1 x i32] [i32 3]
// CHECK-DAG: @pw_family_scale.inputs = private constant [3 x i32] [i32 0, i32 1, i32 2]
// The variants: {rank, index bitwidth, strategy, transposed argument, entry}.
// CHECK-DAG: @pw_family_scale.variants = private global [3 x { i32, i32, i32, i32, ptr }] [{ i32, i32, i32, i32, ptr } { i32 1, i32 64, i32 0, i32 -1, ptr @scale__r1_i64_linear_entry }, { i32, i32, i32, i32, ptr } { i32 2, i32 64, i32 0, i32 -1, ptr @scale__r2_i64_linear_entry }, { i32, i32, i32, i32, ptr } { i32 2, i32 64, i32 1, i32 0, ptr @scale__r2_i64_transpose0_entry }
// CHECK-DAG: @pw_family_scale = constant { ptr, i32, i32, i32, i32, ptr, ptr, ptr, ptr } { ptr @pw_family_scale.name, i32 4, i32 1, i32 3, i32 3,
// CHECK-DAG: call ptr @pwGetStream()
// CHECK-DAG: call void @mgpuLaunchKernel(

// The C entry: descriptors by pointer, scalars by value (i1 zero-extended).
// CHECK-LABEL: define i32 @scale(ptr %0, float %1, i1 zeroext %2, ptr %3)
// CHECK: call i32 @pwFamilyLaunch(ptr nonnull @pw_family_scale,

// SYMBOLS-DAG: T scale
// SYMBOLS-DAG: D pw_family_scale
// SYMBOLS-DAG: U pwFamilyLaunch
// SYMBOLS-DAG: U pwGetStream
// SYMBOLS-DAG: U mgpuModuleLoad

func.func @scale(%x: memref<?x8xf32, strided<[?, ?], offset: ?>>, %s: f32,
                 %negate: i1, %y: memref<?x8xf16>) {
  pointwise.map ins(%x, %s, %negate : memref<?x8xf32, strided<[?, ?], offset: ?>>, f32, i1)
                outs(%y : memref<?x8xf16>) {
  ^bb0(%a: f32, %b: f32, %n: i1):
    %p = arith.mulf %a, %b : f32
    %m = arith.negf %p : f32
    %r = arith.select %n, %m, %p : f32
    %h = arith.truncf %r : f32 to f16
    pointwise.yield %h : f16
  }
  return
}

// --function compiles that function alone: the others are left out.
// RUN: pw-compile %s -o %t.only.o --quiet --index-bitwidths=64 --function=scale
// RUN: nm %t.only.o | FileCheck %s --check-prefix=ONLY
// ONLY-NOT: other
// ONLY: T scale
// ONLY-NOT: other

// `other` (rank 1, 4-byte elements) launches blocks of 256 threads by
// default (pw-tile's choice, 8-byte vectors); --block-size and
// --vector-bytes override it.
// RUN: pw-compile %s -o %t.other.ll --quiet --index-bitwidths=64 --function=other
// RUN: FileCheck %s --check-prefix=AUTO-SHAPE < %t.other.ll
// RUN: pw-compile %s -o %t.other128.ll --quiet --index-bitwidths=64 --function=other --block-size=128 --vector-bytes=16
// RUN: FileCheck %s --check-prefix=FIXED-SHAPE < %t.other128.ll
// AUTO-SHAPE: call void @mgpuLaunchKernel(ptr %{{.*}}, i64 %{{.*}}, i64 1, i64 1, i64 256, i64 1, i64 1,
// FIXED-SHAPE: call void @mgpuLaunchKernel(ptr %{{.*}}, i64 %{{.*}}, i64 1, i64 1, i64 128, i64 1, i64 1,
func.func @other(%x: memref<?xf32>, %y: memref<?xf32>) {
  pointwise.map ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}

// Partly static layouts: dynamic strides are PW_DYNAMIC (INT64_MIN), and so
// is a dynamic offset beside a static stride; a rank-0 memref's static offset
// comes with a one-entry (unread) strides array.
// RUN: pw-compile %s -o %t.layouts.ll --quiet --index-bitwidths=64 --function=layouts
// RUN: FileCheck %s --check-prefix=LAYOUTS < %t.layouts.ll
// RUN: pw-compile %s -o %t.rank0.ll --quiet --index-bitwidths=64 --function=rank0
// RUN: FileCheck %s --check-prefix=RANK0 < %t.rank0.ll
// LAYOUTS-DAG: @pw_family_layouts.strides0 = private constant [2 x i64] [i64 -9223372036854775808, i64 1]
// LAYOUTS-DAG: @pw_family_layouts.strides2 = private constant [2 x i64] [i64 -9223372036854775808, i64 1]
// LAYOUTS-DAG: @pw_family_layouts.arguments = private constant [3 x { i32, i32, i32, i32, ptr, ptr, i64 }] [{ i32, i32, i32, i32, ptr, ptr, i64 } { i32 1, i32 7, i32 2, i32 2, ptr @pw_family_layouts.sizes0, ptr @pw_family_layouts.strides0, i64 4 }, { i32, i32, i32, i32, ptr, ptr, i64 } { i32 1, i32 7, i32 2, i32 2, ptr @pw_family_layouts.sizes1, ptr null, i64 0 }, { i32, i32, i32, i32, ptr, ptr, i64 } { i32 1, i32 7, i32 2, i32 2, ptr @pw_family_layouts.sizes2, ptr @pw_family_layouts.strides2, i64 -9223372036854775808 }]
// RANK0-DAG: @pw_family_rank0.strides0 = private constant [1 x i64] [i64 -9223372036854775808]
// RANK0-DAG: @pw_family_rank0.arguments = private constant [2 x { i32, i32, i32, i32, ptr, ptr, i64 }] [{ i32, i32, i32, i32, ptr, ptr, i64 } { i32 1, i32 7, i32 0, i32 2, ptr null, ptr @pw_family_rank0.strides0, i64 0 }, { i32, i32, i32, i32, ptr, ptr, i64 } { i32 1, i32 7, i32 0, i32 2, ptr null, ptr null, i64 0 }]
!r2fixed = memref<?x?xf32, strided<[?, 1], offset: 4>>
!r2any = memref<?x?xf32, strided<[?, ?], offset: ?>>
!r2rows = memref<?x?xf32, strided<[?, 1], offset: ?>>
func.func @layouts(%x: !r2fixed, %y: !r2any, %out: !r2rows) {
  pointwise.map ins(%x, %y : !r2fixed, !r2any) outs(%out : !r2rows) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    pointwise.yield %s : f32
  }
  return
}
func.func @rank0(%x: memref<f32>, %y: memref<f32, strided<[], offset: ?>>) {
  pointwise.map ins(%x : memref<f32>)
                outs(%y : memref<f32, strided<[], offset: ?>>) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}
