// Every i8 and i16 converted to f32, signed and unsigned: the outputs are
// the f32 bits as i32, so they compare exactly. The GPU runs of this module
// (test/Integration/GPU/pipeline.test) check every input bit for bit
// against the CPU's conversion instructions.
// RUN: pw-run %s --entry i16_to_f32 --fill=iota --check | FileCheck %s
// RUN: pw-run %s --entry i8_to_f32 --fill=iota --check | FileCheck %s
// CHECK: check passed
//
// Zero as +0.0 (bits 0), 1, 2, and around 127: signed -128 and -127
// after 127, unsigned 128 and 129; the last is -1 signed, 255 unsigned.
// RUN: pw-run %s --entry i8_to_f32 --fill=iota --print | FileCheck %s --check-prefix=I8
// I8: argument #1 (256@1+0 xi32):
// I8-NEXT: [0, 1065353216, 1073741824,
// I8-SAME: 1123942400, -1023410176, -1023541248,
// I8-SAME: -1082130432]
// I8: argument #2 (256@1+0 xi32):
// I8-NEXT: [0, 1065353216, 1073741824,
// I8-SAME: 1123942400, 1124073472, 1124139008,
// I8-SAME: 1132396544]

func.func @i16_to_f32(%k: memref<65536xi16>, %signed: memref<65536xi32>,
                      %unsigned: memref<65536xi32>) {
  pointwise.map ins(%k : memref<65536xi16>)
      outs(%signed, %unsigned : memref<65536xi32>, memref<65536xi32>) {
  ^bb0(%v: i16):
    %s = arith.sitofp %v : i16 to f32
    %u = arith.uitofp %v : i16 to f32
    %sb = arith.bitcast %s : f32 to i32
    %ub = arith.bitcast %u : f32 to i32
    pointwise.yield %sb, %ub : i32, i32
  }
  return
}

func.func @i8_to_f32(%k: memref<256xi8>, %signed: memref<256xi32>,
                     %unsigned: memref<256xi32>) {
  pointwise.map ins(%k : memref<256xi8>)
      outs(%signed, %unsigned : memref<256xi32>, memref<256xi32>) {
  ^bb0(%v: i8):
    %s = arith.sitofp %v : i8 to f32
    %u = arith.uitofp %v : i8 to f32
    %sb = arith.bitcast %s : f32 to i32
    %ub = arith.bitcast %u : f32 to i32
    pointwise.yield %sb, %ub : i32, i32
  }
  return
}
