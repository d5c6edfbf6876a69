// bf16 and f16 add, subtract and multiply, and a multiply by an i8 converted
// to the float type, on every 16-bit pattern x paired with y = x * 257 +
// 12345 (a bijection on the patterns): the outputs are the result bits,
// NaN as one quiet NaN since payloads may differ. Integers compare exactly,
// so the GPU runs of this module (test/Integration/GPU/pipeline.test) check
// the GPU's op math (f32, rounded once, or bf16/f16 instructions where LLVM
// narrows it) bit for bit against the CPU's.
// RUN: pw-run %s --entry bf16_ops --fill=iota --check | FileCheck %s
// RUN: pw-run %s --entry f16_ops --fill=iota --check | FileCheck %s
// CHECK: check passed

func.func @bf16_ops(%bits: memref<65536xi16>, %add: memref<65536xi16>,
                    %sub: memref<65536xi16>, %mul: memref<65536xi16>,
                    %masked: memref<65536xi16>) {
  pointwise.map ins(%bits : memref<65536xi16>)
      outs(%add, %sub, %mul, %masked : memref<65536xi16>, memref<65536xi16>,
           memref<65536xi16>, memref<65536xi16>) {
  ^bb0(%xb: i16):
    %c257 = arith.constant 257 : i16
    %c12345 = arith.constant 12345 : i16
    %quiet = arith.constant 0x7FC0 : i16
    %scaled = arith.muli %xb, %c257 : i16
    %yb = arith.addi %scaled, %c12345 : i16
    %x = arith.bitcast %xb : i16 to bf16
    %y = arith.bitcast %yb : i16 to bf16
    %k = arith.trunci %xb : i16 to i8
    %m = arith.sitofp %k : i8 to bf16
    %s = arith.addf %x, %y : bf16
    %d = arith.subf %x, %y : bf16
    %p = arith.mulf %x, %y : bf16
    %q = arith.mulf %y, %m : bf16
    %sb = arith.bitcast %s : bf16 to i16
    %sn = arith.cmpf uno, %s, %s : bf16
    %so = arith.select %sn, %quiet, %sb : i16
    %db = arith.bitcast %d : bf16 to i16
    %dn = arith.cmpf uno, %d, %d : bf16
    %do = arith.select %dn, %quiet, %db : i16
    %pb = arith.bitcast %p : bf16 to i16
    %pn = arith.cmpf uno, %p, %p : bf16
    %po = arith.select %pn, %quiet, %pb : i16
    %qb = arith.bitcast %q : bf16 to i16
    %qn = arith.cmpf uno, %q, %q : bf16
    %qo = arith.select %qn, %quiet, %qb : i16
    pointwise.yield %so, %do, %po, %qo : i16, i16, i16, i16
  }
  return
}

func.func @f16_ops(%bits: memref<65536xi16>, %add: memref<65536xi16>,
                    %sub: memref<65536xi16>, %mul: memref<65536xi16>,
                    %masked: memref<65536xi16>) {
  pointwise.map ins(%bits : memref<65536xi16>)
      outs(%add, %sub, %mul, %masked : memref<65536xi16>, memref<65536xi16>,
           memref<65536xi16>, memref<65536xi16>) {
  ^bb0(%xb: i16):
    %c257 = arith.constant 257 : i16
    %c12345 = arith.constant 12345 : i16
    %quiet = arith.constant 0x7E00 : i16
    %scaled = arith.muli %xb, %c257 : i16
    %yb = arith.addi %scaled, %c12345 : i16
    %x = arith.bitcast %xb : i16 to f16
    %y = arith.bitcast %yb : i16 to f16
    %k = arith.trunci %xb : i16 to i8
    %m = arith.sitofp %k : i8 to f16
    %s = arith.addf %x, %y : f16
    %d = arith.subf %x, %y : f16
    %p = arith.mulf %x, %y : f16
    %q = arith.mulf %y, %m : f16
    %sb = arith.bitcast %s : f16 to i16
    %sn = arith.cmpf uno, %s, %s : f16
    %so = arith.select %sn, %quiet, %sb : i16
    %db = arith.bitcast %d : f16 to i16
    %dn = arith.cmpf uno, %d, %d : f16
    %do = arith.select %dn, %quiet, %db : i16
    %pb = arith.bitcast %p : f16 to i16
    %pn = arith.cmpf uno, %p, %p : f16
    %po = arith.select %pn, %quiet, %pb : i16
    %qb = arith.bitcast %q : f16 to i16
    %qn = arith.cmpf uno, %q, %q : f16
    %qo = arith.select %qn, %quiet, %qb : i16
    pointwise.yield %so, %do, %po, %qo : i16, i16, i16, i16
  }
  return
}
