// Map bodies with scf.if, scf.for, scf.while and a multi-block
// scf.execute_region, whose regions use body values they do not receive as
// arguments, run on the CPU through plain loops and through the tiled code,
// and agree with the reference lowering.
// RUN: pw-run %s --entry negate_unless --fill=iota --arg 10 --arg =0 --arg 10 --print --check | FileCheck %s --check-prefix=NEGATE
// RUN: pw-run %s --entry negate_unless --fill=iota --arg 10 --arg =1 --arg 10 --print --check --lowering=tiled | FileCheck %s --check-prefix=KEEP
// RUN: pw-run %s --entry power --fill=iota --arg 6 --arg =3 --arg 6 --print --check | FileCheck %s --check-prefix=POWER
// RUN: pw-run %s --entry power --fill=iota --arg 6 --arg =3 --arg 6 --print --check --lowering=tiled | FileCheck %s --check-prefix=POWER
// RUN: pw-run %s --entry halve_below_limit --fill=iota --arg 6 --arg =1 --arg 6 --print --check | FileCheck %s --check-prefix=HALVE
// RUN: pw-run %s --entry halve_below_limit --fill=iota --arg 6 --arg =1 --arg 6 --print --check --lowering=tiled | FileCheck %s --check-prefix=HALVE
// RUN: pw-run %s --entry half_scaled_twice --fill=iota --arg 3+1 --arg =300 --arg 3 --print --check | FileCheck %s --check-prefix=OPMATH
// RUN: pw-run %s --entry half_scaled_twice --fill=iota --arg 3+1 --arg =300 --arg 3 --print --check --lowering=tiled | FileCheck %s --check-prefix=OPMATH
// RUN: pw-run %s --entry bf16_double_unless_negative --fill=iota --arg 4@-1+3 --arg 4 --print --check | FileCheck %s --check-prefix=BF16

// NEGATE: argument #2 (10@1+0 xf32):
// NEGATE-NEXT: {{^}}[-0, -1, -2, -3, -4, -5, -6, -7, -8, -9]{{$}}
// NEGATE-NEXT: check passed
// KEEP: argument #2 (10@1+0 xf32):
// KEEP-NEXT: {{^}}[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]{{$}}
// KEEP-NEXT: check passed
func.func @negate_unless(%a: memref<?xf32>, %keep: i1, %c: memref<?xf32>) {
  pointwise.map ins(%a, %keep : memref<?xf32>, i1) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %k: i1):
    %r = scf.if %k -> f32 {
      scf.yield %x : f32
    } else {
      %n = arith.negf %x : f32
      scf.yield %n : f32
    }
    pointwise.yield %r : f32
  }
  return
}

// x^n: the loop captures the element.
// POWER: argument #2 (6@1+0 xi32):
// POWER-NEXT: {{^}}[0, 1, 8, 27, 64, 125]{{$}}
// POWER-NEXT: check passed
func.func @power(%a: memref<?xi32>, %n: index, %c: memref<?xi32>) {
  pointwise.map ins(%a, %n : memref<?xi32>, index) outs(%c : memref<?xi32>) {
  ^bb0(%x: i32, %k: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %one) -> i32 {
      %m = arith.muli %acc, %x : i32
      scf.yield %m : i32
    }
    pointwise.yield %r : i32
  }
  return
}

// Halves until at most the limit: the loop captures the limit and 0.5.
// HALVE: argument #2 (6@1+0 xf32):
// HALVE-NEXT: {{^}}[0, 1, 1, 0.75, 1, 0.625]{{$}}
// HALVE-NEXT: check passed
func.func @halve_below_limit(%a: memref<?xf32>, %limit: f32, %c: memref<?xf32>) {
  pointwise.map ins(%a, %limit : memref<?xf32>, f32) outs(%c : memref<?xf32>) {
  ^bb0(%x: f32, %l: f32):
    %half = arith.constant 0.5 : f32
    %r = scf.while (%v = %x) : (f32) -> f32 {
      %big = arith.cmpf ogt, %v, %l : f32
      scf.condition(%big) %v : f32
    } do {
    ^bb0(%w: f32):
      %h = arith.mulf %w, %half : f32
      scf.yield %h : f32
    }
    pointwise.yield %r : f32
  }
  return
}

// x * 300 * 300 / 300 / 300 in f16 storage: the loop's 90000 x overflows f16
// (largest finite 65504) but not the f32 the body computes in, so the
// result is x again, not inf.
// OPMATH: argument #2 (3@1+0 xf16):
// OPMATH-NEXT: {{^}}[1, 2, 3]{{$}}
// OPMATH-NEXT: check passed
func.func @half_scaled_twice(%a: memref<?xf16, strided<[1], offset: ?>>, %s: f16, %c: memref<?xf16>) {
  pointwise.map ins(%a, %s : memref<?xf16, strided<[1], offset: ?>>, f16) outs(%c : memref<?xf16>) {
  ^bb0(%x: f16, %k: f16):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %big = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %x) -> f16 {
      %m = arith.mulf %acc, %k : f16
      %pos = arith.cmpf ogt, %m, %x : f16
      %n = scf.if %pos -> f16 {
        scf.yield %m : f16
      } else {
        %d = arith.subf %m, %k : f16
        scf.yield %d : f16
      }
      scf.yield %n : f16
    }
    %q = arith.divf %big, %k : f16
    %r = arith.divf %q, %k : f16
    pointwise.yield %r : f16
  }
  return
}

// Blocks branching inside a region, on the input read backwards
// ([3, 2, 1, 0]): x - 1.5, doubled unless negative.
// BF16: argument #1 (4@1+0 xbf16):
// BF16-NEXT: {{^}}[3, 1, -0.5, -1.5]{{$}}
// BF16-NEXT: check passed
func.func @bf16_double_unless_negative(%a: memref<?xbf16, strided<[?], offset: ?>>, %c: memref<?xbf16>) {
  pointwise.map ins(%a : memref<?xbf16, strided<[?], offset: ?>>) outs(%c : memref<?xbf16>) {
  ^bb0(%x: bf16):
    %zero = arith.constant 0.0 : bf16
    %shift = arith.constant 1.5 : bf16
    %y = arith.subf %x, %shift : bf16
    %r = scf.execute_region -> bf16 {
      %neg = arith.cmpf olt, %y, %zero : bf16
      cf.cond_br %neg, ^bb2(%y : bf16), ^bb1
    ^bb1:
      %d = arith.addf %y, %y : bf16
      cf.br ^bb2(%d : bf16)
    ^bb2(%v: bf16):
      scf.yield %v : bf16
    }
    pointwise.yield %r : bf16
  }
  return
}
