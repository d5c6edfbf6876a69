//===- MapRuntimeVerification.cpp - Run-time checks of pointwise.map ------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// pointwise.map's RuntimeVerifiableOpInterface: the parts of the op's
// contract that its verifier cannot decide where sizes or strides are
// dynamic, as `cf.assert`s that upstream's generate-runtime-verification
// pass puts before the map. A map whose operands break the contract would
// otherwise read or write outside its operands' views: a wrong answer, or
// a crash, instead of an error.
//
// Checked: the outputs have one shape (the iteration space); every memref
// or tensor input broadcasts to it by NumPy rules (each dim is 1 or the
// iteration size); no memref output dim of size > 1 has stride 0. Not here:
// overlaps between operands, and outputs whose nonzero strides make elements
// coincide (sizes 3x3, strides 1x1); those take the layout library
// (lib/Layout), which the kernel families' run-time dispatch calls and the
// pass pw-runtime-overlap-checks calls through the runtime, and are not
// repeated here as IR.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace pointwise;

namespace {

/// Emits the checks of one map at the builder's insertion point.
class MapChecks {
public:
  MapChecks(MapOp map, OpBuilder &builder, Location loc,
            function_ref<std::string(Operation *, StringRef)> makeMessage)
      : map(map), builder(builder), loc(loc), makeMessage(makeMessage) {}

  /// Size `dim` of a memref or tensor operand: a constant where its type
  /// knows it.
  Value size(Value operand, int64_t dim) {
    int64_t known = cast<ShapedType>(operand.getType()).getDimSize(dim);
    if (!ShapedType::isDynamic(known))
      return constant(known);
    if (isa<RankedTensorType>(operand.getType()))
      return tensor::DimOp::create(builder, loc, operand, dim);
    return memref::DimOp::create(builder, loc, operand, dim);
  }

  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }

  Value equal(Value a, Value b) {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, a, b);
  }

  /// Asserts `holds`, failing with `what` after upstream's standard prefix
  /// (the op and its location).
  void require(Value holds, const Twine &what) {
    cf::AssertOp::create(builder, loc, holds,
                         makeMessage(map.getOperation(), what.str()));
  }

  void checkOutputShapes(ArrayRef<int64_t> iterationShape,
                         ArrayRef<Value> iteration) {
    for (auto [index, output] : llvm::enumerate(map.getOutputs())) {
      auto type = cast<ShapedType>(output.getType());
      for (int64_t dim = 0; dim < type.getRank(); ++dim) {
        // Output #0 defines the dynamic iteration sizes; a static size was
        // compared with the static iteration size by the verifier.
        if (!type.isDynamicDim(dim) ||
            (index == 0 && ShapedType::isDynamic(iterationShape[dim])))
          continue;
        require(equal(size(output, dim), iteration[dim]),
                "output #" + Twine(index) + " dim " + Twine(dim) +
                    " does not have the size of the other outputs (the "
                    "iteration space)");
      }
    }
  }

  void checkInputBroadcasts(ArrayRef<int64_t> iterationShape,
                            ArrayRef<Value> iteration) {
    Value one;
    for (auto [index, input] : llvm::enumerate(map.getInputs())) {
      auto type = dyn_cast<ShapedType>(input.getType());
      if (!type)
        continue;
      int64_t leading = iterationShape.size() - type.getRank();
      for (int64_t dim = 0; dim < type.getRank(); ++dim) {
        int64_t known = type.getDimSize(dim);
        int64_t iterationDim = leading + dim;
        // Static against static, and a static 1, broadcast by the verifier.
        if (known == 1 ||
            (!ShapedType::isDynamic(known) &&
             !ShapedType::isDynamic(iterationShape[iterationDim])))
          continue;
        Value inputSize = size(input, dim);
        Value holds = equal(inputSize, iteration[iterationDim]);
        if (ShapedType::isDynamic(known)) {
          if (!one)
            one = constant(1);
          holds =
              arith::OrIOp::create(builder, loc, holds, equal(inputSize, one));
        }
        require(holds, "input #" + Twine(index) + " dim " + Twine(dim) +
                           " does not broadcast to iteration dim " +
                           Twine(iterationDim) +
                           " (its size is neither 1 "
                           "nor the iteration size)");
      }
    }
  }

  /// Memref outputs only: a tensor has no strides until it is bufferized.
  void checkOutputsDoNotRepeat() {
    for (auto [index, output] : llvm::enumerate(map.getOutputs())) {
      auto type = dyn_cast<MemRefType>(output.getType());
      if (!type)
        continue;
      SmallVector<int64_t> strides;
      int64_t offset;
      // Identity layouts too: their leading strides are dynamic where sizes
      // are, and a memref.cast can give one any descriptor. The verifier
      // accepts strided layouts only.
      if (failed(type.getStridesAndOffset(strides, offset)))
        continue;
      memref::ExtractStridedMetadataOp metadata;
      Value empty; // whether the output has no elements, which cannot overlap
      for (int64_t dim = 0; dim < type.getRank(); ++dim) {
        // A static nonzero stride cannot repeat elements; a static stride 0
        // with a static size above 1 is a verifier error.
        if (strides[dim] != 0 && !ShapedType::isDynamic(strides[dim]))
          continue;
        if (strides[dim] == 0 && !type.isDynamicDim(dim))
          continue;
        Value stride;
        if (ShapedType::isDynamic(strides[dim])) {
          if (!metadata)
            metadata =
                memref::ExtractStridedMetadataOp::create(builder, loc, output);
          stride = metadata.getStrides()[dim];
        } else {
          stride = constant(0);
        }
        Value atMostOne =
            arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sle,
                                  size(output, dim), constant(1));
        Value nonzero = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::ne, stride, constant(0));
        if (!empty)
          empty = isEmpty(output);
        Value holds = arith::OrIOp::create(builder, loc, atMostOne, nonzero);
        require(arith::OrIOp::create(builder, loc, holds, empty),
                "output #" + Twine(index) + " dim " + Twine(dim) +
                    " has stride 0 and a size above 1, so its elements "
                    "overlap");
      }
    }
  }

private:
  /// Whether some dim of `memref` has size 0 (an i1).
  Value isEmpty(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    Value empty = arith::ConstantIntOp::create(builder, loc, 0, 1);
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      empty = arith::OrIOp::create(builder, loc, empty,
                                   equal(size(memref, dim), constant(0)));
    return empty;
  }

  MapOp map;
  OpBuilder &builder;
  Location loc;
  function_ref<std::string(Operation *, StringRef)> makeMessage;
};

} // namespace

void MapOp::generateRuntimeVerification(
    OpBuilder &builder, Location loc,
    function_ref<std::string(Operation *, StringRef)> generateErrorMessage) {
  MapChecks checks(*this, builder, loc, generateErrorMessage);
  SmallVector<int64_t> iterationShape = getIterationShape();
  // The iteration sizes: static where any output knows them, otherwise
  // output #0's.
  SmallVector<Value> iteration;
  for (auto [dim, known] : llvm::enumerate(iterationShape))
    iteration.push_back(ShapedType::isDynamic(known)
                            ? checks.size(getOutputs()[0], dim)
                            : checks.constant(known));
  checks.checkOutputShapes(iterationShape, iteration);
  checks.checkInputBroadcasts(iterationShape, iteration);
  checks.checkOutputsDoNotRepeat();
}
