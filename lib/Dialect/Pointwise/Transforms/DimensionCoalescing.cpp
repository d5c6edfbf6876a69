//===- DimensionCoalescing.cpp - pw-coalesce-dims -------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites a pointwise.map with a static layout into the equivalent map of
// lowest rank, using the layout algebra shared with the runtime.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"
#include "Pointwise/Layout/LayoutAnalysis.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace pointwise {
#define GEN_PASS_DEF_COALESCEDIMSPASS
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

/// The static layout of `type`, or nothing when a size or stride is dynamic.
/// A dynamic offset is fine: coalescing never changes offsets.
std::optional<layout::StridedLayout> getStaticLayout(MemRefType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  auto [strides, offset] = type.getStridesAndOffset();
  if (llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  layout::StridedLayout result;
  result.sizes.assign(type.getShape().begin(), type.getShape().end());
  result.strides.assign(strides.begin(), strides.end());
  result.offset = ShapedType::isDynamic(offset) ? 0 : offset;
  return result;
}

/// The type operand `index` of `coalesced` has: its coalesced sizes and
/// strides, the original element type, offset and memory space.
MemRefType getCoalescedType(MemRefType original,
                            const layout::CoalescedLayout &coalesced,
                            unsigned index) {
  auto [strides, offset] = original.getStridesAndOffset();
  auto layoutAttr = StridedLayoutAttr::get(
      original.getContext(), offset, coalesced.layout.operandStrides(index));
  return MemRefType::get(coalesced.layout.sizes, original.getElementType(),
                         layoutAttr, original.getMemorySpace());
}

/// Whether two memref types address the same elements: equal shapes,
/// strides and offsets, whatever the spelling of the layout.
bool hasSameLayout(MemRefType a, MemRefType b) {
  return a.getShape() == b.getShape() &&
         a.getStridesAndOffset() == b.getStridesAndOffset();
}

struct CoalesceDimsPass
    : public pointwise::impl::CoalesceDimsPassBase<CoalesceDimsPass> {
  void runOnOperation() override {
    SmallVector<MapOp> maps;
    // Tensor maps have no layouts until they are bufferized.
    getOperation()->walk([&](MapOp map) {
      if (map.hasPureBufferSemantics())
        maps.push_back(map);
    });
    IRRewriter rewriter(&getContext());
    for (MapOp map : maps)
      if (failed(coalesce(rewriter, map)))
        return signalPassFailure();
  }

  LogicalResult coalesce(IRRewriter &rewriter, MapOp map) {
    SmallVector<OpOperand *> operands = map.getMemRefOperandsOutputsFirst();
    std::vector<layout::StridedLayout> layouts;
    for (OpOperand *operand : operands) {
      auto type = cast<MemRefType>(operand->get().getType());
      // A negative static offset (legal in a type, pointing before the
      // aligned pointer) has no memref.reinterpret_cast that keeps it: the
      // map stays as it is.
      if (int64_t offset = type.getStridesAndOffset().second;
          !ShapedType::isDynamic(offset) && offset < 0)
        return success();
      std::optional<layout::StridedLayout> staticLayout = getStaticLayout(type);
      if (!staticLayout)
        return success(); // Dynamic: coalesced at run time.
      layouts.push_back(std::move(*staticLayout));
    }

    SmallVector<int64_t> shape = map.getIterationShape();
    layout::LayoutResult<layout::CoalescedLayout> coalesced =
        layout::analyzeLayout({shape.begin(), shape.end()}, layouts,
                              map.getNumOutputs());
    if (!coalesced)
      return map.emitOpError() << "cannot coalesce: " << coalesced.error();

    SmallVector<MemRefType> newTypes;
    for (auto [index, operand] : llvm::enumerate(operands))
      newTypes.push_back(getCoalescedType(
          cast<MemRefType>(operand->get().getType()), *coalesced, index));
    if (llvm::all_of(llvm::zip(operands, newTypes), [](auto operandAndType) {
          auto [operand, type] = operandAndType;
          return hasSameLayout(cast<MemRefType>(operand->get().getType()),
                               type);
        }))
      return success();

    rewriter.setInsertionPoint(map);
    for (auto [operand, type] : llvm::zip(operands, newTypes)) {
      Value source = operand->get();
      if (hasSameLayout(cast<MemRefType>(source.getType()), type))
        continue;
      OpFoldResult offset;
      auto [strides, staticOffset] =
          cast<MemRefType>(source.getType()).getStridesAndOffset();
      if (ShapedType::isDynamic(staticOffset))
        offset = memref::ExtractStridedMetadataOp::create(rewriter,
                                                          map.getLoc(), source)
                     .getOffset();
      else
        offset = rewriter.getIndexAttr(staticOffset);
      SmallVector<OpFoldResult> sizes, newStrides;
      for (int64_t size : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
      for (int64_t stride : type.getStridesAndOffset().first)
        newStrides.push_back(rewriter.getIndexAttr(stride));
      Value coalescedOperand = memref::ReinterpretCastOp::create(
          rewriter, map.getLoc(), type, source, offset, sizes, newStrides);
      OpOperand *use = operand;
      rewriter.modifyOpInPlace(map, [&] { use->set(coalescedOperand); });
    }
    return success();
  }
};

} // namespace
