//===- LayoutAnalysis.cpp - Broadcast, order and coalesce in one call -----===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/LayoutAnalysis.h"

#include "Pointwise/Layout/Broadcast.h"
#include "Pointwise/Layout/StrideOrder.h"

#include "LayoutInternals.h"

using namespace pointwise::layout;

LayoutResult<CoalescedLayout>
pointwise::layout::analyzeLayout(const std::vector<int64_t> &iterationShape,
                                 const std::vector<StridedLayout> &operands,
                                 unsigned numOutputs) {
  CoalescedLayout result;
  LayoutAnalysisScratch scratch;
  LayoutResult<void> analyzed =
      analyzeLayoutInto(iterationShape, operands, numOutputs, result, scratch);
  if (!analyzed)
    return LayoutError{analyzed.error()};
  return result;
}

LayoutResult<void> pointwise::layout::analyzeLayoutInto(
    const std::vector<int64_t> &iterationShape,
    const std::vector<StridedLayout> &operands, unsigned numOutputs,
    CoalescedLayout &result, LayoutAnalysisScratch &scratch) {
  LayoutResult<void> broadcast = detail::broadcastToIterationSpaceInto(
      iterationShape, operands, numOutputs, scratch.broadcast);
  if (!broadcast)
    return broadcast;
  // A broadcast layout passes verifyIterationLayout (its shape was verified
  // and every operand got one stride per dim), and the order is a
  // permutation, which is what computeStrideOrder and coalesceDimensions
  // would check.
  detail::computeStrideOrderInto(scratch.broadcast, scratch.order);
  detail::coalesceDimensionsInto(scratch.broadcast, scratch.order, result);
  return {};
}
