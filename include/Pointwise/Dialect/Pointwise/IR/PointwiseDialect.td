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
  let summary = "Strided pointwise operations on memrefs of any layout and "
                "on tensors";
  let description = [{
    The `pointwise` dialect expresses one scalar function applied elementwise
    over tensors of any rank, strides (including 0 and negative), offsets and
    NumPy broadcasting, with mixed tensor/scalar operands and several outputs.

    Its single computational op, `pointwise.map`, names the buffers it reads
    and writes and holds the scalar body as a region. The compiler's passes
    then canonicalize broadcasts, coalesce dimensions and tile the iteration
    space before lowering to GPU kernels or CPU loops. The same op also takes
    tensors in destination-passing style; one-shot bufferization turns those
    maps into the memref form.

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

    ### Discardable attributes

    The passes communicate through these attributes, declared by the
    dialect (`PointwiseDialect::<Name>AttrHelper`):

    Set by callers, on an op enclosing maps (usually the function), read by
    the passes for the maps inside; `pw-compile` sets them on the variants
    of a kernel family, which all go through one pipeline run:

    - `pointwise.broadcast_resolved` (unit): the caller guarantees that every
      memref operand already has the iteration shape, broadcast dims carrying
      stride 0 (the runtime's dispatch does this); `pw-canonicalize-broadcast`
      keeps dynamic sizes as they are, which keeps static strides static.
    - `pointwise.tile_strategy` (string): `pw-tile`'s `strategy` option.
    - `pointwise.tile_vector_bytes` (integer): `pw-tile`'s `vector-bytes`
      option (a power of two up to 32; 0 decides per map).
    - `pointwise.tile_index_bitwidth` (integer): `pw-tile`'s `index-bitwidth`
      option.

    Set by `pw-tile` on its tiled form and read back by `pw-lower-to-gpu`
    and `pw-hint-global-loads`:

    - `pointwise.strategy` (string, on a block loop and on the kernel made
      of it): the strategy chosen (`linear`, `transpose`, `general`).
    - `pointwise.input_bytes_per_block` (integer, on a block loop and on the
      kernel made of it): the bytes of memref inputs one block reads, each
      input element counted once per element of the iteration space; with
      the grid size it gives the bytes a launch reads, from which
      `pw-hint-global-loads` chooses the loads' cache policy at run time.
    - `pointwise.instructions_per_byte` (f64, on a block loop and on the
      kernel made of it): the map's estimated instructions per byte moved,
      from which `pw-hint-global-loads` decides whether the kernel is
      memory-bound enough for the L2 hint.
    - `pointwise.block_local` (unit, on a `memref.alloca` before a block
      loop): every block has its own copy (workgroup memory on the GPU).
  }];
  let discardableAttrs = (ins
    "::mlir::UnitAttr":$broadcast_resolved,
    "::mlir::StringAttr":$tile_strategy,
    "::mlir::IntegerAttr":$tile_vector_bytes,
    "::mlir::IntegerAttr":$tile_index_bitwidth,
    "::mlir::StringAttr":$strategy,
    "::mlir::IntegerAttr":$input_bytes_per_block,
    "::mlir::FloatAttr":$instructions_per_byte,
    "::mlir::UnitAttr":$block_local
  );
  // Bodies are written in arith and math; loading them with the pointwise
  // dialect lets any host compiler parse a map without extra registration.
  // The run-time checks of a map (RuntimeVerifiableOpInterface) are
  // memref.dim (tensor.dim in the tensor form),
  // memref.extract_strided_metadata and cf.assert ops.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect"];
}

class Pointwise_Op<string mnemonic, list<Trait> traits = []>
    : Op<Pointwise_Dialect, mnemonic, traits>;

#endif // POINTWISE_DIALECT_POINTWISE_IR_POINTWISEDIALECT_TD
