//===- Coalesce.cpp - Dimension coalescing --------------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/Coalesce.h"

#include "Pointwise/Layout/StrideOrder.h"

#include "CheckedArithmetic.h"
#include "LayoutInternals.h"

using namespace pointwise::layout;

/// Whether the outer dim `outer` and the inner dim `inner` are walked as one
/// dim by every operand. A product that overflows cannot equal a stride.
static bool canMerge(const IterationLayout &layout, unsigned outer,
                     unsigned inner) {
  for (unsigned op = 0; op < layout.numOperands(); ++op) {
    std::optional<int64_t> span =
        detail::checkedMul(layout.sizes[inner], layout.stride(op, inner));
    if (!span || *span != layout.stride(op, outer))
      return false;
  }
  return true;
}

LayoutResult<CoalescedLayout> pointwise::layout::coalesceDimensions(
    const IterationLayout &layout, const std::vector<unsigned> &permutation) {
  LayoutResult<void> valid = verifyIterationLayout(layout);
  if (!valid)
    return LayoutError{valid.error()};
  valid = verifyPermutation(permutation, layout.rank());
  if (!valid)
    return LayoutError{valid.error()};
  CoalescedLayout result;
  detail::coalesceDimensionsInto(layout, permutation, result);
  return result;
}

void pointwise::layout::detail::coalesceDimensionsInto(
    const IterationLayout &layout, const std::vector<unsigned> &permutation,
    CoalescedLayout &result) {
  unsigned rank = layout.rank();
  unsigned numOperands = layout.numOperands();
  result.permutation = permutation;
  result.layout.offsets = layout.offsets;

  if (*detail::countElements(layout.sizes) == 0) {
    result.layout.sizes.assign(1, 0);
    result.layout.strides.assign(numOperands, 1);
    result.groupEnds.assign(1, rank);
    return;
  }

  // First pass: the group sizes, and in groupEnds one past the position of
  // each group's innermost non-unit dim, which supplies the group's strides.
  result.layout.sizes.clear();
  result.layout.sizes.reserve(rank);
  result.groupEnds.clear();
  result.groupEnds.reserve(rank);
  for (unsigned pos = 0; pos < rank; ++pos) {
    unsigned dim = permutation[pos];
    if (layout.sizes[dim] == 1)
      continue;
    if (!result.groupEnds.empty() &&
        canMerge(layout, permutation[result.groupEnds.back() - 1], dim)) {
      // The element count fits in int64, so no partial product overflows.
      result.layout.sizes.back() *= layout.sizes[dim];
      result.groupEnds.back() = pos + 1;
      continue;
    }
    result.layout.sizes.push_back(layout.sizes[dim]);
    result.groupEnds.push_back(pos + 1);
  }

  unsigned newRank = result.layout.rank();
  result.layout.strides.resize(static_cast<size_t>(numOperands) * newRank);
  for (unsigned op = 0; op < numOperands; ++op)
    for (unsigned j = 0; j < newRank; ++j)
      result.layout.strides[static_cast<size_t>(op) * newRank + j] =
          layout.stride(op, permutation[result.groupEnds[j] - 1]);
  // Trailing size-1 dims join the last group so that the groups cover every
  // position.
  if (newRank > 0)
    result.groupEnds.back() = rank;
}
