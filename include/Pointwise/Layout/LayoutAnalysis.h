//===- LayoutAnalysis.h - One-call layout analysis --------------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The one entry point the compiler passes and the runtime's per-launch
// dispatch share: broadcast the operands into the iteration space, find
// their common memory order, coalesce. The coalesced rank selects the
// compiled kernel variant.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LAYOUT_LAYOUTANALYSIS_H
#define POINTWISE_LAYOUT_LAYOUTANALYSIS_H

#include "Pointwise/Layout/Coalesce.h"
#include "Pointwise/Layout/LayoutResult.h"
#include "Pointwise/Layout/StridedLayout.h"

#include <cstdint>
#include <vector>

namespace pointwise::layout {

/// broadcastToIterationSpace, then computeStrideOrder, then
/// coalesceDimensions. The first `numOutputs` operands are the outputs; they
/// must have exactly `iterationShape` and they decide the order first.
///
/// O(rank^2 * operands) time (the order; everything else is linear) and nine
/// heap allocations whatever the tensor sizes: about 0.3-0.4 us per call on a
/// server CPU for ranks 3-6 with 3-5 operands.
LayoutResult<CoalescedLayout>
analyzeLayout(const std::vector<int64_t> &iterationShape,
              const std::vector<StridedLayout> &operands, unsigned numOutputs);

/// The intermediate results of analyzeLayoutInto: the operands broadcast to
/// the iteration space, and their memory order.
struct LayoutAnalysisScratch {
  IterationLayout broadcast;
  std::vector<unsigned> order;
};

/// analyzeLayout writing its result into `result` (whose contents are
/// replaced) and its intermediate steps into `scratch`: the same result or
/// error, but the vectors of both keep their capacity from one call to the
/// next, so a caller that analyzes launch after launch (the runtime) makes no
/// heap allocation once they have grown, except for an error message. On
/// failure `result` is unspecified.
LayoutResult<void> analyzeLayoutInto(const std::vector<int64_t> &iterationShape,
                                     const std::vector<StridedLayout> &operands,
                                     unsigned numOutputs,
                                     CoalescedLayout &result,
                                     LayoutAnalysisScratch &scratch);

} // namespace pointwise::layout

#endif // POINTWISE_LAYOUT_LAYOUTANALYSIS_H
