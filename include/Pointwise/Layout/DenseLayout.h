//===- DenseLayout.h - Strides for outputs to allocate ----------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// When the caller lets the op allocate an output, the output gets a dense
// layout (no gaps, no overlap, offset 0, positive strides) in the memory
// order of the inputs, so that `a.T + b.T` produces a transposed result and
// the kernel walks every operand in the same order, like PyTorch's
// empty_like(preserve_format) and TensorIterator's output allocation.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LAYOUT_DENSELAYOUT_H
#define POINTWISE_LAYOUT_DENSELAYOUT_H

#include "Pointwise/Layout/LayoutResult.h"
#include "Pointwise/Layout/StridedLayout.h"

#include <cstdint>
#include <vector>

namespace pointwise::layout {

/// Strides (elements) of a dense tensor of shape `sizes` whose dims lie in
/// memory in the order `permutation` (outermost first, as computed by
/// computeStrideOrder): the innermost dim gets stride 1 and each other dim the
/// product of the sizes inside it. A size-0 dim counts as 1 in that product,
/// like PyTorch's contiguous strides, so strides stay distinct and non-zero.
LayoutResult<std::vector<int64_t>>
computeDenseStrides(const std::vector<int64_t> &sizes,
                    const std::vector<unsigned> &permutation);

/// Strides for a newly allocated output of `iterationShape`: dense, in the
/// stride order (computeStrideOrder) of the first input that is not
/// broadcast, i.e. has exactly `iterationShape` and no stride 0 on a dim of
/// size > 1; row-major when there is no such input. `inputs` are the inputs
/// only, in their own shapes.
LayoutResult<std::vector<int64_t>>
computeOutputStrides(const std::vector<int64_t> &iterationShape,
                     const std::vector<StridedLayout> &inputs);

} // namespace pointwise::layout

#endif // POINTWISE_LAYOUT_DENSELAYOUT_H
