// Integer division by zero, and INT_MIN / -1, are undefined in arith and trap
// on x86: pw-run reports them with a message and exit status 1, not a crash
// and a stack dump. --fill=iota gives the divisor buffer a 0 at offset 0.
// RUN: not pw-run %s --entry divide --fill=iota --arg 4 --arg 4 --arg 4 2>&1 | FileCheck %s
// RUN: not pw-run %s --entry divide --fill=iota --arg 4 --arg 4 --arg 4 --lowering=tiled 2>&1 | FileCheck %s
// RUN: not pw-run %s --entry remainder_by_scalar --fill=iota --arg 4 --arg =0 --arg 4 2>&1 | FileCheck %s --check-prefix=REMAINDER
// RUN: not pw-run %s --entry divide_by_scalar --arg =-1 --arg 2 --check 2>&1 | FileCheck %s --check-prefix=SCALAR
// CHECK: pw-run: 'divide': integer division by zero or overflow in the map body (SIGFPE): arith's integer division and remainder are undefined for a zero divisor and for INT_MIN / -1
// CHECK-NOT: PLEASE submit a bug report
// REMAINDER: pw-run: 'remainder_by_scalar': integer division by zero or overflow in the map body (SIGFPE)
// SCALAR: pw-run: 'divide_by_scalar': integer division by zero or overflow in the map body (SIGFPE)

// Defined divisions still run, and run again under --check and --bench.
// RUN: pw-run %s --entry divide --fill=iota --arg 3+1 --arg 3+1 --arg 3 --print --check --bench=3 | FileCheck %s --check-prefix=DEFINED
// DEFINED: argument #2 (3@1+0 xi32):
// DEFINED-NEXT: [1, 1, 1]
// DEFINED-NEXT: check passed
// DEFINED-NEXT: bench: 3 calls

func.func @divide(%a: memref<?xi32, strided<[1], offset: ?>>, %b: memref<?xi32, strided<[1], offset: ?>>, %c: memref<?xi32>) {
  pointwise.map ins(%a, %b : memref<?xi32, strided<[1], offset: ?>>, memref<?xi32, strided<[1], offset: ?>>) outs(%c : memref<?xi32>) {
  ^bb0(%x: i32, %y: i32):
    %0 = arith.divsi %x, %y : i32
    pointwise.yield %0 : i32
  }
  return
}

func.func @remainder_by_scalar(%a: memref<?xi64>, %k: i64, %c: memref<?xi64>) {
  pointwise.map ins(%a, %k : memref<?xi64>, i64) outs(%c : memref<?xi64>) {
  ^bb0(%x: i64, %y: i64):
    %0 = arith.remui %x, %y : i64
    pointwise.yield %0 : i64
  }
  return
}

// INT_MIN / -1 overflows.
func.func @divide_by_scalar(%k: i32, %c: memref<?xi32>) {
  pointwise.map ins(%k : i32) outs(%c : memref<?xi32>) {
  ^bb0(%y: i32):
    %min = arith.constant -2147483648 : i32
    %0 = arith.divsi %min, %y : i32
    pointwise.yield %0 : i32
  }
  return
}
