// A signless integer scalar takes either reading of its bits, as MLIR's
// integer literals do: -128 .. 255 for i8, where =255 and =-1 are the same
// bits. Values outside that range are an error, not wrapped. i1 takes true,
// false, 1 or 0; a float that rounds to infinity in its type is an error.

// RUN: not pw-run %s --entry i8 --arg =300 --arg 2 2>&1 | FileCheck %s --check-prefix=I8-HIGH
// I8-HIGH: pw-run: argument #0: 300 is out of range for i8: expected -128 to 255 (the signed or unsigned reading of its 8 bits)
// RUN: not pw-run %s --entry i8 --arg =-129 --arg 2 2>&1 | FileCheck %s --check-prefix=I8-LOW
// I8-LOW: pw-run: argument #0: -129 is out of range for i8: expected -128 to 255
// RUN: not pw-run %s --entry i16 --arg =65536 --arg 2 2>&1 | FileCheck %s --check-prefix=I16
// I16: pw-run: argument #0: 65536 is out of range for i16: expected -32768 to 65535
// RUN: not pw-run %s --entry i32 --arg =-2147483649 --arg 2 2>&1 | FileCheck %s --check-prefix=I32
// I32: pw-run: argument #0: -2147483649 is out of range for i32: expected -2147483648 to 4294967295
// RUN: not pw-run %s --entry i64 --arg =18446744073709551616 --arg 2 2>&1 | FileCheck %s --check-prefix=I64
// I64: pw-run: argument #0: 18446744073709551616 is out of range for i64: expected -9223372036854775808 to 18446744073709551615
// RUN: not pw-run %s --entry i64 --arg =-9223372036854775809 --arg 2 2>&1 | FileCheck %s --check-prefix=I64-LOW
// I64-LOW: pw-run: argument #0: -9223372036854775809 is out of range for i64
// RUN: not pw-run %s --entry i8 --arg =+1 --arg 2 2>&1 | FileCheck %s --check-prefix=NOT-INTEGER
// NOT-INTEGER: pw-run: argument #0: expected an integer, got '+1'
// RUN: not pw-run %s --entry i1 --arg =-1 --arg 2 2>&1 | FileCheck %s --check-prefix=I1
// I1: pw-run: argument #0: expected true, false, 1 or 0, got '-1'
// RUN: not pw-run %s --entry f16 --arg =70000 --arg 2 2>&1 | FileCheck %s --check-prefix=F16
// F16: pw-run: argument #0: 70000 is out of range for f16 (it rounds to infinity)

// The bounds themselves are accepted; the outputs print the signed reading.
// RUN: pw-run %s --entry i8 --arg =255 --arg 1 --print | FileCheck %s --check-prefix=I8-255
// I8-255: [-1]
// RUN: pw-run %s --entry i8 --arg =-128 --arg 1 --print | FileCheck %s --check-prefix=I8-MIN
// I8-MIN: [-128]
// RUN: pw-run %s --entry i8 --arg =127 --arg 1 --print | FileCheck %s --check-prefix=I8-MAX
// I8-MAX: [127]
// RUN: pw-run %s --entry i16 --arg =65535 --arg 1 --print | FileCheck %s --check-prefix=MINUS-ONE
// RUN: pw-run %s --entry i32 --arg =4294967295 --arg 1 --print | FileCheck %s --check-prefix=MINUS-ONE
// RUN: pw-run %s --entry i64 --arg =18446744073709551615 --arg 1 --print | FileCheck %s --check-prefix=MINUS-ONE
// MINUS-ONE: [-1]
// RUN: pw-run %s --entry i64 --arg =-9223372036854775808 --arg 1 --print | FileCheck %s --check-prefix=I64-MIN
// I64-MIN: [-9223372036854775808]
// RUN: pw-run %s --entry f16 --arg =65504 --arg 1 --print | FileCheck %s --check-prefix=F16-MAX
// F16-MAX: [65504]
// RUN: pw-run %s --entry f16 --arg =-inf --arg 1 --print | FileCheck %s --check-prefix=F16-INF
// F16-INF: [-inf]

func.func @i1(%k: i1, %c: memref<?xi1>) {
  pointwise.map ins(%k : i1) outs(%c : memref<?xi1>) {
  ^bb0(%x: i1):
    pointwise.yield %x : i1
  }
  return
}

func.func @i8(%k: i8, %c: memref<?xi8>) {
  pointwise.map ins(%k : i8) outs(%c : memref<?xi8>) {
  ^bb0(%x: i8):
    pointwise.yield %x : i8
  }
  return
}

func.func @i16(%k: i16, %c: memref<?xi16>) {
  pointwise.map ins(%k : i16) outs(%c : memref<?xi16>) {
  ^bb0(%x: i16):
    pointwise.yield %x : i16
  }
  return
}

func.func @i32(%k: i32, %c: memref<?xi32>) {
  pointwise.map ins(%k : i32) outs(%c : memref<?xi32>) {
  ^bb0(%x: i32):
    pointwise.yield %x : i32
  }
  return
}

func.func @i64(%k: i64, %c: memref<?xi64>) {
  pointwise.map ins(%k : i64) outs(%c : memref<?xi64>) {
  ^bb0(%x: i64):
    pointwise.yield %x : i64
  }
  return
}

func.func @f16(%k: f16, %c: memref<?xf16>) {
  pointwise.map ins(%k : f16) outs(%c : memref<?xf16>) {
  ^bb0(%x: f16):
    pointwise.yield %x : f16
  }
  return
}
