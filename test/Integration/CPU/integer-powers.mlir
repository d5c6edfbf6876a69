// Integer powers in map bodies (math.ipowi, math.fpowi), which LLVM has no
// intrinsic for: upstream's convert-math-to-funcs turns them into calls of
// functions once the bodies are loops, on both CPU lowerings. Values are
// checked against hand-computed powers (wrapping at 32 bits), and each run
// against the reference lowering.
// RUN: pw-run %s --entry ipow --fill=iota --arg 5+1 --arg =3 --arg 5 --print --check | FileCheck %s --check-prefix=CUBE
// RUN: pw-run %s --entry ipow --fill=iota --arg 5+1 --arg =3 --arg 5 --print --check --lowering=tiled | FileCheck %s --check-prefix=CUBE
// RUN: pw-run %s --entry ipow --fill=iota --arg 5+1 --arg =31 --arg 5 --print --check --lowering=tiled | FileCheck %s --check-prefix=WRAP
// RUN: pw-run %s --entry ipow --fill=iota --arg 5+1 --arg =0 --arg 5 --print --check | FileCheck %s --check-prefix=ZERO
// RUN: pw-run %s --entry ipow --fill=iota --arg 5+1 --arg =-2 --arg 5 --print --check --lowering=tiled | FileCheck %s --check-prefix=NEGATIVE
// RUN: pw-run %s --entry ipow_shifted --fill=iota --arg 5 --arg =3 --arg 5 --print --check --lowering=tiled | FileCheck %s --check-prefix=SHIFTED-CUBE
// RUN: pw-run %s --entry ipow_shifted --fill=iota --arg 2 --arg =-3 --arg 2 --print --check | FileCheck %s --check-prefix=SHIFTED-NEGATIVE
// RUN: pw-run %s --entry fpow --fill=iota --arg 5@-1+5 --arg =-2 --arg 5 --print --check | FileCheck %s --check-prefix=FPOW
// RUN: pw-run %s --entry fpow --fill=iota --arg 5@-1+5 --arg =-2 --arg 5 --print --check --lowering=tiled | FileCheck %s --check-prefix=FPOW

// CUBE: argument #2 (5@1+0 xi32):
// CUBE-NEXT: {{^}}[1, 8, 27, 64, 125]{{$}}
// CUBE-NEXT: check passed
// WRAP: {{^}}[1, -2147483648, 1264544299, 0, -2128439731]{{$}}
// WRAP-NEXT: check passed
// ZERO: {{^}}[1, 1, 1, 1, 1]{{$}}
// ZERO-NEXT: check passed
// NEGATIVE: {{^}}[1, 0, 0, 0, 0]{{$}}
// NEGATIVE-NEXT: check passed
func.func @ipow(%a: memref<?xi32, strided<[?], offset: ?>>, %n: i32, %c: memref<?xi32>) {
  pointwise.map ins(%a, %n : memref<?xi32, strided<[?], offset: ?>>, i32) outs(%c : memref<?xi32>) {
  ^bb0(%x: i32, %k: i32):
    %r = math.ipowi %x, %k : i32
    pointwise.yield %r : i32
  }
  return
}

// Negative bases: (x - 2) ** n.
// SHIFTED-CUBE: {{^}}[-8, -1, 0, 1, 8]{{$}}
// SHIFTED-CUBE-NEXT: check passed
// SHIFTED-NEGATIVE: {{^}}[0, -1]{{$}}
// SHIFTED-NEGATIVE-NEXT: check passed
func.func @ipow_shifted(%a: memref<?xi64>, %n: i64, %c: memref<?xi64>) {
  pointwise.map ins(%a, %n : memref<?xi64>, i64) outs(%c : memref<?xi64>) {
  ^bb0(%x: i64, %k: i64):
    %two = arith.constant 2 : i64
    %b = arith.subi %x, %two : i64
    %r = math.ipowi %b, %k : i64
    pointwise.yield %r : i64
  }
  return
}

// A float base to an integer power, the input read backwards ([5 .. 1]).
// FPOW: argument #2 (5@1+0 xf32):
// FPOW-NEXT: {{^}}[0.0399999991, 0.0625, 0.111111112, 0.25, 1]{{$}}
// FPOW-NEXT: check passed
func.func @fpow(%a: memref<?xf32, strided<[?], offset: ?>>, %n: i32, %c: memref<?xf32>) {
  pointwise.map ins(%a, %n : memref<?xf32, strided<[?], offset: ?>>, i32) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %k: i32):
    %r = math.fpowi %x, %k : f32, i32
    pointwise.yield %r : f32
  }
  return
}
