//===- StrideOrder.cpp - Common memory order of iteration dims ------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/StrideOrder.h"

#include "CheckedArithmetic.h"
#include "LayoutInternals.h"

#include <algorithm>
#include <numeric>

using namespace pointwise::layout;

namespace {
enum class DimOrder { Undecided, FirstOuter, SecondOuter };
} // namespace

static DimOrder compareDims(const IterationLayout &layout, unsigned first,
                            unsigned second) {
  int64_t firstSize = layout.sizes[first];
  int64_t secondSize = layout.sizes[second];
  if (firstSize == 1 || secondSize == 1)
    return DimOrder::Undecided;
  for (unsigned op = 0; op < layout.numOperands(); ++op) {
    uint64_t firstStride = detail::magnitude(layout.stride(op, first));
    uint64_t secondStride = detail::magnitude(layout.stride(op, second));
    if (firstStride == 0 || secondStride == 0)
      continue;
    if (firstStride != secondStride)
      return firstStride > secondStride ? DimOrder::FirstOuter
                                        : DimOrder::SecondOuter;
    if (firstSize != secondSize)
      return firstSize > secondSize ? DimOrder::FirstOuter
                                    : DimOrder::SecondOuter;
  }
  return DimOrder::Undecided;
}

LayoutResult<std::vector<unsigned>>
pointwise::layout::computeStrideOrder(const IterationLayout &layout) {
  LayoutResult<void> valid = verifyIterationLayout(layout);
  if (!valid)
    return LayoutError{valid.error()};
  std::vector<unsigned> permutation;
  detail::computeStrideOrderInto(layout, permutation);
  return permutation;
}

void pointwise::layout::detail::computeStrideOrderInto(
    const IterationLayout &layout, std::vector<unsigned> &permutation) {
  permutation.resize(layout.rank());
  std::iota(permutation.begin(), permutation.end(), 0u);
  for (unsigned i = 1; i < permutation.size(); ++i) {
    unsigned dim = permutation[i];
    // Scan back past dims that `dim` must precede or that are undecided, and
    // stop at the first dim that must stay outer; `dim` goes just before the
    // outermost dim it must precede. Everything it passes keeps its order.
    unsigned target = i;
    for (unsigned j = i; j-- > 0;) {
      DimOrder order = compareDims(layout, permutation[j], dim);
      if (order == DimOrder::FirstOuter)
        break;
      if (order == DimOrder::SecondOuter)
        target = j;
    }
    std::rotate(permutation.begin() + target, permutation.begin() + i,
                permutation.begin() + i + 1);
  }
}

LayoutResult<void>
pointwise::layout::verifyPermutation(const std::vector<unsigned> &permutation,
                                     unsigned rank) {
  bool valid = permutation.size() == rank;
  // A bit mask would cap the rank; a quadratic scan over a handful of dims
  // costs less than a temporary vector.
  for (unsigned i = 0; valid && i < rank; ++i)
    for (unsigned j = 0; valid && j <= i; ++j)
      valid =
          permutation[i] < rank && (j == i || permutation[j] != permutation[i]);
  if (valid)
    return {};
  std::string text = "[";
  for (size_t i = 0; i < permutation.size(); ++i)
    text += (i ? ", " : "") + std::to_string(permutation[i]);
  return LayoutError{"permutation " + text + "] is not a permutation of " +
                     std::to_string(rank) + " dims"};
}
