//===- Coalesce.h - Dimension coalescing ------------------------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Merges iteration dims that every operand walks as one: after permuting the
// dims into memory order and dropping dims of size 1, an outer dim i and the
// inner dim i+1 next to it merge when
//
//   sizes[i+1] * strides[i+1] == strides[i]   for EVERY operand.
//
// The rule covers negative strides (a fully flipped contiguous matrix merges
// to rank 1 with stride -1) and broadcasts (two stride-0 dims merge). The
// coalesced layout addresses exactly the same (output, inputs...) element
// offset tuples as the original, in a different iteration order.
//
// Canonical forms: a size-0 iteration space coalesces to sizes [0] with
// every stride 1 (nothing is accessed, and rank 1 keeps "no elements"
// representable); a rank-0 space, or one whose dims all have size 1, becomes
// rank 0 (one element). Offsets never change.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LAYOUT_COALESCE_H
#define POINTWISE_LAYOUT_COALESCE_H

#include "Pointwise/Layout/LayoutResult.h"
#include "Pointwise/Layout/StridedLayout.h"

#include <vector>

namespace pointwise::layout {

/// A coalesced iteration space and how it maps back to the original one.
struct CoalescedLayout {
  /// The coalesced sizes, every operand's strides in them, and the operands'
  /// offsets (unchanged).
  IterationLayout layout;
  /// The memory order the original dims were walked in, outermost first:
  /// position k holds original dim `permutation[k]` (see StrideOrder.h).
  std::vector<unsigned> permutation;
  /// Coalesced dim j covers the permutation positions
  /// [j == 0 ? 0 : groupEnds[j - 1], groupEnds[j]): its index is the
  /// row-major linearization of those original dims' indices, and its stride
  /// is the stride of the group's innermost non-unit dim. Size-1 dims belong
  /// to the group that follows them (trailing ones to the last group), so the
  /// groups cover every position unless the coalesced rank is 0, where
  /// groupEnds is empty. This is the reassociation of a `memref.transpose`
  /// by `permutation` followed by a `memref.collapse_shape`.
  std::vector<unsigned> groupEnds;

  unsigned rank() const { return layout.rank(); }
};

/// Coalesces `layout` walked in the order `permutation` (outermost first; see
/// computeStrideOrder). Merging is greedy from the outermost dim, which is
/// optimal for the given order because the merge relation chains. O(rank *
/// operands), five allocations.
LayoutResult<CoalescedLayout>
coalesceDimensions(const IterationLayout &layout,
                   const std::vector<unsigned> &permutation);

} // namespace pointwise::layout

#endif // POINTWISE_LAYOUT_COALESCE_H
