//===- Tiling.cpp - pw-tile -----------------------------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Chooses how a pointwise.map runs on the GPU and writes that choice out as
// loops mapped to blocks and threads, with the exact memory accesses of each
// thread. pw-lower-to-gpu then only has to move the loops into a kernel.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/Dialect/Pointwise/Transforms/BroadcastCanonicalization.h"
#include "Pointwise/Dialect/Pointwise/Transforms/FlatView.h"
#include "Pointwise/Dialect/Pointwise/Transforms/OpMath.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"
#include "Pointwise/Dialect/Pointwise/Transforms/WorkEstimate.h"
#include "Pointwise/Layout/IndexWidth.h"
#include "Pointwise/Layout/TransposeDetection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace pointwise {
#define GEN_PASS_DEF_TILEPASS
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

/// The strategy a map is tiled with: TileStrategy's cases but Auto.
using Strategy = TileStrategy;

/// Threads of a block of the transpose strategy: a tile of edge E is
/// covered in passes of kTileThreads / E rows (docs/Performance.md, row
/// `transpose-tile`).
constexpr int64_t kTileThreads = 256;

/// Bytes of a vector access of the transpose strategy's interior tiles
/// (docs/Performance.md, row `transpose-vectors`).
constexpr int64_t kTransposeVectorBytes = 16;

/// The static strides of a memref operand, or nothing for a scalar.
std::optional<SmallVector<int64_t>> getStaticStrides(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type)
    return std::nullopt;
  return type.getStridesAndOffset().first;
}

static_assert(layout::kUnknownStride == ShapedType::kDynamic,
              "the layout library and MLIR mark unknown strides alike");

/// The dim the transpose strategy tiles together with the last one, by the
/// layout library's rule on the static strides (unknown ones never count as
/// 1). Nothing when no input disagrees with the outputs on the fastest dim.
std::optional<int64_t> findTransposedDim(MapOp map) {
  std::vector<std::vector<int64_t>> strides;
  for (Value operand : llvm::concat<Value>(map.getOutputs(), map.getInputs())) {
    std::optional<SmallVector<int64_t>> operandStrides =
        getStaticStrides(operand);
    strides.emplace_back();
    if (operandStrides)
      strides.back().assign(operandStrides->begin(), operandStrides->end());
  }
  std::optional<layout::TransposedInput> transposed =
      layout::findTransposedInput(strides, map.getOutputs().size(),
                                  map.getIterationShape().size());
  if (!transposed)
    return std::nullopt;
  return transposed->dim;
}

/// Whether the transpose strategy stages `input` through a tile: a memref
/// statically contiguous along `transposedDim` and not along the last dim.
/// The other inputs are read directly along the outputs' rows
/// (docs/Performance.md, row `transpose-vectors`).
bool isTransposedInput(Value input, int64_t transposedDim) {
  std::optional<SmallVector<int64_t>> strides = getStaticStrides(input);
  return strides && (*strides)[transposedDim] == 1 && strides->back() != 1;
}

/// Transpose when an input is contiguous along another dim than the outputs;
/// otherwise linear unless some memref operand is known to have a stride
/// other than 1 or 0 along the last dim. Unknown strides are checked when
/// the kernel runs: the vector path needs them to be 1 (docs/Performance.md,
/// row `transpose-detection`).
Strategy chooseStrategy(MapOp map) {
  if (map.getIterationShape().empty())
    return Strategy::General;
  if (findTransposedDim(map))
    return Strategy::Transpose;
  auto isUnitOrZero = [](Value value) {
    auto type = dyn_cast<MemRefType>(value.getType());
    if (!type)
      return true;
    int64_t last = type.getStridesAndOffset().first.back();
    return last == 0 || last == 1 || ShapedType::isDynamic(last);
  };
  bool linear = llvm::all_of(map.getInputs(), isUnitOrZero) &&
                llvm::all_of(map.getOutputs(), isUnitOrZero);
  return linear ? Strategy::Linear : Strategy::General;
}

/// The index bitwidth the layout algebra proves enough for `map`: 32 when
/// every operand's reachable offsets fit, 64 when they may not; nullopt
/// when a dynamic size, stride or offset leaves it to run time.
std::optional<unsigned> decideIndexBitwidthStatically(MapOp map) {
  SmallVector<int64_t> shape = map.getIterationShape();
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return std::nullopt;
  layout::IterationLayout iteration;
  iteration.sizes.assign(shape.begin(), shape.end());
  std::vector<int64_t> byteSizes;
  for (Value operand : llvm::concat<Value>(map.getOutputs(), map.getInputs())) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type)
      continue;
    auto [strides, offset] = type.getStridesAndOffset();
    if (ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return std::nullopt;
    iteration.strides.insert(iteration.strides.end(), strides.begin(),
                             strides.end());
    iteration.offsets.push_back(offset);
    byteSizes.push_back(getElementByteWidth(type.getElementType()));
  }
  layout::LayoutResult<layout::IndexWidth> width =
      layout::computeIndexWidth(iteration, byteSizes);
  return width && *width == layout::IndexWidth::Bits32 ? 32 : 64;
}

/// 32-bit index arithmetic is safe when the layout algebra says every
/// operand's reachable offsets fit; only static layouts can tell
/// (docs/Performance.md, row `index-bitwidth`).
unsigned chooseIndexBitwidth(MapOp map) {
  return decideIndexBitwidthStatically(map).value_or(64);
}

/// Elements a thread of the linear strategy keeps in flight at most
/// (docs/Performance.md, row `elements-in-flight`).
constexpr int64_t kElementsInFlight = 16;

/// Bounds of the options: CUDA's threads per block, the widest vector
/// access (32 bytes on sm_100; wider ones would be split), and the steps of
/// one thread (the general strategy's unroll is not capped otherwise).
constexpr int64_t kMaxBlockSize = 1024;
constexpr int64_t kMaxVectorBytes = 32;
constexpr int64_t kMaxUnroll = 16;

/// A memref operand as kernels address it: a flat 1-D view of its buffer
/// from the aligned pointer, its offset and strides in the index type.
struct FlatOperand {
  Value flat;
  Type elementType;
  Value offset;
  SmallVector<Value> strides;
  /// Moved with vector accesses by the linear strategy (stride 1 along the
  /// last dim, statically or checked at run time, and not i1, whose vectors
  /// LLVM packs into bits).
  bool vectorized = false;
  bool lastStrideIsDynamic = false;
  /// For a vectorized operand whose last stride is dynamic: a host-computed
  /// i1, true when its vectors are whole and aligned at run time. Otherwise
  /// the vector path moves its lanes one by one (any last stride).
  Value vectorFlag;
  /// Stride 0 along the last dim: one load serves a whole vector.
  bool broadcastAlongLastDim = false;
};

/// Division by a size that is the same for every thread. With 32-bit index
/// arithmetic the host computes a magic multiplier and shift once
/// (Granlund-Montgomery, as PyTorch's IntDivider) and each thread divides
/// with a multiply-high, an add and a shift; dividends stay below 2^31, so
/// the add cannot overflow. Constant divisors, and 64-bit arithmetic, use
/// plain division (LLVM strength-reduces constant divisors itself).
struct Divider {
  Value divisor;
  Value magic; // null: plain division
  Value shift;
};

/// The block's tile of the transpose strategy: E x E elements of dims P
/// (`transposedDim`) and L (the last), at (firstP, firstL) of a batch index.
struct TransposeTiles {
  int64_t transposedDim = 0;
  int64_t last = 0;
  int64_t edge = 0;
  /// Elements per vector of the vector path; 1 when there is none.
  int64_t vectorWidth = 1;
  Value firstP, firstL;
  /// Per operand (inputs, then outputs): the offset of the tile's first
  /// element; null for scalars.
  SmallVector<Value> offsets;
  /// Per input: the tile buffer it is staged through, null for the inputs
  /// read directly (scalars, and memrefs contiguous along L).
  SmallVector<Value> buffers;
  /// Kernel side: the tile lies inside the iteration space.
  Value full;
  /// Host side: every operand allows the vector path.
  Value vectorSafe;
};

/// Where a thread of a transpose pass works in the tile: `width` elements
/// from `column` of rows `firstRow`, `firstRow + rowsPerStep`, ...
struct TilePlacement {
  int64_t width;
  int64_t rowsPerStep;
  Value column, firstRow;
};

/// Emits the code of one map: host-side preparation at construction, then
/// the per-thread code of a strategy.
class KernelEmitter {
public:
  KernelEmitter(OpBuilder &builder, MapOp map, Type indexType)
      : builder(builder), loc(map.getLoc()), map(map), indexType(indexType) {}

  LogicalResult prepare(Strategy strategy, int64_t vectorBytes);
  int64_t getVectorWidth() const { return vectorWidth; }
  /// Builds the block and thread loops and their bodies.
  void emit(Strategy strategy, int64_t blockSize, int64_t unroll);
  /// The transpose strategy: square tiles of dims `transposedDim` and the
  /// last, staged through a tile buffer per transposed input.
  void emitTranspose(int64_t transposedDim, int64_t tileEdge);

private:
  Value constant(int64_t value) {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getIntegerAttr(indexType, value));
  }
  Value toIndexType(Value index) {
    return index.getType() == indexType
               ? index
               : arith::IndexCastOp::create(builder, loc, indexType, index);
  }
  Value toIndex(Value value) {
    return value.getType().isIndex()
               ? value
               : arith::IndexCastOp::create(builder, loc,
                                            builder.getIndexType(), value);
  }
  Value add(Value a, Value b) {
    return arith::AddIOp::create(builder, loc, a, b);
  }
  Value mul(Value a, Value b) {
    return arith::MulIOp::create(builder, loc, a, b);
  }
  Value divide(Value a, Value b) {
    return arith::DivUIOp::create(builder, loc, a, b);
  }
  Value remainder(Value a, Value b) {
    return arith::RemUIOp::create(builder, loc, a, b);
  }
  Value bothTrue(Value a, Value b) {
    return arith::AndIOp::create(builder, loc, a, b);
  }
  /// A loop from 0 to `upperBound` mapped to `processor`, with the
  /// insertion point moved into it.
  scf::ParallelOp createMappedLoop(Value upperBound, gpu::Processor processor);
  /// A block loop over `grid` with a strategy, each block computing
  /// `elementsPerBlock` elements, and the insertion point in it.
  scf::ParallelOp createBlockLoop(Value grid, Strategy strategy,
                                  int64_t elementsPerBlock);
  /// A thread loop over `threads` at the insertion point, which moves into
  /// its body; returns its induction variable in indexType.
  Value createThreadLoop(int64_t threads);
  /// a < b for indices, which are never negative: unsigned, so that an
  /// index past 2^31 - 1 in a 32-bit kernel (the last block's elements
  /// beyond the end, shifted by the head, reach total + perBlock + head) is
  /// out of range rather than negative and in range.
  Value lessThan(Value a, Value b) {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, a, b);
  }
  Value equal(Value a, Value b) {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, a, b);
  }
  Value isMultiple(Value value, int64_t of) {
    return equal(remainder(value, constant(of)), constant(0));
  }

  FlatOperand flatten(Value memref);
  /// Host side: prepares division by `divisor`.
  Divider createDivider(Value divisor);
  /// Kernel side: quotient and remainder of `dividend` by a divider.
  std::pair<Value, Value> divideWithRemainder(Value dividend,
                                              const Divider &divider);
  /// Host side: the first element of `operand`, modulo `width` elements.
  Value computeMisalignment(Value memref, const FlatOperand &operand,
                            int64_t width);
  Value computeHostVectorCondition();
  /// The elements of a 16-byte vector of the transpose strategy, or 1 when
  /// its tiles cannot move vectors (i1 operands, tiles too small).
  int64_t chooseTransposeVectorWidth(int64_t tileEdge);
  /// Host side: the transpose strategy's vector path is safe (see
  /// emitTranspose).
  Value computeTransposeVectorCondition(const TransposeTiles &tiles);
  /// The offset of element (p, l) of the block's tile in operand `operand`
  /// (inputs, then outputs).
  Value getTileElementOffset(const TransposeTiles &tiles, unsigned operand,
                             Value p, Value l);
  /// `count` loads of `input` from `offset` along its last dim: one vector
  /// when it is contiguous there, else element by element along its stride.
  SmallVector<Value> loadAlongLastDim(const FlatOperand &input, Value offset,
                                      int64_t count);
  /// The lanes of one aligned vector of `count` elements at `offset` (one
  /// scalar load when `count` is 1).
  SmallVector<Value> loadVector(const FlatOperand &input, Value offset,
                                int64_t count);
  /// A thread's place in the tile for one pass: rows of consecutive threads
  /// along the pass's contiguous dim, one element or vector each.
  TilePlacement placeInTile(const TransposeTiles &tiles, Value thread,
                            bool vector);
  /// Thread-loop bodies of the transpose strategy: pass 1 stages the
  /// transposed inputs into their tiles, pass 2 computes and stores.
  void emitTransposeStaging(const TransposeTiles &tiles, Value thread,
                            bool vector, bool guarded);
  void emitTransposeCompute(const TransposeTiles &tiles, Value thread,
                            bool vector, bool guarded);
  /// Element offsets of every operand at linear iteration index `linear`.
  SmallVector<Value> computeOffsets(Value linear);
  Value load(const FlatOperand &operand, Value offset);
  /// The offset of lane `lane` of a vector chunk starting at `offset`.
  Value laneOffset(const FlatOperand &operand, Value offset, int64_t lane) {
    return lane ? add(offset, mul(constant(lane), operand.strides.back()))
                : offset;
  }
  void emitScalarElement(Value linear);
  void emitGuardedScalarElement(Value linear);
  /// Unguarded elements: every input of every element loaded first, then
  /// computed and stored.
  void emitScalarElements(ArrayRef<Value> linears);
  void emitVectorChunks(ArrayRef<Value> chunkIndices, Value first);

  OpBuilder &builder;
  Location loc;
  MapOp map;
  Type indexType;
  SmallVector<Value> sizes; // iteration sizes, in indexType
  SmallVector<Divider> sizeDividers;
  Value total;                     // number of elements, in indexType
  SmallVector<FlatOperand> inputs; // null flat for scalar inputs
  SmallVector<Value> scalarInputs; // the map's operand for scalars
  SmallVector<FlatOperand> outputs;
  int64_t vectorWidth = 1;
  Value vectorCondition; // host-side i1: the vector path is safe
  Value head;            // host-side: scalar elements before the vectors
};

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
    vectorWidth = std::max<int64_t>(1, vectorBytes / widest);
    vectorCondition = computeHostVectorCondition();
  }
  return success();
}

/// The vector path reads whole vectors at aligned addresses inside one row:
/// every vectorized operand's first element and row strides must be
/// multiples of the vector, its last stride 1, and rows a whole number of
/// vectors.
Value KernelEmitter::computeMisalignment(Value memref,
                                         const FlatOperand &operand,
                                         int64_t width) {
  int64_t bytes = getElementByteWidth(operand.elementType);
  Value pointer = toIndexType(
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref));
  // Buffers are aligned to their element size, so the first element's
  // position modulo the vector width, in elements, tells the alignment.
  Value firstElement = add(divide(pointer, constant(bytes)), operand.offset);
  return remainder(firstElement, constant(width));
}

Value KernelEmitter::computeHostVectorCondition() {
  Value ok = arith::ConstantIntOp::create(builder, loc, 1, 1);
  // Rank 1 may start with a scalar head: the elements before the first one
  // at a vector boundary, provided every vectorized operand reaches its
  // boundary at the same element (a[1:] + b[1:]). Higher ranks need every
  // row aligned, so no head.
  bool peelHead = sizes.size() == 1;
  if (sizes.size() > 1)
    ok = arith::AndIOp::create(builder, loc, ok,
                               isMultiple(sizes.back(), vectorWidth));
  // Outputs first: with run-time strides, the head aligns the first output.
  auto memrefs = llvm::concat<Value>(map.getOutputs(), map.getInputs());
  auto operands = llvm::concat<FlatOperand>(outputs, inputs);
  auto getMisalignment = [&](Value memref, const FlatOperand &operand) {
    return computeMisalignment(memref, operand, vectorWidth);
  };
  // The element misalignment every vectorized operand must share: that of
  // the first operand with a static unit stride, else of the first one with
  // a dynamic stride.
  Value misalignment = constant(0);
  if (peelHead) {
    std::optional<std::pair<Value, FlatOperand *>> anchor;
    for (bool dynamic : {false, true}) {
      for (auto [memref, operand] : llvm::zip(memrefs, operands))
        if (operand.flat && operand.vectorized &&
            operand.lastStrideIsDynamic == dynamic) {
          anchor = {memref, &operand};
          break;
        }
      if (anchor)
        break;
    }
    if (anchor)
      misalignment = getMisalignment(anchor->first, *anchor->second);
  }
  for (auto [memref, operand] : llvm::zip(memrefs, operands)) {
    if (!operand.flat || !operand.vectorized)
      continue;
    Value aligned = equal(getMisalignment(memref, operand), misalignment);
    for (Value stride : ArrayRef(operand.strides).drop_back())
      aligned = bothTrue(aligned, isMultiple(stride, vectorWidth));
    if (!operand.lastStrideIsDynamic) {
      ok = bothTrue(ok, aligned);
      continue;
    }
    // A run-time stride decides per operand: the others of the vector path
    // move lane by lane.
    operand.vectorFlag =
        bothTrue(aligned, equal(operand.strides.back(), constant(1)));
  }
  head = peelHead
             ? remainder(arith::SubIOp::create(
                             builder, loc, constant(vectorWidth), misalignment),
                         constant(vectorWidth))
             : constant(0);
  return ok;
}

// Division by a magic multiplier in 32-bit kernels (docs/Performance.md, row
// `magic-division`).
Divider KernelEmitter::createDivider(Value divisor) {
  if (!indexType.isInteger(32) || getConstantIntValue(divisor))
    return {divisor, Value(), Value()};
  // shift = ceil(log2(d)), magic = floor(2^32 * (2^shift - d) / d) + 1,
  // computed in 64 bits; an empty dim (d = 0) launches nothing, but the
  // host must not divide by it.
  Type i64 = builder.getI64Type();
  Value one = constant(1);
  Value safe = arith::MaxUIOp::create(builder, loc, divisor, one);
  Value leadingZeros = math::CountLeadingZerosOp::create(
      builder, loc, arith::SubIOp::create(builder, loc, safe, one));
  Value shift = arith::SubIOp::create(builder, loc, constant(32), leadingZeros);
  auto wide = [&](Value value) {
    return arith::ExtUIOp::create(builder, loc, i64, value);
  };
  auto wideConstant = [&](int64_t value) {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getIntegerAttr(i64, value));
  };
  Value power =
      arith::ShLIOp::create(builder, loc, wideConstant(1), wide(shift));
  Value numerator = arith::ShLIOp::create(
      builder, loc, arith::SubIOp::create(builder, loc, power, wide(safe)),
      wideConstant(32));
  Value magic = arith::AddIOp::create(
      builder, loc, arith::DivUIOp::create(builder, loc, numerator, wide(safe)),
      wideConstant(1));
  return {divisor, arith::TruncIOp::create(builder, loc, indexType, magic),
          shift};
}

std::pair<Value, Value>
KernelEmitter::divideWithRemainder(Value dividend, const Divider &divider) {
  if (!divider.magic)
    return {divide(dividend, divider.divisor),
            remainder(dividend, divider.divisor)};
  Value high =
      arith::MulUIExtendedOp::create(builder, loc, dividend, divider.magic)
          .getHigh();
  Value quotient =
      arith::ShRUIOp::create(builder, loc, add(high, dividend), divider.shift);
  return {quotient, arith::SubIOp::create(builder, loc, dividend,
                                          mul(quotient, divider.divisor))};
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
      offset = add(offset, mul(index, stride));
    offsets.push_back(offset);
  }
  return offsets;
}

Value KernelEmitter::load(const FlatOperand &operand, Value offset) {
  return memref::LoadOp::create(builder, loc, operand.flat,
                                ValueRange{toIndex(offset)});
}

void KernelEmitter::emitScalarElement(Value linear) {
  SmallVector<Value> offsets = computeOffsets(linear);
  SmallVector<Value> values;
  for (auto [index, operand] : llvm::enumerate(inputs))
    values.push_back(operand.flat ? load(operand, offsets[index])
                                  : scalarInputs[index]);
  SmallVector<Value> results = cloneBodyInOpMath(builder, loc, map, values);
  for (auto [index, operand] : llvm::enumerate(outputs))
    memref::StoreOp::create(
        builder, loc, results[index], operand.flat,
        ValueRange{toIndex(offsets[inputs.size() + index])});
}

void KernelEmitter::emitScalarElements(ArrayRef<Value> linears) {
  SmallVector<SmallVector<Value>> offsets, values;
  for (Value linear : linears) {
    offsets.push_back(computeOffsets(linear));
    values.emplace_back();
    for (auto [index, operand] : llvm::enumerate(inputs))
      values.back().push_back(operand.flat
                                  ? load(operand, offsets.back()[index])
                                  : scalarInputs[index]);
  }
  for (auto [elementOffsets, elementValues] : llvm::zip(offsets, values)) {
    SmallVector<Value> results =
        cloneBodyInOpMath(builder, loc, map, elementValues);
    for (auto [index, operand] : llvm::enumerate(outputs))
      memref::StoreOp::create(
          builder, loc, results[index], operand.flat,
          ValueRange{toIndex(elementOffsets[inputs.size() + index])});
  }
}

void KernelEmitter::emitGuardedScalarElement(Value linear) {
  auto guard = scf::IfOp::create(builder, loc, lessThan(linear, total));
  OpBuilder::InsertionGuard insertion(builder);
  builder.setInsertionPointToStart(guard.thenBlock());
  emitScalarElement(linear);
}

/// Full vectors for every chunk: all loads first, so that each thread has
/// `unroll` independent accesses per operand in flight, then compute and
/// store.
void KernelEmitter::emitVectorChunks(ArrayRef<Value> chunkIndices,
                                     Value first) {
  SmallVector<SmallVector<Value>> offsets;
  SmallVector<SmallVector<SmallVector<Value>>> lanes; // chunk, input, lane
  for (Value chunk : chunkIndices) {
    offsets.push_back(
        computeOffsets(add(first, mul(chunk, constant(vectorWidth)))));
    SmallVector<SmallVector<Value>> chunkLanes;
    for (auto [index, operand] : llvm::enumerate(inputs)) {
      SmallVector<Value> values;
      Value offset = offsets.back()[index];
      if (!operand.flat) {
        values.assign(vectorWidth, scalarInputs[index]);
      } else if (operand.vectorized) {
        auto type = VectorType::get({vectorWidth}, operand.elementType);
        int64_t alignment =
            vectorWidth * getElementByteWidth(operand.elementType);
        auto loadVector = [&] {
          return vector::LoadOp::create(
              builder, loc, type, operand.flat, ValueRange{toIndex(offset)},
              /*nontemporal=*/false, llvm::MaybeAlign(alignment));
        };
        Value vector;
        if (!operand.vectorFlag) {
          vector = loadVector();
        } else {
          // A uniform branch: the whole vector, or its lanes one by one
          // along the run-time stride.
          auto ifVector = scf::IfOp::create(builder, loc, TypeRange{type},
                                            operand.vectorFlag,
                                            /*withElseRegion=*/true);
          OpBuilder::InsertionGuard branches(builder);
          builder.setInsertionPointToStart(ifVector.thenBlock());
          scf::YieldOp::create(builder, loc, ValueRange{loadVector()});
          builder.setInsertionPointToStart(ifVector.elseBlock());
          SmallVector<Value> laneValues;
          for (int64_t lane = 0; lane < vectorWidth; ++lane)
            laneValues.push_back(
                load(operand, laneOffset(operand, offset, lane)));
          scf::YieldOp::create(builder, loc,
                               ValueRange{vector::FromElementsOp::create(
                                   builder, loc, type, laneValues)});
          vector = ifVector.getResult(0);
        }
        for (int64_t lane = 0; lane < vectorWidth; ++lane)
          values.push_back(
              vector::ExtractOp::create(builder, loc, vector, lane));
      } else {
        // Stride 0 along the last dim: one value for the whole vector; i1
        // operands step element by element.
        bool broadcast = operand.broadcastAlongLastDim;
        for (int64_t lane = 0; lane < vectorWidth; ++lane) {
          if (broadcast && lane > 0) {
            values.push_back(values.front());
            continue;
          }
          Value laneOffset =
              lane ? add(offset, mul(constant(lane), operand.strides.back()))
                   : offset;
          values.push_back(load(operand, laneOffset));
        }
      }
      chunkLanes.push_back(std::move(values));
    }
    lanes.push_back(std::move(chunkLanes));
  }

  for (auto [chunk, chunkLanes] : llvm::enumerate(lanes)) {
    SmallVector<SmallVector<Value>> results(outputs.size());
    for (int64_t lane = 0; lane < vectorWidth; ++lane) {
      SmallVector<Value> values;
      for (SmallVector<Value> &inputLanes : chunkLanes)
        values.push_back(inputLanes[lane]);
      SmallVector<Value> laneResults =
          cloneBodyInOpMath(builder, loc, map, values);
      for (auto [output, value] : llvm::enumerate(laneResults))
        results[output].push_back(value);
    }
    for (auto [index, operand] : llvm::enumerate(outputs)) {
      Value offset = offsets[chunk][inputs.size() + index];
      if (!operand.vectorized) {
        // i1 outputs go element by element, along their own last stride
        // (which the vector path's condition does not constrain).
        for (int64_t lane = 0; lane < vectorWidth; ++lane) {
          Value laneOffset =
              lane ? add(offset, mul(constant(lane), operand.strides.back()))
                   : offset;
          memref::StoreOp::create(builder, loc, results[index][lane],
                                  operand.flat,
                                  ValueRange{toIndex(laneOffset)});
        }
        continue;
      }
      auto type = VectorType::get({vectorWidth}, operand.elementType);
      int64_t alignment =
          vectorWidth * getElementByteWidth(operand.elementType);
      OpBuilder::InsertionGuard branches(builder);
      if (operand.vectorFlag) {
        auto ifVector = scf::IfOp::create(builder, loc, operand.vectorFlag,
                                          /*withElseRegion=*/true);
        builder.setInsertionPointToStart(ifVector.elseBlock());
        for (int64_t lane = 0; lane < vectorWidth; ++lane)
          memref::StoreOp::create(
              builder, loc, results[index][lane], operand.flat,
              ValueRange{toIndex(laneOffset(operand, offset, lane))});
        builder.setInsertionPointToStart(ifVector.thenBlock());
      }
      Value vector =
          vector::FromElementsOp::create(builder, loc, type, results[index]);
      vector::StoreOp::create(
          builder, loc, vector, operand.flat, ValueRange{toIndex(offset)},
          /*nontemporal=*/false, llvm::MaybeAlign(alignment));
    }
  }
}

// One chunk per block, no persistent grid (docs/Performance.md, row
// `linear-grid`).
void KernelEmitter::emit(Strategy strategy, int64_t blockSize, int64_t unroll) {
  int64_t elementsPerThread =
      unroll * (strategy == Strategy::Linear ? vectorWidth : 1);
  Value perBlock = constant(blockSize * elementsPerThread);
  Value grid =
      toIndex(arith::CeilDivUIOp::create(builder, loc, total, perBlock));

  // CUDA rejects empty grids: an empty iteration space launches nothing.
  Value nonEmpty = lessThan(constant(0), total);
  auto ifNonEmpty = scf::IfOp::create(builder, loc, nonEmpty);
  OpBuilder::InsertionGuard insertion(builder);
  builder.setInsertionPointToStart(ifNonEmpty.thenBlock());
  scf::ParallelOp blocks =
      createBlockLoop(grid, strategy, blockSize * elementsPerThread);
  Value block = toIndexType(blocks.getInductionVars()[0]);
  Value thread = createThreadLoop(blockSize);
  Value blockThreads = constant(blockSize);

  // Scalar elements of this thread from element `first` on: coalesced
  // across the block for each step, `elementsPerThread` steps. A block whose
  // elements are all in range loads every step's inputs before computing
  // (independent loads in flight, as on the vector path); the last, partial
  // block guards each step.
  auto emitScalarSteps = [&](Value first) {
    Value base = mul(block, constant(elementsPerThread));
    SmallVector<Value> linears;
    for (int64_t step = 0; step < elementsPerThread; ++step)
      linears.push_back(add(
          first, add(mul(add(base, constant(step)), blockThreads), thread)));
    Value blockEnd = add(first, mul(add(block, constant(1)), perBlock));
    auto ifFull = scf::IfOp::create(
        builder, loc,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule, blockEnd,
                              total),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard paths(builder);
    builder.setInsertionPointToStart(ifFull.thenBlock());
    emitScalarElements(linears);
    builder.setInsertionPointToStart(ifFull.elseBlock());
    for (Value linear : linears)
      emitGuardedScalarElement(linear);
  };

  if (strategy == Strategy::General) {
    emitScalarSteps(constant(0));
    return;
  }

  auto ifVector = scf::IfOp::create(builder, loc, vectorCondition,
                                    /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard vectorPath(builder);
    builder.setInsertionPointToStart(ifVector.thenBlock());
    // The head, fewer elements than a vector, goes to the first threads of
    // the first block; everything after it is shifted by the head.
    auto ifHead = scf::IfOp::create(
        builder, loc,
        bothTrue(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                       block, constant(0)),
                 lessThan(thread, head)));
    {
      OpBuilder::InsertionGuard headPath(builder);
      builder.setInsertionPointToStart(ifHead.thenBlock());
      emitGuardedScalarElement(thread);
    }
    // A block whose chunks are all in range takes the unguarded vector
    // code; the last, partial block takes the scalar code.
    Value blockEnd = add(mul(add(block, constant(1)), perBlock), head);
    Value full = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule,
                                       blockEnd, total);
    auto ifFull =
        scf::IfOp::create(builder, loc, full, /*withElseRegion=*/true);
    builder.setInsertionPointToStart(ifFull.thenBlock());
    SmallVector<Value> chunks;
    Value firstChunk = add(mul(block, constant(unroll * blockSize)), thread);
    for (int64_t step = 0; step < unroll; ++step)
      chunks.push_back(add(firstChunk, constant(step * blockSize)));
    emitVectorChunks(chunks, head);
    builder.setInsertionPointToStart(ifFull.elseBlock());
    emitScalarSteps(head);
  }
  builder.setInsertionPointToStart(ifVector.elseBlock());
  emitScalarSteps(constant(0));
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

int64_t KernelEmitter::chooseTransposeVectorWidth(int64_t tileEdge) {
  int64_t widest = 1;
  for (const FlatOperand &operand :
       llvm::concat<const FlatOperand>(inputs, outputs)) {
    if (!operand.flat)
      continue;
    // LLVM packs vectors of i1 into bits; their bytes move one by one.
    if (operand.elementType.isInteger(1))
      return 1;
    widest = std::max(widest, getElementByteWidth(operand.elementType));
  }
  int64_t width = kTransposeVectorBytes / widest;
  // Every thread moves the same whole number of vectors per tile.
  if (width < 2 || tileEdge % width ||
      (tileEdge * tileEdge / width) % kTileThreads)
    return 1;
  return width;
}

Value KernelEmitter::computeTransposeVectorCondition(
    const TransposeTiles &tiles) {
  Value safe = arith::ConstantIntOp::create(builder, loc, 1, 1);
  auto memrefs = llvm::concat<Value>(map.getInputs(), map.getOutputs());
  auto operands = llvm::concat<const FlatOperand>(inputs, outputs);
  for (auto [index, pair] : llvm::enumerate(llvm::zip(memrefs, operands))) {
    auto [memref, operand] = pair;
    if (!operand.flat)
      continue;
    bool staged = index < inputs.size() && tiles.buffers[index];
    // The dim the operand's vectors run along: P for the staged inputs
    // (statically contiguous there), L for the others. Those with a static
    // stride other than 1 along L move element by element: no condition.
    int64_t along = staged ? tiles.transposedDim : tiles.last;
    if (!staged && !operand.vectorized)
      continue;
    // Vectors start at multiples of the width along `along` inside the
    // tile, so the first element and every other stride must be multiples
    // of it too.
    safe = bothTrue(
        safe, equal(computeMisalignment(memref, operand, tiles.vectorWidth),
                    constant(0)));
    for (auto [dim, stride] : llvm::enumerate(operand.strides))
      if (static_cast<int64_t>(dim) != along)
        safe = bothTrue(safe, isMultiple(stride, tiles.vectorWidth));
    if (!staged && operand.lastStrideIsDynamic)
      safe = bothTrue(safe, equal(operand.strides.back(), constant(1)));
  }
  return safe;
}

Value KernelEmitter::getTileElementOffset(const TransposeTiles &tiles,
                                          unsigned operand, Value p, Value l) {
  const FlatOperand &flat = operand < inputs.size()
                                ? inputs[operand]
                                : outputs[operand - inputs.size()];
  return add(tiles.offsets[operand],
             add(mul(p, flat.strides[tiles.transposedDim]),
                 mul(l, flat.strides[tiles.last])));
}

SmallVector<Value> KernelEmitter::loadAlongLastDim(const FlatOperand &input,
                                                   Value offset,
                                                   int64_t count) {
  if (count > 1 && input.vectorized)
    return loadVector(input, offset, count);
  SmallVector<Value> values;
  for (int64_t lane = 0; lane < count; ++lane)
    values.push_back(load(input, laneOffset(input, offset, lane)));
  return values;
}

SmallVector<Value> KernelEmitter::loadVector(const FlatOperand &input,
                                             Value offset, int64_t count) {
  if (count == 1)
    return {load(input, offset)};
  SmallVector<Value> values;
  auto type = VectorType::get({count}, input.elementType);
  Value vector = vector::LoadOp::create(
      builder, loc, type, input.flat, ValueRange{toIndex(offset)},
      /*nontemporal=*/false,
      llvm::MaybeAlign(count * getElementByteWidth(input.elementType)));
  for (int64_t lane = 0; lane < count; ++lane)
    values.push_back(vector::ExtractOp::create(builder, loc, vector, lane));
  return values;
}

TilePlacement KernelEmitter::placeInTile(const TransposeTiles &tiles,
                                         Value thread, bool vector) {
  TilePlacement placement;
  placement.width = vector ? tiles.vectorWidth : 1;
  int64_t threadsPerRow = tiles.edge / placement.width;
  placement.rowsPerStep = kTileThreads / threadsPerRow;
  placement.column = mul(remainder(thread, constant(threadsPerRow)),
                         constant(placement.width));
  placement.firstRow = divide(thread, constant(threadsPerRow));
  return placement;
}

void KernelEmitter::emitTransposeStaging(const TransposeTiles &tiles,
                                         Value thread, bool vector,
                                         bool guarded) {
  // Each step covers the tile in rows of consecutive threads along the
  // staged inputs' contiguous dim P: `width` elements per thread, `edge /
  // width` threads per row. All loads come before the stores, so a thread
  // has every element of its steps in flight at once.
  auto [width, rowsPerStep, column, firstRow] =
      placeInTile(tiles, thread, vector);
  struct Staged {
    SmallVector<Value> values;
    Value buffer, p, l;
  };
  SmallVector<Staged> staged;
  for (int64_t row = 0; row < tiles.edge; row += rowsPerStep) {
    Value l = add(firstRow, constant(row));
    for (auto [index, buffer] : llvm::enumerate(tiles.buffers)) {
      if (!buffer)
        continue;
      const FlatOperand &input = inputs[index];
      Value offset = getTileElementOffset(tiles, index, column, l);
      if (!guarded) {
        staged.push_back({loadVector(input, offset, width), buffer, column, l});
        continue;
      }
      auto guard = scf::IfOp::create(
          builder, loc,
          bothTrue(
              lessThan(add(tiles.firstP, column), sizes[tiles.transposedDim]),
              lessThan(add(tiles.firstL, l), sizes[tiles.last])));
      OpBuilder::InsertionGuard inside(builder);
      builder.setInsertionPointToStart(guard.thenBlock());
      memref::StoreOp::create(builder, loc, load(input, offset), buffer,
                              ValueRange{toIndex(l), toIndex(column)});
    }
  }
  for (const Staged &element : staged)
    for (auto [lane, value] : llvm::enumerate(element.values))
      memref::StoreOp::create(
          builder, loc, value, element.buffer,
          ValueRange{toIndex(element.l),
                     toIndex(add(element.p, constant(lane)))});
}

void KernelEmitter::emitTransposeCompute(const TransposeTiles &tiles,
                                         Value thread, bool vector,
                                         bool guarded) {
  // Each step covers the tile in rows of consecutive threads along the
  // outputs' contiguous dim L, `width` elements per thread. The inputs
  // not staged are read here, all of a thread's first, then each element
  // takes the staged ones from their tiles.
  auto [width, rowsPerStep, column, firstRow] =
      placeInTile(tiles, thread, vector);
  Value sizeP = sizes[tiles.transposedDim];
  Value sizeL = sizes[tiles.last];
  auto emitStep = [&](Value p, ArrayRef<SmallVector<Value>> direct) {
    SmallVector<SmallVector<Value>> results(outputs.size());
    for (int64_t lane = 0; lane < width; ++lane) {
      Value l = add(column, constant(lane));
      SmallVector<Value> values;
      for (auto [index, buffer] : llvm::enumerate(tiles.buffers))
        values.push_back(buffer ? Value(memref::LoadOp::create(
                                      builder, loc, buffer,
                                      ValueRange{toIndex(l), toIndex(p)}))
                                : direct[index][lane]);
      for (auto [output, value] :
           llvm::enumerate(cloneBodyInOpMath(builder, loc, map, values)))
        results[output].push_back(value);
    }
    for (auto [index, output] : llvm::enumerate(outputs)) {
      Value offset =
          getTileElementOffset(tiles, inputs.size() + index, p, column);
      if (width > 1 && output.vectorized) {
        auto type = VectorType::get({width}, output.elementType);
        vector::StoreOp::create(
            builder, loc,
            vector::FromElementsOp::create(builder, loc, type, results[index]),
            output.flat, ValueRange{toIndex(offset)}, /*nontemporal=*/false,
            llvm::MaybeAlign(width * getElementByteWidth(output.elementType)));
        continue;
      }
      for (auto [lane, value] : llvm::enumerate(results[index]))
        memref::StoreOp::create(
            builder, loc, value, output.flat,
            ValueRange{toIndex(laneOffset(output, offset, lane))});
    }
  };
  // The direct inputs' values of one step: `width` lanes per input.
  auto loadDirect = [&](Value p) {
    SmallVector<SmallVector<Value>> direct;
    for (auto [index, input] : llvm::enumerate(inputs)) {
      if (tiles.buffers[index])
        direct.emplace_back();
      else if (!input.flat)
        direct.emplace_back(width, scalarInputs[index]);
      else
        direct.push_back(loadAlongLastDim(
            input, getTileElementOffset(tiles, index, p, column), width));
    }
    return direct;
  };

  if (!guarded) {
    SmallVector<std::pair<Value, SmallVector<SmallVector<Value>>>> steps;
    for (int64_t row = 0; row < tiles.edge; row += rowsPerStep) {
      Value p = add(firstRow, constant(row));
      steps.emplace_back(p, loadDirect(p));
    }
    for (auto &[p, direct] : steps)
      emitStep(p, direct);
    return;
  }
  for (int64_t row = 0; row < tiles.edge; row += rowsPerStep) {
    Value p = add(firstRow, constant(row));
    auto guard =
        scf::IfOp::create(builder, loc,
                          bothTrue(lessThan(add(tiles.firstP, p), sizeP),
                                   lessThan(add(tiles.firstL, column), sizeL)));
    OpBuilder::InsertionGuard inside(builder);
    builder.setInsertionPointToStart(guard.thenBlock());
    emitStep(p, loadDirect(p));
  }
}

// Tiles along the outputs' last dim vary fastest in the grid
// (docs/Performance.md, rows `transpose-tile` and `transpose-block-order`).
void KernelEmitter::emitTranspose(int64_t transposedDim, int64_t tileEdge) {
  TransposeTiles tiles;
  tiles.transposedDim = transposedDim;
  tiles.last = sizes.size() - 1;
  tiles.edge = tileEdge;
  tiles.vectorWidth = chooseTransposeVectorWidth(tileEdge);
  Value edge = constant(tileEdge);
  Value tilesAlongP =
      arith::CeilDivUIOp::create(builder, loc, sizes[transposedDim], edge);
  Value tilesAlongL =
      arith::CeilDivUIOp::create(builder, loc, sizes[tiles.last], edge);
  SmallVector<int64_t> batchDims;
  Value batch = constant(1);
  for (int64_t dim = 0; dim < tiles.last; ++dim)
    if (dim != transposedDim) {
      batchDims.push_back(dim);
      batch = mul(batch, sizes[dim]);
    }
  Value grid = toIndex(mul(mul(batch, tilesAlongP), tilesAlongL));
  Divider byTilesAlongL = createDivider(tilesAlongL);
  Divider byTilesAlongP = createDivider(tilesAlongP);

  auto ifNonEmpty =
      scf::IfOp::create(builder, loc, lessThan(constant(0), total));
  OpBuilder::InsertionGuard insertion(builder);
  builder.setInsertionPointToStart(ifNonEmpty.thenBlock());
  // One tile per transposed input (contiguous along P, not along L); the
  // other inputs are read directly, along L like the outputs. The buffers
  // are allocated before the block loop and marked block-local:
  // pw-lower-to-gpu gives every block its own copy in workgroup memory,
  // while on the CPU, where blocks run one after another, one copy serves
  // them all.
  tiles.buffers.assign(inputs.size(), Value());
  for (auto [index, input] : llvm::enumerate(map.getInputs())) {
    if (!isTransposedInput(input, transposedDim))
      continue;
    auto buffer = memref::AllocaOp::create(
        builder, loc,
        MemRefType::get({tileEdge, tileEdge + 1}, inputs[index].elementType));
    buffer->setAttr(PointwiseDialect::BlockLocalAttrHelper::getNameStr(),
                    builder.getUnitAttr());
    tiles.buffers[index] = buffer;
  }
  if (tiles.vectorWidth > 1)
    tiles.vectorSafe = computeTransposeVectorCondition(tiles);
  scf::ParallelOp blocks =
      createBlockLoop(grid, Strategy::Transpose, tileEdge * tileEdge);

  // Which tile this block computes, and every operand's offset to it.
  Value block = toIndexType(blocks.getInductionVars()[0]);
  auto [rest, tileL] = divideWithRemainder(block, byTilesAlongL);
  Value tileP;
  std::tie(rest, tileP) = divideWithRemainder(rest, byTilesAlongP);
  SmallVector<Value> batchIndices(batchDims.size());
  for (int64_t position = batchDims.size() - 1; position >= 0; --position) {
    if (position == 0) {
      batchIndices[position] = rest;
      break;
    }
    std::tie(rest, batchIndices[position]) =
        divideWithRemainder(rest, sizeDividers[batchDims[position]]);
  }
  tiles.firstP = mul(tileP, edge);
  tiles.firstL = mul(tileL, edge);
  for (FlatOperand &operand : llvm::concat<FlatOperand>(inputs, outputs)) {
    if (!operand.flat) {
      tiles.offsets.push_back(Value());
      continue;
    }
    Value offset = add(operand.offset,
                       add(mul(tiles.firstP, operand.strides[transposedDim]),
                           mul(tiles.firstL, operand.strides[tiles.last])));
    for (auto [position, dim] : llvm::enumerate(batchDims))
      offset = add(offset, mul(batchIndices[position], operand.strides[dim]));
    tiles.offsets.push_back(offset);
  }
  // The interior tiles, all but those at the high edges, need no bounds
  // checks; with the vector path safe they move whole vectors.
  tiles.full = bothTrue(
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule,
                            add(tiles.firstP, edge), sizes[transposedDim]),
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule,
                            add(tiles.firstL, edge), sizes[tiles.last]));

  // Each pass is a thread loop of kTileThreads threads with three paths:
  // vectors (interior tiles, vector path safe), unguarded scalars
  // (interior tiles) and guarded scalars (edge tiles). pw-lower-to-gpu puts
  // a barrier between the two passes.
  using PassBody =
      void (KernelEmitter::*)(const TransposeTiles &, Value, bool, bool);
  auto emitPass = [&](PassBody body) {
    OpBuilder::InsertionGuard pass(builder);
    Value thread = createThreadLoop(kTileThreads);
    auto ifFull =
        scf::IfOp::create(builder, loc, tiles.full, /*withElseRegion=*/true);
    builder.setInsertionPointToStart(ifFull.elseBlock());
    (this->*body)(tiles, thread, /*vector=*/false, /*guarded=*/true);
    builder.setInsertionPointToStart(ifFull.thenBlock());
    if (tiles.vectorSafe) {
      auto ifVector = scf::IfOp::create(builder, loc, tiles.vectorSafe,
                                        /*withElseRegion=*/true);
      builder.setInsertionPointToStart(ifVector.elseBlock());
      (this->*body)(tiles, thread, /*vector=*/false, /*guarded=*/false);
      builder.setInsertionPointToStart(ifVector.thenBlock());
      (this->*body)(tiles, thread, /*vector=*/true, /*guarded=*/false);
      return;
    }
    (this->*body)(tiles, thread, /*vector=*/false, /*guarded=*/false);
  };
  emitPass(&KernelEmitter::emitTransposeStaging);
  emitPass(&KernelEmitter::emitTransposeCompute);
}

/// Static shared memory a kernel may use without opting in (48 KiB).
constexpr int64_t kStaticSharedMemoryBytes = 48 * 1024;

/// The largest tile edge up to `requested` whose tiles, one per transposed
/// input (E x (E + 1) elements each), fit in static shared memory
/// (docs/Performance.md, row `transpose-tile-fit`).
int64_t fitTileEdge(MapOp map, int64_t transposedDim, int64_t requested) {
  int64_t rowBytes = 0;
  for (Value input : map.getInputs())
    if (isTransposedInput(input, transposedDim))
      rowBytes += getElementByteWidth(
          cast<MemRefType>(input.getType()).getElementType());
  int64_t edge = requested;
  while (edge > 16 && edge * (edge + 1) * rowBytes > kStaticSharedMemoryBytes)
    edge /= 2;
  return edge;
}

/// The unroll of option value 0. The linear strategy's bandwidth follows the
/// bytes of loads a thread has in flight: one vector per operand is best
/// when two or more memref inputs stream, two when one does; the general
/// strategy takes 4 steps (docs/Performance.md, row `linear-unroll`).
int64_t chooseUnroll(MapOp map, Strategy strategy) {
  if (strategy != Strategy::Linear)
    return 4;
  auto isMemRef = [](Value input) { return isa<MemRefType>(input.getType()); };
  return llvm::count_if(map.getInputs(), isMemRef) >= 2 ? 1 : 2;
}

/// Threads per block and bytes per vector access of the linear strategy,
/// for option values 0: rank-1 maps whose memref operands all have 4-byte
/// elements are faster with 8-byte vectors in blocks of 256 threads; at rank
/// 2 and more, and with 2-byte or mixed element sizes, that shape is slower,
/// so those keep 16-byte vectors in blocks of 128 threads. The general
/// strategy uses 128 threads (docs/Performance.md, row `linear-shape`).
struct LinearShape {
  int64_t blockSize;
  int64_t vectorBytes;
};

LinearShape chooseLinearShape(MapOp map, Strategy strategy) {
  constexpr LinearShape kDefault{128, 16};
  if (strategy != Strategy::Linear || map.getIterationShape().size() != 1)
    return kDefault;
  for (Value operand : llvm::concat<Value>(map.getInputs(), map.getOutputs()))
    if (auto type = dyn_cast<MemRefType>(operand.getType());
        type && getElementByteWidth(type.getElementType()) != 4)
      return kDefault;
  return {256, 8};
}

/// The nearest enclosing overrides of `strategy`, `indexBitwidth` and
/// `vectorBytes`, checked like the options.
LogicalResult applyOverrides(MapOp map, TileStrategy &strategy,
                             unsigned &indexBitwidth, int64_t &vectorBytes) {
  for (Operation *owner = map->getParentOp(); owner;
       owner = owner->getParentOp()) {
    if (Attribute attr = owner->getAttr(
            PointwiseDialect::TileStrategyAttrHelper::getNameStr())) {
      auto name = dyn_cast<StringAttr>(attr);
      std::optional<TileStrategy> named =
          name ? symbolizeTileStrategy(name.getValue()) : std::nullopt;
      if (!named)
        return owner->emitOpError()
               << PointwiseDialect::TileStrategyAttrHelper::getNameStr()
               << " must be \"auto\", \"linear\", \"transpose\" or "
                  "\"general\"";
      strategy = *named;
      break;
    }
  }
  for (Operation *owner = map->getParentOp(); owner;
       owner = owner->getParentOp()) {
    if (Attribute attr = owner->getAttr(
            PointwiseDialect::TileIndexBitwidthAttrHelper::getNameStr())) {
      auto bits = dyn_cast<IntegerAttr>(attr);
      if (!bits ||
          !llvm::is_contained(ArrayRef<int64_t>{0, 32, 64}, bits.getInt()))
        return owner->emitOpError()
               << PointwiseDialect::TileIndexBitwidthAttrHelper::getNameStr()
               << " must be the integer 0, 32 or 64";
      indexBitwidth = bits.getInt();
      break;
    }
  }
  for (Operation *owner = map->getParentOp(); owner;
       owner = owner->getParentOp()) {
    if (Attribute attr = owner->getAttr(
            PointwiseDialect::TileVectorBytesAttrHelper::getNameStr())) {
      auto bytes = dyn_cast<IntegerAttr>(attr);
      if (!bytes || bytes.getInt() < 0 || bytes.getInt() > kMaxVectorBytes ||
          (bytes.getInt() != 0 && !llvm::isPowerOf2_64(bytes.getInt())))
        return owner->emitOpError()
               << PointwiseDialect::TileVectorBytesAttrHelper::getNameStr()
               << " must be an integer power of two up to " << kMaxVectorBytes
               << ", or 0";
      vectorBytes = bytes.getInt();
      break;
    }
  }
  return success();
}

struct TilePass : public pointwise::impl::TilePassBase<TilePass> {
  using TilePassBase::TilePassBase;

  void runOnOperation() override {
    // Option errors concern no op: report them at the module's location
    // without printing the module.
    Location loc = getOperation()->getLoc();
    if (indexBitwidth != 0 && indexBitwidth != 32 && indexBitwidth != 64) {
      emitError(loc) << "pw-tile: index-bitwidth must be 0, 32 or 64, got "
                     << static_cast<unsigned>(indexBitwidth);
      return signalPassFailure();
    }
    if (!llvm::is_contained(ArrayRef<int64_t>{16, 32, 64},
                            tileEdge.getValue())) {
      emitError(loc) << "pw-tile: tile-edge must be 16, 32 or 64, got "
                     << tileEdge.getValue();
      return signalPassFailure();
    }
    if (blockSize < 0 || blockSize > kMaxBlockSize) {
      emitError(loc) << "pw-tile: block-size must be 1 to " << kMaxBlockSize
                     << " (threads per block), or 0 to decide per map, got "
                     << blockSize.getValue();
      return signalPassFailure();
    }
    if (vectorBytes < 0 || vectorBytes > kMaxVectorBytes ||
        (vectorBytes != 0 && !llvm::isPowerOf2_64(vectorBytes))) {
      emitError(loc) << "pw-tile: vector-bytes must be a power of two up to "
                     << kMaxVectorBytes << ", or 0 to decide per map, got "
                     << vectorBytes.getValue();
      return signalPassFailure();
    }
    if (unroll < 0 || unroll > kMaxUnroll) {
      emitError(loc) << "pw-tile: unroll must be 1 to " << kMaxUnroll
                     << ", or 0 to decide per map, got " << unroll.getValue();
      return signalPassFailure();
    }
    SmallVector<MapOp> maps;
    getOperation()->walk([&](MapOp map) { maps.push_back(map); });
    for (MapOp map : maps)
      if (!map.hasPureBufferSemantics()) {
        map.emitNotBufferizedError(getArgument());
        return signalPassFailure();
      }
    IRRewriter rewriter(&getContext());
    for (MapOp map : maps) {
      // Inputs that broadcast are addressed with their strides: they must
      // be in pw-canonicalize-broadcast's form (a no-op on maps that went
      // through it, as in the pipelines).
      canonicalizeBroadcastInputs(rewriter, map);
      TileStrategy strategy = this->strategy;
      unsigned indexBitwidth = this->indexBitwidth;
      int64_t vectorBytes = this->vectorBytes;
      if (failed(applyOverrides(map, strategy, indexBitwidth, vectorBytes)))
        return signalPassFailure();
      Strategy chosen = chooseStrategy(map);
      if (strategy == TileStrategy::General) {
        chosen = Strategy::General;
      } else if (strategy == TileStrategy::Linear &&
                 chosen != Strategy::Linear) {
        map.emitOpError("the linear strategy needs stride 1 or 0 along "
                        "the last dim of every memref operand");
        return signalPassFailure();
      } else if (strategy == TileStrategy::Transpose &&
                 chosen != Strategy::Transpose) {
        map.emitOpError("the transpose strategy needs outputs contiguous "
                        "along the last dim and an input contiguous along "
                        "another dim");
        return signalPassFailure();
      }
      // A forced 32 on a static layout that needs 64 would truncate its
      // offsets (dynamic layouts are the runtime's to check at dispatch).
      if (indexBitwidth == 32 && decideIndexBitwidthStatically(map) == 64u) {
        map.emitOpError("index-bitwidth=32 cannot address this map's "
                        "operands: their static sizes, strides and offsets "
                        "reach element offsets beyond 32 bits");
        return signalPassFailure();
      }
      unsigned bits = indexBitwidth ? indexBitwidth : chooseIndexBitwidth(map);
      Type indexType = bits == 32 ? Type(rewriter.getI32Type())
                                  : Type(rewriter.getIndexType());
      rewriter.setInsertionPoint(map);
      KernelEmitter emitter(rewriter, map, indexType);
      LinearShape shape = chooseLinearShape(map, chosen);
      if (blockSize)
        shape.blockSize = blockSize;
      if (vectorBytes)
        shape.vectorBytes = vectorBytes;
      if (failed(emitter.prepare(chosen, shape.vectorBytes)))
        return signalPassFailure();
      // At most 16 elements in flight per thread: wider vectors (f16, i8)
      // take fewer steps, which keeps the registers of the body in check
      // (docs/Performance.md, row `elements-in-flight`).
      int64_t requested = unroll ? unroll : chooseUnroll(map, chosen);
      int64_t steps = std::max<int64_t>(
          1, std::min<int64_t>(requested,
                               kElementsInFlight / emitter.getVectorWidth()));
      if (chosen == Strategy::Transpose) {
        int64_t transposedDim = *findTransposedDim(map);
        emitter.emitTranspose(transposedDim,
                              fitTileEdge(map, transposedDim, tileEdge));
      } else
        emitter.emit(chosen, shape.blockSize,
                     chosen == Strategy::Linear ? steps : requested);
      rewriter.eraseOp(map);
    }
  }
};

} // namespace
