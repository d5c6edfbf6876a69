//===- TilingHeuristics.cpp - pw-tile's choices ---------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// What pw-tile decides from a map's types: the strategy, the index
// bitwidth, the linear strategy's block and vector shape, the unroll and
// the transpose tile. Each choice cites its row of docs/Performance.md.
//
//===----------------------------------------------------------------------===//

#include "TilingInternal.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/Layout/IndexWidth.h"
#include "Pointwise/Layout/TransposeDetection.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace pointwise;
using namespace pointwise::tiling;

namespace {

/// The constant stride `stride` has unless its dim broadcasts: the stride
/// `size == 1 ? 0 : constant` pw-canonicalize-broadcast gives a dim whose
/// size is known only at run time.
std::optional<int64_t> getStrideUnlessBroadcast(Value stride) {
  auto select = stride.getDefiningOp<arith::SelectOp>();
  if (!select || !isConstantIntValue(select.getTrueValue(), 0))
    return std::nullopt;
  return getConstantIntValue(select.getFalseValue());
}

/// The static strides of a memref operand, or nothing for a scalar. A dim
/// that broadcasts only when its size is 1 at run time counts with the
/// stride it has otherwise, so that a static unit stride is still seen as
/// one; the strategies check such strides when the kernel runs before
/// relying on them.
std::optional<SmallVector<int64_t>> getStaticStrides(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (!type)
    return std::nullopt;
  SmallVector<int64_t> strides = type.getStridesAndOffset().first;
  if (auto cast = value.getDefiningOp<memref::ReinterpretCastOp>())
    for (auto [stride, mixed] : llvm::zip(strides, cast.getMixedStrides()))
      if (auto dynamic = dyn_cast<Value>(mixed);
          dynamic && ShapedType::isDynamic(stride))
        stride = getStrideUnlessBroadcast(dynamic).value_or(stride);
  return strides;
}

static_assert(layout::kUnknownStride == ShapedType::kDynamic,
              "the layout library and MLIR mark unknown strides alike");

/// Static shared memory a kernel may use without opting in (48 KiB).
constexpr int64_t kStaticSharedMemoryBytes = 48 * 1024;

} // namespace

namespace pointwise::tiling {

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
  }
  layout::LayoutResult<layout::IndexWidth> width =
      layout::computeIndexWidth(iteration);
  return width && *width == layout::IndexWidth::Bits32 ? 32 : 64;
}

/// 32-bit index arithmetic is safe when the layout algebra says every
/// operand's reachable offsets fit; only static layouts can tell
/// (docs/Performance.md, row `index-bitwidth`).
unsigned chooseIndexBitwidth(MapOp map) {
  return decideIndexBitwidthStatically(map).value_or(64);
}

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
/// bytes of loads a thread has in flight: with two or more memref inputs
/// streaming, as many vectors per operand as make 16 bytes (one 16-byte
/// vector, two 8-byte ones); with one, two vectors. The general strategy
/// takes 4 steps (docs/Performance.md, row `linear-unroll`).
int64_t chooseUnroll(MapOp map, Strategy strategy, int64_t vectorBytes) {
  if (strategy != Strategy::Linear)
    return 4;
  constexpr int64_t kBytesInFlightPerOperand = 16;
  auto isMemRef = [](Value input) { return isa<MemRefType>(input.getType()); };
  if (llvm::count_if(map.getInputs(), isMemRef) < 2)
    return 2;
  return std::max<int64_t>(1, kBytesInFlightPerOperand / vectorBytes);
}

/// Whether some operand read along its rows (static last stride 1) has a
/// static offset or row stride off 16 bytes: the static side of the
/// dispatch's choice of the linear-narrow variants (`hasRowsOff16Bytes` in
/// lib/Runtime/FamilyDispatch.cpp), with the base pointer taken as aligned.
static bool hasStaticRowsOff16Bytes(MapOp map) {
  constexpr int64_t kWideVectorBytes = 16;
  auto isOff = [](int64_t elements, int64_t bytes) {
    return !ShapedType::isDynamic(elements) &&
           (elements * bytes) % kWideVectorBytes != 0;
  };
  for (Value operand : llvm::concat<Value>(map.getInputs(), map.getOutputs())) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || type.getRank() == 0)
      continue;
    auto [strides, offset] = type.getStridesAndOffset();
    if (strides.back() != 1)
      continue;
    int64_t bytes = getElementByteWidth(type.getElementType());
    if (isOff(offset, bytes) ||
        llvm::any_of(ArrayRef(strides).drop_back(),
                     [&](int64_t stride) { return isOff(stride, bytes); }))
      return true;
  }
  return false;
}

/// The linear strategy's shape for option values 0. Maps whose memref
/// operands all have 4-byte elements are faster with 8-byte vectors: at rank
/// 1 in blocks of 256 threads, at rank 2 and more (in blocks of 128) where
/// the static layout puts some operand's rows off 16 bytes, as the dispatch
/// picks the linear-narrow variants of a family. Other maps, with 2-byte or
/// mixed element sizes, keep 16-byte vectors in blocks of 128 threads, as
/// does the general strategy (docs/Performance.md, rows `linear-shape` and
/// `narrow-variants`).
LinearShape chooseLinearShape(MapOp map, Strategy strategy) {
  constexpr LinearShape kDefault{128, 16};
  if (strategy != Strategy::Linear)
    return kDefault;
  for (Value operand : llvm::concat<Value>(map.getInputs(), map.getOutputs()))
    if (auto type = dyn_cast<MemRefType>(operand.getType());
        type && getElementByteWidth(type.getElementType()) != 4)
      return kDefault;
  if (map.getIterationShape().size() == 1)
    return {256, 8};
  if (hasStaticRowsOff16Bytes(map))
    return {128, 8};
  return kDefault;
}

} // namespace pointwise::tiling
