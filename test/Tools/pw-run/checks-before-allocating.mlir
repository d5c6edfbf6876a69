// pw-run checks the views before it allocates their buffers: views that do
// not broadcast are an error without allocating gigabytes first, and
// buffers larger than the memory available are an error, not an abort.
// RUN: not pw-run %pointwise_src_root/examples/axpy.mlir --arg 2147483647x1 --arg 4 --arg =0.5 --arg 3x4 2>&1 | FileCheck %s --check-prefix=SHAPES
// SHAPES: pw-run: layout error: axpy: operand #1 dim 0 (size 2147483647) does not broadcast to size 3 of iteration dim 0
// Eight i64 views of 2^31 elements: 128 GiB, twice over with --check.
// RUN: not pw-run %s --arg 2x3+2147483642 --arg 2x3+2147483642 --arg 2x3+2147483642 --arg 2x3+2147483642 --arg 2x3+2147483642 --arg 2x3+2147483642 --arg 2x3+2147483642 --arg 2x3+2147483642 --check 2>&1 | FileCheck %s --check-prefix=MEMORY
// MEMORY: pw-run: the argument buffers need 274877906944 bytes (twice over: --check runs the reference on copies), more than the {{[0-9]+}} bytes of memory available; give smaller views
// RUN: not pw-run %s --arg 2x3+2147483642 --arg 2x3+2147483642 --arg 2x3+2147483642 --arg 2x3+2147483642 --arg 2x3+2147483642 --arg 2x3+2147483642 --arg 2x3+2147483642 --arg 2x3+2147483642 2>&1 | FileCheck %s --check-prefix=MEMORY-NO-CHECK
// MEMORY-NO-CHECK: pw-run: the argument buffers need 137438953472 bytes, more than

func.func @sum8(%a: memref<?x?xi64, strided<[?, ?], offset: ?>>, %b: memref<?x?xi64, strided<[?, ?], offset: ?>>,
                %c: memref<?x?xi64, strided<[?, ?], offset: ?>>, %d: memref<?x?xi64, strided<[?, ?], offset: ?>>,
                %e: memref<?x?xi64, strided<[?, ?], offset: ?>>, %f: memref<?x?xi64, strided<[?, ?], offset: ?>>,
                %g: memref<?x?xi64, strided<[?, ?], offset: ?>>, %o: memref<?x?xi64, strided<[?, ?], offset: ?>>) {
  pointwise.map ins(%a, %b, %c, %d, %e, %f, %g : memref<?x?xi64, strided<[?, ?], offset: ?>>, memref<?x?xi64, strided<[?, ?], offset: ?>>,
                                                 memref<?x?xi64, strided<[?, ?], offset: ?>>, memref<?x?xi64, strided<[?, ?], offset: ?>>,
                                                 memref<?x?xi64, strided<[?, ?], offset: ?>>, memref<?x?xi64, strided<[?, ?], offset: ?>>,
                                                 memref<?x?xi64, strided<[?, ?], offset: ?>>)
                outs(%o : memref<?x?xi64, strided<[?, ?], offset: ?>>) {
  ^bb0(%x0: i64, %x1: i64, %x2: i64, %x3: i64, %x4: i64, %x5: i64, %x6: i64):
    %s0 = arith.addi %x0, %x1 : i64
    %s1 = arith.addi %s0, %x2 : i64
    %s2 = arith.addi %s1, %x3 : i64
    %s3 = arith.addi %s2, %x4 : i64
    %s4 = arith.addi %s3, %x5 : i64
    %s5 = arith.addi %s4, %x6 : i64
    pointwise.yield %s5 : i64
  }
  return
}
