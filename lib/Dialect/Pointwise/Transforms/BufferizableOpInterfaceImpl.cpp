//===- BufferizableOpInterfaceImpl.cpp - Bufferization of maps ------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// One-shot bufferization of the tensor form of `pointwise.map`. The op is in
// destination-passing style (upstream's destination-style model decides the
// aliasing: each output is equivalent to its result) with two refinements:
//
// - the body has no arguments for the outputs, so an output is written but
//   never read: a destination from `tensor.empty` needs an allocation and no
//   copy, and the analysis does not count the destination's old contents as
//   a read that a later write would conflict with;
// - an operand with the iteration space's shape is read at exactly the
//   indices that are written, so reading it and writing the same buffer is
//   no conflict (`ins(%a, %b) outs(%a)` bufferizes in place).
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/Transforms/BufferizableOpInterfaceImpl.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace pointwise;

namespace {

/// Whether `type` has the iteration space's rank and broadcasts no dim that
/// the types know: every static size is the iteration dim's size. Two tensors
/// that bufferize to one buffer have one shape at run time, so a dynamic dim
/// of an operand equivalent to an output does not broadcast either.
bool coversIterationSpace(ShapedType type, ArrayRef<int64_t> iterationShape) {
  if (type.getRank() != static_cast<int64_t>(iterationShape.size()))
    return false;
  for (auto [size, iterationSize] :
       llvm::zip_equal(type.getShape(), iterationShape))
    if (!ShapedType::isDynamic(size) && size != iterationSize)
      return false;
  return true;
}

struct MapOpInterface
    : DstBufferizableOpInterfaceExternalModel<MapOpInterface, MapOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &state) const {
    // The body reads the inputs only; outputs have no body arguments.
    return !cast<MapOp>(op).isDpsInit(&operand);
  }

  bool bufferizesToElementwiseAccess(Operation *op, const AnalysisState &state,
                                     ArrayRef<OpOperand *> operands) const {
    auto map = cast<MapOp>(op);
    SmallVector<int64_t> iterationShape = map.getIterationShape();
    return llvm::all_of(operands, [&](OpOperand *operand) {
      auto type = dyn_cast<ShapedType>(operand->get().getType());
      return type && coversIterationSpace(type, iterationShape);
    });
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto map = cast<MapOp>(op);
    if (map.hasPureBufferSemantics())
      return success();

    auto bufferOf = [&](Value value) -> FailureOr<Value> {
      if (!isa<TensorType>(value.getType()))
        return value;
      return getBuffer(rewriter, value, options, state);
    };
    SmallVector<Value> inputs, outputs;
    for (Value input : map.getInputs()) {
      FailureOr<Value> buffer = bufferOf(input);
      if (failed(buffer))
        return failure();
      inputs.push_back(*buffer);
    }
    for (Value output : map.getOutputs()) {
      FailureOr<Value> buffer = bufferOf(output);
      if (failed(buffer))
        return failure();
      outputs.push_back(*buffer);
    }

    rewriter.setInsertionPoint(map);
    auto bufferized =
        MapOp::create(rewriter, map.getLoc(), TypeRange(), inputs, outputs);
    bufferized->setDiscardableAttrs(map->getDiscardableAttrDictionary());
    rewriter.inlineRegionBefore(map.getBody(), bufferized.getBody(),
                                bufferized.getBody().end());
    replaceOpWithBufferizedValues(rewriter, map, outputs);
    return success();
  }
};

} // namespace

void pointwise::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, PointwiseDialect *) {
    MapOp::attachInterface<MapOpInterface>(*context);
  });
}
