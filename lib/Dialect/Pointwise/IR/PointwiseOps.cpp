//===- PointwiseOps.cpp - pointwise.map and pointwise.yield ---------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"

#include "Pointwise/Layout/Overlap.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/STLExtras.h"

#include <limits>
#include <vector>

using namespace mlir;
using namespace pointwise;

namespace {
constexpr llvm::StringLiteral kSupportedElementTypes =
    "i1, i8, i16, i32, i64, f16, bf16, f32, f64";

/// Element types a memref operand may hold: the ones every lowering supports
/// with a fixed byte size.
bool isSupportedElementType(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    return intType.isSignless() && (width == 1 || width == 8 || width == 16 ||
                                    width == 32 || width == 64);
  }
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

/// Types a scalar (non-memref) input may have: index is allowed because
/// scalars are passed by value and never stored in memory by the map.
bool isSupportedScalarInputType(Type type) {
  return type.isIndex() || isSupportedElementType(type);
}

/// The widest integer a body may compute with: LLVM legalizes wider ones
/// too, but its compile time grows with the width (i16000000 does not finish).
constexpr unsigned kMaxBodyIntegerWidth = 128;

/// Values the body may compute with: integers of up to 128 bits, index, and
/// the floats of memref elements. Both lowerings compute with these; other
/// float types (f8, f6, f4, tf32, f80, f128) have no LLVM lowering on one
/// path or the other.
bool isBodyValueType(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth() <= kMaxBodyIntegerWidth;
  if (isa<IndexType>(type))
    return true;
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

/// The first type among the operands, results and region arguments of `op`
/// that a body may not compute with, or null.
Type findUnsupportedBodyType(Operation *op) {
  for (Type type : op->getOperandTypes())
    if (!isBodyValueType(type))
      return type;
  for (Type type : op->getResultTypes())
    if (!isBodyValueType(type))
      return type;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Type type : block.getArgumentTypes())
        if (!isBodyValueType(type))
          return type;
  return Type();
}
} // namespace

//===----------------------------------------------------------------------===//
// MapOp
//===----------------------------------------------------------------------===//

Type MapOp::getScalarTypeOf(Type operandType) {
  if (auto shaped = dyn_cast<ShapedType>(operandType))
    return shaped.getElementType();
  return operandType;
}

SmallVector<OpOperand *> MapOp::getMemRefOperandsOutputsFirst() {
  SmallVector<OpOperand *> operands;
  for (OpOperand &output : getOutputsMutable())
    operands.push_back(&output);
  for (OpOperand &input : getInputsMutable())
    if (isa<MemRefType>(input.get().getType()))
      operands.push_back(&input);
  return operands;
}

SmallVector<int64_t> MapOp::getIterationShape() {
  std::optional<SmallVector<int64_t>> shape;
  for (Value output : getOutputs()) {
    auto type = dyn_cast<ShapedType>(output.getType());
    if (!type || !type.hasRank())
      continue;
    if (!shape) {
      shape = llvm::to_vector(type.getShape());
      continue;
    }
    if (type.getRank() != static_cast<int64_t>(shape->size()))
      continue;
    for (auto [dim, size] : llvm::enumerate(*shape))
      if (ShapedType::isDynamic(size))
        size = type.getDimSize(dim);
  }
  return shape.value_or(SmallVector<int64_t>());
}

InFlightDiagnostic MapOp::emitNotBufferizedError(StringRef pass) {
  return emitOpError() << "on tensors reaches " << pass
                       << ", which lowers maps on memrefs; bufferize first "
                          "(one-shot-bufferize, which pw-cpu-pipeline and "
                          "pw-gpu-pipeline run)";
}

void MapOp::build(
    OpBuilder &builder, OperationState &state, ValueRange inputs,
    ValueRange outputs,
    llvm::function_ref<void(OpBuilder &, Location, ValueRange)> bodyBuilder) {
  SmallVector<Type> resultTypes;
  for (Value output : outputs)
    if (isa<RankedTensorType>(output.getType()))
      resultTypes.push_back(output.getType());
  build(builder, state, resultTypes, inputs, outputs);
  Block *block = new Block();
  state.regions.front()->push_back(block);
  for (Value input : inputs)
    block->addArgument(getScalarTypeOf(input.getType()), state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);
  bodyBuilder(builder, state.location, block->getArguments());
}

void MapOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &input : getInputsMutable())
    if (isa<MemRefType>(input.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &input,
                           SideEffects::DefaultResource::get());
  for (OpOperand &output : getOutputsMutable())
    if (isa<MemRefType>(output.get().getType()))
      effects.emplace_back(MemoryEffects::Write::get(), &output,
                           SideEffects::DefaultResource::get());
}

/// A static shape must count its elements in int64 (a rank-64 memref of 2s
/// does not; its canonical strides saturate to dynamic).
static LogicalResult verifyElementCount(MapOp op, ShapedType type,
                                        StringRef role, unsigned index) {
  if (!type.hasStaticShape())
    return success();
  int64_t count = 1;
  for (int64_t size : type.getShape())
    if (size != 0 && count > std::numeric_limits<int64_t>::max() / size)
      return op.emitOpError()
             << role << " #" << index << " has more elements than fit in int64";
    else
      count *= size;
  return success();
}

/// Checks what every memref or tensor operand needs: a supported element type
/// and, for a memref, a layout expressible as strides and an offset.
static LogicalResult verifyShapedOperand(MapOp op, ShapedType type,
                                         StringRef role, unsigned index) {
  if (!isSupportedElementType(type.getElementType()))
    return op.emitOpError()
           << role << " #" << index << " has unsupported element type "
           << type.getElementType() << "; expected one of "
           << kSupportedElementTypes;
  if (auto memref = dyn_cast<MemRefType>(type); memref && !memref.isStrided())
    return op.emitOpError() << role << " #" << index
                            << " must have a strided layout, got " << type;
  return verifyElementCount(op, type, role, index);
}

/// Checks that a memref input broadcasts to the iteration space by NumPy
/// rules, as far as static sizes tell; dynamic sizes are checked at run time.
static LogicalResult verifyBroadcast(MapOp op, ShapedType type, unsigned index,
                                     ArrayRef<int64_t> iterationShape) {
  int64_t rank = type.getRank();
  int64_t iterationRank = iterationShape.size();
  if (rank > iterationRank)
    return op.emitOpError()
           << "input #" << index << " has rank " << rank
           << ", higher than the iteration space's rank " << iterationRank
           << ", so it cannot broadcast to it";
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t iterationDim = iterationRank - rank + dim;
    int64_t size = type.getDimSize(dim);
    int64_t iterationSize = iterationShape[iterationDim];
    if (ShapedType::isDynamic(size) || ShapedType::isDynamic(iterationSize) ||
        size == iterationSize || size == 1)
      continue;
    return op.emitOpError()
           << "input #" << index << " dim " << dim << " has size " << size
           << ", which does not broadcast to size " << iterationSize
           << " of iteration dim " << iterationDim;
  }
  return success();
}

/// An output dim of size > 1 with stride 0 would make several iterations
/// store to one element (unless another dim has size 0); that is only
/// knowable statically when both are.
/// Fully static outputs get the run-time check of the layout library too
/// (strides that do not nest, too many elements).
static LogicalResult verifyNoInternalOverlap(MapOp op, MemRefType type,
                                             unsigned index) {
  // An output with a static size of 0 has no elements to overlap (the
  // run-time rule agrees).
  if (llvm::is_contained(type.getShape(), 0))
    return success();
  auto [strides, offset] = type.getStridesAndOffset();
  for (auto [dim, stride] : llvm::enumerate(strides)) {
    int64_t size = type.getDimSize(dim);
    if (stride == 0 && !ShapedType::isDynamic(size) && size > 1)
      return op.emitOpError()
             << "output #" << index << " dim " << dim << " has size " << size
             << " and stride 0, so its elements overlap";
  }
  if (!type.hasStaticShape() || llvm::any_of(strides, ShapedType::isDynamic))
    return success();
  layout::StridedLayout layout{
      std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
      std::vector<int64_t>(strides.begin(), strides.end()), 0};
  layout::LayoutResult<void> result =
      layout::checkNoInternalOverlap(layout, index);
  if (!result)
    return op.emitOpError() << result.error();
  return success();
}

/// The memref or ranked tensor type of a map operand, or null for a scalar.
static ShapedType getShapedOperandType(Value operand) {
  Type type = operand.getType();
  if (isa<MemRefType, RankedTensorType>(type))
    return cast<ShapedType>(type);
  return {};
}

/// Checks that the operands are all memrefs (and scalars) or all tensors (and
/// scalars), naming the first of each kind where they mix.
static LogicalResult verifyOneForm(MapOp op) {
  std::optional<std::string> firstMemRef, firstTensor;
  auto note = [&](Value operand, StringRef role, unsigned index) {
    std::optional<std::string> &first =
        isa<MemRefType>(operand.getType()) ? firstMemRef : firstTensor;
    if (!first)
      first = (role + " #" + Twine(index)).str();
  };
  for (auto [index, input] : llvm::enumerate(op.getInputs()))
    if (getShapedOperandType(input))
      note(input, "input", index);
  for (auto [index, output] : llvm::enumerate(op.getOutputs()))
    if (getShapedOperandType(output))
      note(output, "output", index);
  if (firstMemRef && firstTensor)
    return op.emitOpError()
           << "mixes tensor and memref operands (" << *firstTensor
           << " is a tensor, " << *firstMemRef
           << " is a memref); a map takes either tensors or memrefs";
  return success();
}

/// Checks the results: none in the memref form, one per output of that
/// output's type in the tensor form.
static LogicalResult verifyResults(MapOp op) {
  bool tensorForm = isa<RankedTensorType>(op.getOutputs()[0].getType());
  if (!tensorForm) {
    if (op.getNumResults() != 0)
      return op.emitOpError()
             << "has " << op.getNumResults()
             << " results, but a map on memrefs writes its outputs and has "
                "none";
    return success();
  }
  if (op.getNumResults() != op.getNumOutputs())
    return op.emitOpError() << "has " << op.getNumResults()
                            << " results, but a map on tensors has one per "
                               "output ("
                            << op.getNumOutputs() << ")";
  for (auto [index, result, output] :
       llvm::enumerate(op.getResults(), op.getOutputs()))
    if (result.getType() != output.getType())
      return op.emitOpError()
             << "result #" << index << " has type " << result.getType()
             << ", but its destination, output #" << index << ", has type "
             << output.getType();
  return success();
}

LogicalResult MapOp::verify() {
  if (getOutputs().empty())
    return emitOpError("expects at least one output");

  for (auto [index, input] : llvm::enumerate(getInputs())) {
    Type type = input.getType();
    if (ShapedType shaped = getShapedOperandType(input)) {
      if (failed(verifyShapedOperand(*this, shaped, "input", index)))
        return failure();
      continue;
    }
    if (!isSupportedScalarInputType(type))
      return emitOpError() << "input #" << index
                           << " must be a memref, a ranked tensor or a scalar "
                              "of type index, "
                           << kSupportedElementTypes << "; got " << type;
  }

  for (auto [index, output] : llvm::enumerate(getOutputs())) {
    ShapedType type = getShapedOperandType(output);
    if (!type)
      return emitOpError() << "output #" << index
                           << " must be a memref or a ranked tensor, got "
                           << output.getType();
    if (failed(verifyShapedOperand(*this, type, "output", index)))
      return failure();
    auto memref = dyn_cast<MemRefType>(type);
    if (memref && failed(verifyNoInternalOverlap(*this, memref, index)))
      return failure();
    // Against every earlier output, not only #0: with a dynamic dim in #0,
    // a 3 and a 4 in two later outputs are each compatible with it.
    for (unsigned other = 0; other < index; ++other) {
      Value earlier = getOutputs()[other];
      ShapedType earlierType = getShapedOperandType(earlier);
      if (!earlierType)
        continue;
      if (failed(
              verifyCompatibleShape(earlierType.getShape(), type.getShape())))
        return emitOpError() << "output #" << index << " of type " << type
                             << " does not have the shape of output #" << other
                             << " of type " << earlierType;
      if (memref && earlier == output)
        return emitOpError() << "outputs #" << other << " and #" << index
                             << " are the same buffer";
    }
  }

  if (failed(verifyOneForm(*this)) || failed(verifyResults(*this)))
    return failure();

  SmallVector<int64_t> iterationShape = getIterationShape();
  for (auto [index, input] : llvm::enumerate(getInputs()))
    if (ShapedType shaped = getShapedOperandType(input))
      if (failed(verifyBroadcast(*this, shaped, index, iterationShape)))
        return failure();
  return success();
}

LogicalResult MapOp::verifyRegions() {
  Block &body = *getBodyBlock();
  if (body.getNumArguments() != getNumInputs())
    return emitOpError() << "body must have " << getNumInputs()
                         << " arguments, one per input, but has "
                         << body.getNumArguments();
  for (auto [index, input, argument] :
       llvm::enumerate(getInputs(), body.getArguments())) {
    Type expected = getScalarTypeOf(input.getType());
    if (argument.getType() != expected)
      return emitOpError() << "body argument #" << index << " has type "
                           << argument.getType() << ", but input #" << index
                           << " requires " << expected;
  }

  WalkResult result = body.walk([](Operation *nested) {
    if (isa<YieldOp>(nested))
      return WalkResult::advance();
    if (Type type = findUnsupportedBodyType(nested)) {
      nested->emitOpError()
          << "uses the "
          << (isa<FloatType>(type)     ? "float"
              : isa<IntegerType>(type) ? "integer"
                                       : "non-scalar")
          << " type " << type
          << "; a 'pointwise.map' body computes on integers of up to 128 "
             "bits, index, f16, bf16, f32 and f64 values only";
      return WalkResult::interrupt();
    }
    // Lowerings compute f16/bf16 in f32 through regions whose values flow
    // as RegionBranchOpInterface describes; other region ops would compute
    // in f16 or not lower at all.
    if (nested->getNumRegions() != 0 && !isa<RegionBranchOpInterface>(nested) &&
        !nested->hasTrait<OpTrait::IsTerminator>()) {
      nested->emitOpError()
          << "has regions but is not structured control flow; a "
             "'pointwise.map' body allows region ops that implement "
             "RegionBranchOpInterface (scf.if, scf.for, scf.while, ...) only";
      return WalkResult::interrupt();
    }
    // LLVM lowers other rounding modes to constrained intrinsics, which
    // assume the mode instead of setting it: the CPU and NVPTX code would
    // round to nearest even whatever the op says.
    if (auto rounding = dyn_cast<arith::ArithRoundingModeInterface>(nested))
      if (arith::RoundingModeAttr mode = rounding.getRoundingModeAttr();
          mode && mode.getValue() != arith::RoundingMode::to_nearest_even) {
        nested->emitOpError()
            << "rounds " << arith::stringifyRoundingMode(mode.getValue())
            << "; a 'pointwise.map' body rounds to nearest even only (the "
               "backends would ignore the mode and give another result)";
        return WalkResult::interrupt();
      }
    if (!isMemoryEffectFree(nested)) {
      nested->emitOpError()
          << "may have side effects; a 'pointwise.map' body allows only "
             "side-effect-free ops";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

LogicalResult YieldOp::verify() {
  auto map = dyn_cast<MapOp>((*this)->getParentOp());
  if (!map)
    return emitOpError("expects a 'pointwise.map' parent");
  if (getValues().size() != map.getNumOutputs())
    return emitOpError() << "yields " << getValues().size()
                         << " values, but the enclosing map has "
                         << map.getNumOutputs() << " outputs";
  for (auto [index, value, output] :
       llvm::enumerate(getValues(), map.getOutputs())) {
    Type expected = MapOp::getScalarTypeOf(output.getType());
    if (value.getType() != expected)
      return emitOpError() << "value #" << index << " has type "
                           << value.getType() << ", but output #" << index
                           << " has element type " << expected;
  }
  return success();
}

#define GET_OP_CLASSES
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.cpp.inc"
