//===- TilingEmitter.cpp - Kernel emitter core ----------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// What every strategy's kernel is made of: operands as flat views, their
// offsets at an iteration index, the block and thread loops pw-lower-to-gpu
// turns into a launch, and the host-side alignment of an operand.
//
//===----------------------------------------------------------------------===//

#include "TilingInternal.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/Dialect/Pointwise/Transforms/FlatView.h"
#include "Pointwise/Dialect/Pointwise/Transforms/OpMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace pointwise;
using namespace pointwise::tiling;

FlatOperand KernelEmitter::flatten(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  FlatView view = createFlatView(builder, loc, memref);
  FlatOperand operand;
  operand.elementType = type.getElementType();
  operand.flat = view.flat;
  operand.offset = toIndexType(view.offset);
  for (Value stride : view.strides)
    operand.strides.push_back(toIndexType(stride));
  int64_t lastStride =
      type.getRank() ? type.getStridesAndOffset().first.back() : 0;
  operand.lastStrideIsDynamic = ShapedType::isDynamic(lastStride);
  operand.vectorized = (lastStride == 1 || operand.lastStrideIsDynamic) &&
                       !operand.elementType.isInteger(1);
  operand.broadcastAlongLastDim = type.getRank() && lastStride == 0;
  return operand;
}

LogicalResult KernelEmitter::prepare(Strategy strategy, int64_t vectorBytes) {
  SmallVector<int64_t> shape = map.getIterationShape();
  Value output = map.getOutputs()[0];
  total = constant(1);
  for (int64_t dim = 0; dim < static_cast<int64_t>(shape.size()); ++dim) {
    Value size =
        ShapedType::isDynamic(shape[dim])
            ? Value(memref::DimOp::create(builder, loc, output, dim))
            : Value(arith::ConstantIndexOp::create(builder, loc, shape[dim]));
    sizes.push_back(toIndexType(size));
    total = mul(total, sizes.back());
  }
  for (Value size : sizes)
    sizeDividers.push_back(createDivider(size));
  for (Value input : map.getInputs()) {
    if (isa<MemRefType>(input.getType())) {
      inputs.push_back(flatten(input));
      scalarInputs.push_back(Value());
    } else {
      inputs.push_back(FlatOperand());
      scalarInputs.push_back(input);
    }
  }
  for (Value out : map.getOutputs())
    outputs.push_back(flatten(out));

  if (strategy == Strategy::Linear) {
    int64_t widest = 1;
    for (const FlatOperand &operand :
         llvm::concat<FlatOperand>(inputs, outputs))
      if (operand.flat && operand.vectorized)
        widest = std::max(widest, getElementByteWidth(operand.elementType));
    vectorWidth =
        fitVectorsToStaticLayout(std::max<int64_t>(1, vectorBytes / widest));
    vectorCondition = computeHostVectorCondition();
    vectorBody = chooseVectorBody();
  }
  return success();
}

// Packed f16/bf16 arithmetic takes two lanes per instruction, which LLVM
// selects reliably only from vector ops; for other element types a vector
// op is the lanes' scalar ops (docs/Performance.md, row `vector-body`).
bool KernelEmitter::chooseVectorBody() const {
  if (vectorWidth == 1 || !isVectorizableBody(map))
    return false;
  return llvm::any_of(llvm::concat<const FlatOperand>(inputs, outputs),
                      [](const FlatOperand &operand) {
                        auto type =
                            dyn_cast_if_present<FloatType>(operand.elementType);
                        return operand.flat && type && type.getWidth() == 16;
                      });
}

// A width the static layout rules out would only leave a vector path that
// never runs; an operand whose rows the layout misaligns goes lane by lane
// rather than narrowing every operand's vectors (docs/Performance.md, row
// `static-vector-width`).
int64_t KernelEmitter::fitVectorsToStaticLayout(int64_t width) {
  auto rulesOut = [](Value value, int64_t width) {
    std::optional<int64_t> constant = getConstantIntValue(value);
    return constant && *constant % width != 0;
  };
  if (sizes.size() > 1)
    while (width > 1 && rulesOut(sizes.back(), width))
      width /= 2;
  if (width == 1)
    return width;
  for (FlatOperand &operand : llvm::concat<FlatOperand>(inputs, outputs))
    if (operand.flat && operand.vectorized &&
        llvm::any_of(ArrayRef(operand.strides).drop_back(),
                     [&](Value stride) { return rulesOut(stride, width); }))
      operand.vectorized = false;
  return width;
}

/// The vector path reads whole vectors at aligned addresses inside one row:
/// every vectorized operand's first element and row strides must be
/// multiples of the vector, its last stride 1, and rows a whole number of
/// vectors.
Value KernelEmitter::computeMisalignment(Value memref,
                                         const FlatOperand &operand,
                                         int64_t width) {
  if (width == 1)
    return constant(0);
  int64_t bytes = getElementByteWidth(operand.elementType);
  Value pointer = toIndexType(
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref));
  // Buffers are aligned to their element size, so the first element's
  // position modulo the vector width, in elements, tells the alignment.
  Value firstElement = add(divide(pointer, constant(bytes)), operand.offset);
  return remainder(firstElement, constant(width));
}

SmallVector<Value> KernelEmitter::computeOffsets(Value linear) {
  SmallVector<Value> indices(sizes.size());
  Value rest = linear;
  for (int64_t dim = static_cast<int64_t>(sizes.size()) - 1; dim >= 0; --dim) {
    if (dim == 0) {
      indices[dim] = rest;
      break;
    }
    std::tie(rest, indices[dim]) = divideWithRemainder(rest, sizeDividers[dim]);
  }
  SmallVector<Value> offsets;
  for (const FlatOperand &operand :
       llvm::concat<const FlatOperand>(inputs, outputs)) {
    if (!operand.flat) {
      offsets.push_back(Value());
      continue;
    }
    Value offset = operand.offset;
    for (auto [index, stride] : llvm::zip(indices, operand.strides))
      offset = addOffset(offset, mulOffset(index, stride));
    offsets.push_back(offset);
  }
  return offsets;
}

Value KernelEmitter::load(const FlatOperand &operand, Value offset) {
  return memref::LoadOp::create(builder, loc, operand.flat,
                                ValueRange{toIndex(offset)});
}

scf::ParallelOp KernelEmitter::createMappedLoop(Value upperBound,
                                                gpu::Processor processor) {
  MLIRContext *context = builder.getContext();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  auto loop = scf::ParallelOp::create(builder, loc, ValueRange{zero},
                                      ValueRange{upperBound}, ValueRange{one});
  auto identity = AffineMap::getMultiDimIdentityMap(1, context);
  loop->setAttr("mapping",
                builder.getArrayAttr(gpu::ParallelLoopDimMappingAttr::get(
                    context, processor, identity, identity)));
  builder.setInsertionPointToStart(loop.getBody());
  return loop;
}

scf::ParallelOp KernelEmitter::createBlockLoop(Value grid, Strategy strategy,
                                               int64_t elementsPerBlock) {
  scf::ParallelOp blocks = createMappedLoop(grid, gpu::Processor::BlockX);
  blocks->setAttr(PointwiseDialect::StrategyAttrHelper::getNameStr(),
                  builder.getStringAttr(stringifyTileStrategy(strategy)));
  int64_t bytesPerElement = 0;
  for (const FlatOperand &input : inputs)
    if (input.flat)
      bytesPerElement += getElementByteWidth(input.elementType);
  blocks->setAttr(
      PointwiseDialect::InputBytesPerBlockAttrHelper::getNameStr(),
      builder.getI64IntegerAttr(elementsPerBlock * bytesPerElement));
  blocks->setAttr(PointwiseDialect::InstructionsPerByteAttrHelper::getNameStr(),
                  builder.getF64FloatAttr(estimateInstructionsPerByte(map)));
  return blocks;
}

Value KernelEmitter::createThreadLoop(int64_t threads) {
  scf::ParallelOp loop =
      createMappedLoop(arith::ConstantIndexOp::create(builder, loc, threads),
                       gpu::Processor::ThreadX);
  return toIndexType(loop.getInductionVars()[0]);
}
