//===- PointwiseOps.td - pointwise.map and pointwise.yield -*- tablegen -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_IR_POINTWISEOPS_TD
#define POINTWISE_DIALECT_POINTWISE_IR_POINTWISEOPS_TD

include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/RuntimeVerifiableOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def Pointwise_MapOp : Pointwise_Op<"map", [
    AttrSizedOperandSegments,
    IsolatedFromAbove,
    SingleBlock,
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<RuntimeVerifiableOpInterface>]> {
  let summary = "Applies a scalar function elementwise over strided memrefs "
                "or tensors";
  let description = [{
    `pointwise.map` evaluates its body once for every index of the iteration
    space and stores the yielded values into the outputs at that index.

    The op has two forms, which take the same broadcasting, region and
    verifier rules:

    - the *memref form* (below) writes into its `outs` buffers and has no
      results;
    - the *tensor form* takes tensors in destination-passing style: `ins` of
      tensors and scalars, `outs` of tensors (the destinations, which give
      the iteration space and the result types), and one result per `outs`
      operand, of that operand's type, printed after the region as
      `linalg.generic` does. It has no memory effects, so an unused tensor
      map is dead code. One-shot bufferization (the dialect promises
      `BufferizableOpInterface`; tools that register the dialect through
      `registerPointwiseDialect` get the implementation) turns it into the
      memref form, writing in place into a destination's buffer where the
      analysis allows. The body never reads the destinations, so their
      contents do not matter (`tensor.empty` is the usual destination).

    One map does not mix tensors and memrefs.

    Canonicalization (`--canonicalize`) simplifies both forms: an input
    that appears twice (the same value) becomes one input; a scalar input
    defined by a constant moves into the body. In the tensor form, outputs
    whose results have no uses are dropped, and a result that yields an
    input unchanged is replaced by that input where the two are provably the
    same tensor: the input is the result's own destination, or both have the
    same fully static type. A memref map that only copies a buffer onto
    itself is erased.

    ```mlir
    %r = pointwise.map ins(%a, %b, %s : tensor<?x?xf32>, tensor<?xf32>, f32)
                       outs(%init : tensor<?x?xf32>) {
    ^bb0(%x: f32, %y: f32, %z: f32):
      %0 = arith.mulf %y, %z : f32
      %1 = arith.addf %x, %0 : f32
      pointwise.yield %1 : f32
    } -> tensor<?x?xf32>
    ```

    Rules of both forms, where "memref" stands for "memref or tensor"
    unless it speaks of layouts, overlap or memory:

    - `ins`: memrefs of any rank and strided layout (static or dynamic sizes,
      strides and offset; stride 0; negative static strides) and scalars
      (signless integer, index, float). Each memref input broadcasts to the
      iteration space by NumPy rules: dims are right-aligned, each input dim
      equals the iteration dim or is 1, and missing leading dims broadcast.
    - `outs`: one or more memrefs, all of the same shape, which is the
      iteration space. An output must not overlap itself (a dim of size > 1
      with stride 0) and must not partially overlap an input; exact aliasing
      of an input (in-place update) is allowed.
    - The body has one block with one argument per `ins` entry: the element
      type of a memref input or the type of a scalar input. It ends with
      `pointwise.yield` of one value per output, of that output's element
      type. Only side-effect-free ops may appear inside, computing on
      integers of up to 128 bits, index, f16, bf16, f32 and f64 values; other
      float types (f8, f6, f4, tf32, f80, f128) are rejected. Ops with
      regions must be structured control flow, i.e. implement
      `RegionBranchOpInterface` (`scf.if`, `scf.for`, `scf.while`, ...);
      their regions may use any value of the body.
    - Element types of memrefs: i1, i8, i16, i32, i64, f16, bf16, f32, f64.
    - Arithmetic on f16 and bf16 values in the body, inside structured
      control flow too, is evaluated in f32 and rounded once, when the value
      is stored ("opmath", as PyTorch does); an explicit `arith.truncf` in
      the body still rounds where it stands. Ops computed in f32 keep their
      attributes (fast-math flags, predicates, `arith.truncf`'s rounding
      mode). Two exceptions: `math.isinf`, `math.isnormal` and
      `math.isfinite` ask about the value rounded to its f16/bf16 type, as
      it would be stored (an f16 product of 65536 is infinite, an f16
      subnormal is not normal); `arith.sitofp` and `arith.uitofp` to
      f16/bf16 convert to f32 first, as PyTorch does, so an integer that
      f32 cannot hold exactly is rounded twice (the i32 16842753 becomes
      the bf16 16777216, where one rounding would give 16908288). Every
      lowering, CPU and GPU, implements these semantics.
    - Rounding modes other than `to_nearest_even` (`arith.truncf upward`,
      ...) are rejected: LLVM lowers them to constrained intrinsics, which
      assume the mode rather than set it, so the CPU and NVPTX code would
      round to nearest even anyway.
    - Conversions from floating point to integers (`arith.fptosi`,
      `arith.fptoui`) saturate, on every lowering: NaN gives 0, a value below
      the integer type's range gives its minimum, a value above it its
      maximum (as LLVM's `fptosi.sat` and NVPTX's `cvt` do; plain LLVM
      `fptosi` would give poison, which the CPU and the GPU resolve
      differently). An f32 of 1e30 converts to the i64 9223372036854775807.
    - The GPU lowering rejects conversions between floating point and
      integers wider than 64 bits (`arith.fptosi`, `arith.fptoui`,
      `arith.sitofp`, `arith.uitofp`), which NVPTX cannot compile; the CPU
      lowering supports them.

    Statically impossible broadcasts and overlaps are verifier errors.
    Where sizes or strides are dynamic:

    - the op implements `RuntimeVerifiableOpInterface`: upstream's
      `generate-runtime-verification` pass (which `pw-cpu-pipeline` and
      `pw-gpu-pipeline` run first unless `runtime-verification=false`) puts
      `cf.assert`s before the map, on the host, that the outputs have one
      shape, that every memref input broadcasts to it, and that no output
      dim of size > 1 has stride 0; a failed one prints which and aborts;
    - the kernel families' run-time dispatch (`pw-compile`, the Python
      package, `pw-run --target=cuda`) checks every call's layouts with the
      layout library instead, overlaps between operands and outputs whose
      strides do not nest included, and returns an error.

    On the first path, the pass `pw-runtime-overlap-checks`, which the
    pipelines run right after `generate-runtime-verification`, checks the
    overlaps with the same layout library, through the runtime's
    `pwCheckMapOverlap`: outputs that overlap themselves (sizes 3x3,
    strides 1x1) or each other, and outputs that partially overlap an
    input. Both paths decide overlap between operands on byte ranges and,
    where those intersect, exactly for views of the same sizes and strides
    (`a[::2]` and `a[1::2]`); other intersecting views are reported.

    Example, `c = a + b * alpha` with `b` broadcast along the rows of `a`:

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

    Several outputs, e.g. polar to cartesian:

    ```mlir
    pointwise.map ins(%r, %theta : memref<1024xf32>, memref<1024xf32>)
                  outs(%x, %y : memref<1024xf32>, memref<1024xf32>) {
    ^bb0(%rr: f32, %t: f32):
      %c = math.cos %t : f32
      %s = math.sin %t : f32
      %0 = arith.mulf %rr, %c : f32
      %1 = arith.mulf %rr, %s : f32
      pointwise.yield %0, %1 : f32, f32
    }
    ```
  }];

  let arguments = (ins Variadic<AnyType>:$inputs,
                       Variadic<AnyType>:$outputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);

  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    (`outs` `(` $outputs^ `:` type($outputs) `)`)?
    attr-dict-with-keyword $body (`->` type($results)^)?
  }];

  // Creates the body block with one argument per input and lets
  // `bodyBuilder` fill it; the callback must end it with `pointwise.yield`.
  // The results are the types of the tensor outputs (none in the memref
  // form).
  let builders = [
    OpBuilder<(ins "::mlir::ValueRange":$inputs, "::mlir::ValueRange":$outputs,
      "::llvm::function_ref<void(::mlir::OpBuilder &, ::mlir::Location, "
      "::mlir::ValueRange)>":$bodyBuilder)>
  ];

  let extraClassDeclaration = [{
    /// The scalar type a body argument or yielded value has for an operand of
    /// type `operandType`: the element type of a memref, the type itself for a
    /// scalar.
    static ::mlir::Type getScalarTypeOf(::mlir::Type operandType);

    /// The static shape of the iteration space: the outputs' common shape,
    /// with a dim static as soon as any output knows it.
    ::llvm::SmallVector<int64_t> getIterationShape();

    /// The memref operands in the order of the layout algebra and the
    /// runtime (operand #i of their messages): outputs first, then the
    /// memref inputs.
    ::llvm::SmallVector<::mlir::OpOperand *> getMemRefOperandsOutputsFirst();

    /// DestinationStyleOpInterface: the outputs are the destinations.
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getOutputsMutable();
    }

    /// Emits the error a pass that lowers memref maps (`pass`) reports on a
    /// map of the tensor form, which must be bufferized first.
    ::mlir::InFlightDiagnostic emitNotBufferizedError(::llvm::StringRef pass);

    unsigned getNumInputs() { return getInputs().size(); }
    unsigned getNumOutputs() { return getOutputs().size(); }
    ::mlir::Block *getBodyBlock() { return &getBody().front(); }
  }];

  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
}

def Pointwise_YieldOp : Pointwise_Op<"yield", [
    Pure, ReturnLike, Terminator, HasParent<"MapOp">]> {
  let summary = "Yields the values a `pointwise.map` body stores";
  let description = [{
    Terminates the body of `pointwise.map` with one value per output, each of
    that output's element type.

    ```mlir
    pointwise.yield %sum, %diff : f32, f32
    ```
  }];

  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let hasVerifier = 1;
}

#endif // POINTWISE_DIALECT_POINTWISE_IR_POINTWISEOPS_TD
