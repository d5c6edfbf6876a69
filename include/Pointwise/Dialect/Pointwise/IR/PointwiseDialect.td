//===- PointwiseDialect.td - The pointwise dialect ---------*- tablegen -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_IR_POINTWISEDIALECT_TD
#define POINTWISE_DIALECT_POINTWISE_IR_POINTWISEDIALECT_TD

include "mlir/IR/OpBase.td"

def Pointwise_Dialect : Dialect {
  let name = "pointwise";
  let cppNamespace = "::pointwise";
  let summary = "Strided pointwise operations on memrefs of any layout";
  let description = [{
    The `pointwise` dialect expresses one scalar function applied elementwise
    over tensors of any rank, strides (including 0 and negative), offsets and
    NumPy broadcasting, with mixed tensor/scalar operands and several outputs.

    Its single computational op, `pointwise.map`, names the buffers it reads
    and writes and holds the scalar body as a region. The compiler's passes
    then canonicalize broadcasts, coalesce dimensions and tile the iteration
    space before lowering to GPU kernels or CPU loops.

    ```mlir
    pointwise.map ins(%a, %b, %alpha : memref<?x?xf32, strided<[?, ?], offset: ?>>,
                                       memref<?xf32>, f32)
                  outs(%c : memref<?x?xf32>) {
    ^bb0(%x: f32, %y: f32, %s: f32):
      %0 = arith.mulf %y, %s : f32
      %1 = arith.addf %x, %0 : f32
      pointwise.yield %1 : f32
    }
    ```
  }];
  // Bodies are written in arith and math; loading them with the pointwise
  // dialect lets any host compiler parse a map without extra registration.
  // The run-time checks of a map (RuntimeVerifiableOpInterface) are
  // memref.dim, memref.extract_strided_metadata and cf.assert ops.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect"];
}

class Pointwise_Op<string mnemonic, list<Trait> traits = []>
    : Op<Pointwise_Dialect, mnemonic, traits>;

#endif // POINTWISE_DIALECT_POINTWISE_IR_POINTWISEDIALECT_TD
