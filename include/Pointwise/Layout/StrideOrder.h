//===- StrideOrder.h - Common memory order of iteration dims ----*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The order in which to walk the iteration dims so that consecutive
// iterations touch nearby memory in every operand, by the rule of PyTorch's
// TensorIterator::reorder_dimensions.
//
// Convention: the result `permutation` lists the original iteration dims
// from outermost (largest strides) to innermost (fastest varying, LAST):
// permuted dim k is original dim `permutation[k]`, so the row-major order of
// the permuted layout is memory order. This is the direction of
// `memref.transpose`'s permutation map, `AffineMap::getPermutationMap` and
// NumPy's `a.transpose(permutation)`.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LAYOUT_STRIDEORDER_H
#define POINTWISE_LAYOUT_STRIDEORDER_H

#include "Pointwise/Layout/LayoutResult.h"
#include "Pointwise/Layout/StridedLayout.h"

#include <vector>

namespace pointwise::layout {

/// Returns the memory order of the dims of `layout`, outermost first.
///
/// Two dims a and b are compared operand by operand in operand order (outputs
/// come first, so they win). An operand with a zero stride for either dim is
/// skipped: it neither votes nor vetoes. The first operand whose strides for a
/// and b differ in magnitude decides: the larger |stride| is outer, so a
/// flipped (negative-stride) dim sorts like its unflipped twin. An operand
/// with equal non-zero |strides| decides by size when the sizes differ (the
/// larger dim is outer). Dims of size 1 are never accessed along, so their
/// strides carry no information and they compare as undecided. Undecided
/// pairs keep their original relative order.
///
/// The comparison need not be transitive (operands can disagree), so the
/// order is built by a stable insertion sort that lets a dim move past
/// undecided dims: deterministic for any input, and exactly the first
/// output's order when that output has distinct non-zero strides on its dims
/// of size > 1. O(rank^2 * operands).
LayoutResult<std::vector<unsigned>>
computeStrideOrder(const IterationLayout &layout);

/// Checks that `permutation` lists each of the dims 0 .. rank-1 exactly once.
LayoutResult<void> verifyPermutation(const std::vector<unsigned> &permutation,
                                     unsigned rank);

} // namespace pointwise::layout

#endif // POINTWISE_LAYOUT_STRIDEORDER_H
