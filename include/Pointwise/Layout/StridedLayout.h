//===- StridedLayout.h - Strided operands and iteration spaces --*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The two value types the layout algebra works on. A StridedLayout is one
// operand as the user passed it (its own rank and shape); an IterationLayout
// is every operand of a pointwise op viewed in the op's common iteration
// space, which is what stride ordering, coalescing and index-width analysis
// consume. All strides and offsets count elements, not bytes.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LAYOUT_STRIDEDLAYOUT_H
#define POINTWISE_LAYOUT_STRIDEDLAYOUT_H

#include "Pointwise/Layout/LayoutResult.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pointwise::layout {

/// One operand: element (i_0, ..., i_{r-1}) lives at
/// `offset + sum_d i_d * strides[d]` elements from the operand's base pointer.
/// Strides may be 0 (broadcast) or negative (flipped dims).
struct StridedLayout {
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;

  unsigned rank() const { return static_cast<unsigned>(sizes.size()); }
};

/// Several operands viewed in one iteration space of rank `rank()`: every
/// operand has one stride per iteration dim (0 where it broadcasts) and its
/// own offset. By convention the first `numOutputs` operands, where a function
/// takes that count, are the outputs.
struct IterationLayout {
  std::vector<int64_t> sizes;
  /// Operand-major: the strides of operand `i` are
  /// `strides[i * rank()]` .. `strides[(i + 1) * rank() - 1]`. One flat vector
  /// keeps the per-launch analysis at a constant number of allocations.
  std::vector<int64_t> strides;
  std::vector<int64_t> offsets;

  unsigned rank() const { return static_cast<unsigned>(sizes.size()); }
  unsigned numOperands() const { return static_cast<unsigned>(offsets.size()); }
  int64_t stride(unsigned operand, unsigned dim) const {
    return strides[static_cast<size_t>(operand) * sizes.size() + dim];
  }
  /// A copy of one operand's strides, for callers that build per-operand
  /// descriptors (memref types, kernel arguments).
  std::vector<int64_t> operandStrides(unsigned operand) const;
  /// One operand as a StridedLayout of the iteration shape.
  StridedLayout operandLayout(unsigned operand) const;
};

/// Checks that `layout` has one stride per size, no negative size, and an
/// element count that fits in int64. Messages name it `operand #<index>`.
LayoutResult<void> verifyStridedLayout(const StridedLayout &layout,
                                       unsigned operandIndex);

/// Checks that the iteration shape `sizes` has no negative size and an
/// element count that fits in int64.
LayoutResult<void> verifyIterationShape(const std::vector<int64_t> &sizes);

/// Checks that `layout` has rank * numOperands strides and a valid iteration
/// shape.
LayoutResult<void> verifyIterationLayout(const IterationLayout &layout);

/// Formats a shape or stride list as `[2, 3, 4]` for diagnostics.
std::string formatShape(const std::vector<int64_t> &shape);

} // namespace pointwise::layout

#endif // POINTWISE_LAYOUT_STRIDEDLAYOUT_H
