// --variants compiles only the named variants (or none): the family table
// keeps a row for every variant, with a null entry for those not compiled,
// and the C entry point is the same, its scalar types taken from the
// function's.
// RUN: pw-compile %s -o %t.mlir --quiet --target=cpu --variants=mix__r2_i64_linear
// RUN: FileCheck %s --check-prefix=MLIR < %t.mlir
// RUN: pw-compile %s -o %t.ll --quiet --target=cpu --variants=mix__r2_i64_linear
// RUN: FileCheck %s --check-prefix=ONE < %t.ll
// RUN: pw-compile %s -o %t.none.ll --quiet --target=cpu --variants=none
// RUN: FileCheck %s --check-prefix=NONE < %t.none.ll
// RUN: pw-compile %s -o %t.all.ll --quiet --target=cpu
// RUN: FileCheck %s --check-prefix=ALL < %t.all.ll
// RUN: not pw-compile %s -o %t.bad.o --quiet --target=cpu --variants=mix__r3_i64_linear 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not pw-compile %s -o %t.bad.o --quiet --target=cpu --variants=none,mix__r1_i64_linear 2>&1 | FileCheck %s --check-prefix=NONE-AND-NAMES

// On the GPU, linear-narrow and transpose variants by name: rows 0-7 are
// r1 i32, r1 i64, then at rank 2 per bitwidth linear, linear_narrow and
// transpose0 (the one memref input); only the two named have entries.
// RUN: pw-compile %s -o %t.gpu.ll --quiet --format=isa --function=copy --index-bitwidths=32,64 --variants=copy__r2_i32_linear_narrow,copy__r2_i64_transpose0
// RUN: FileCheck %s --check-prefix=GPU < %t.gpu.ll
// GPU: @pw_family_copy.variants = private global [8 x { i32, i32, i32, i32, ptr }] [{ i32, i32, i32, i32, ptr } { i32 1, i32 32, i32 0, i32 -1, ptr null }, { i32, i32, i32, i32, ptr } { i32 1, i32 64, i32 0, i32 -1, ptr null }, { i32, i32, i32, i32, ptr } { i32 2, i32 32, i32 0, i32 -1, ptr null }, { i32, i32, i32, i32, ptr } { i32 2, i32 32, i32 2, i32 -1, ptr @copy__r2_i32_linear_narrow_entry }, { i32, i32, i32, i32, ptr } { i32 2, i32 32, i32 1, i32 0, ptr null }, { i32, i32, i32, i32, ptr } { i32 2, i32 64, i32 0, i32 -1, ptr null }, { i32, i32, i32, i32, ptr } { i32 2, i32 64, i32 2, i32 -1, ptr null }, { i32, i32, i32, i32, ptr } { i32 2, i32 64, i32 1, i32 0, ptr @copy__r2_i64_transpose0_entry }]
// GPU-NOT: copy__r1_i32_linear

// MLIR-NOT: func.func @mix__r1_i64_linear(
// MLIR: func.func @mix__r2_i64_linear(
// MLIR-NOT: func.func @mix__r1_i64_linear(

// The variants array is writable: entries arrive later (pwcAddVariants).
// ONE-DAG: @pw_family_mix.variants = private global [2 x { i32, i32, i32, i32, ptr }] [{ i32, i32, i32, i32, ptr } { i32 1, i32 64, i32 0, i32 -1, ptr null }, { i32, i32, i32, i32, ptr } { i32 2, i32 64, i32 0, i32 -1, ptr @mix__r2_i64_linear_entry }]
// ONE-DAG: define i32 @mix(ptr %0, half %1, bfloat %2, i8 %3, i1 zeroext %4, double %5, ptr %6)
// ONE-NOT: mix__r1_i64_linear

// NONE-DAG: @pw_family_mix.variants = private global [2 x { i32, i32, i32, i32, ptr }] [{ i32, i32, i32, i32, ptr } { i32 1, i32 64, i32 0, i32 -1, ptr null }, { i32, i32, i32, i32, ptr } { i32 2, i32 64, i32 0, i32 -1, ptr null }]
// NONE-DAG: define i32 @mix(ptr %0, half %1, bfloat %2, i8 %3, i1 zeroext %4, double %5, ptr %6)
// NONE-NOT: _entry

// ALL-DAG: ptr @mix__r1_i64_linear_entry }, { i32, i32, i32, i32, ptr } { i32 2, i32 64, i32 0, i32 -1, ptr @mix__r2_i64_linear_entry }]
// ALL-DAG: define i32 @mix(ptr %0, half %1, bfloat %2, i8 %3, i1 zeroext %4, double %5, ptr %6)

// UNKNOWN: error: no variant named 'mix__r3_i64_linear'; variants are named <function>__r<rank>_i<bits>_linear, _linear_narrow or _transpose<argument>
// NONE-AND-NAMES: error: variants=none selects no variant and takes no variant names

!m = memref<?x?xf32, strided<[?, ?], offset: ?>>
func.func @mix(%x: !m, %h: f16, %b: bf16, %i: i8, %n: i1, %d: f64, %y: !m) {
  pointwise.map ins(%x, %h, %b, %i, %n, %d : !m, f16, bf16, i8, i1, f64)
                outs(%y : !m) {
  ^bb0(%a: f32, %hh: f16, %bb: bf16, %ii: i8, %nn: i1, %dd: f64):
    %0 = arith.extf %hh : f16 to f32
    %1 = arith.extf %bb : bf16 to f32
    %2 = arith.sitofp %ii : i8 to f32
    %3 = arith.truncf %dd : f64 to f32
    %4 = arith.addf %a, %0 : f32
    %5 = arith.addf %4, %1 : f32
    %6 = arith.addf %5, %2 : f32
    %7 = arith.addf %6, %3 : f32
    %8 = arith.select %nn, %7, %a : f32
    pointwise.yield %8 : f32
  }
  return
}

!c = memref<?x?xf32, strided<[?, ?], offset: ?>>
func.func @copy(%x: !c, %y: !c) {
  pointwise.map ins(%x : !c) outs(%y : !c) {
  ^bb0(%a: f32):
    pointwise.yield %a : f32
  }
  return
}
