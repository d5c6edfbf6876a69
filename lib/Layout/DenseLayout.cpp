//===- DenseLayout.cpp - Strides for outputs to allocate ------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/DenseLayout.h"

#include "Pointwise/Layout/StrideOrder.h"

#include "CheckedArithmetic.h"

#include <algorithm>
#include <numeric>

using namespace pointwise::layout;

LayoutResult<std::vector<int64_t>> pointwise::layout::computeDenseStrides(
    const std::vector<int64_t> &sizes,
    const std::vector<unsigned> &permutation) {
  unsigned rank = static_cast<unsigned>(sizes.size());
  LayoutResult<void> valid = verifyPermutation(permutation, rank);
  if (!valid)
    return LayoutError{valid.error()};
  for (unsigned d = 0; d < rank; ++d)
    if (sizes[d] < 0)
      return LayoutError{"dim " + std::to_string(d) + " has negative size " +
                         std::to_string(sizes[d])};

  std::vector<int64_t> strides(rank);
  int64_t inner = 1;
  for (unsigned pos = rank; pos-- > 0;) {
    unsigned dim = permutation[pos];
    strides[dim] = inner;
    std::optional<int64_t> next =
        detail::checkedMul(inner, std::max<int64_t>(sizes[dim], 1));
    if (!next)
      return LayoutError{"dense strides of " + formatShape(sizes) +
                         " overflow int64"};
    inner = *next;
  }
  return strides;
}

/// Whether `input` is viewed in the iteration space without broadcasting.
static bool isUnbroadcast(const StridedLayout &input,
                          const std::vector<int64_t> &iterationShape) {
  if (input.sizes != iterationShape)
    return false;
  for (unsigned d = 0; d < input.rank(); ++d)
    if (input.sizes[d] > 1 && input.strides[d] == 0)
      return false;
  return true;
}

LayoutResult<std::vector<int64_t>> pointwise::layout::computeOutputStrides(
    const std::vector<int64_t> &iterationShape,
    const std::vector<StridedLayout> &inputs) {
  for (unsigned i = 0; i < inputs.size(); ++i) {
    LayoutResult<void> valid = verifyStridedLayout(inputs[i], i);
    if (!valid)
      return LayoutError{valid.error()};
  }
  for (const StridedLayout &input : inputs) {
    if (!isUnbroadcast(input, iterationShape))
      continue;
    IterationLayout reference{input.sizes, input.strides, {input.offset}};
    LayoutResult<std::vector<unsigned>> order = computeStrideOrder(reference);
    if (!order)
      return LayoutError{order.error()};
    return computeDenseStrides(iterationShape, *order);
  }
  std::vector<unsigned> rowMajor(iterationShape.size());
  std::iota(rowMajor.begin(), rowMajor.end(), 0u);
  return computeDenseStrides(iterationShape, rowMajor);
}
