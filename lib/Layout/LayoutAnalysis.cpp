//===- LayoutAnalysis.cpp - Broadcast, order and coalesce in one call -----===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/LayoutAnalysis.h"

#include "Pointwise/Layout/Broadcast.h"
#include "Pointwise/Layout/StrideOrder.h"

using namespace pointwise::layout;

LayoutResult<CoalescedLayout>
pointwise::layout::analyzeLayout(const std::vector<int64_t> &iterationShape,
                                 const std::vector<StridedLayout> &operands,
                                 unsigned numOutputs) {
  LayoutResult<IterationLayout> broadcast =
      broadcastToIterationSpace(iterationShape, operands, numOutputs);
  if (!broadcast)
    return LayoutError{broadcast.error()};
  LayoutResult<std::vector<unsigned>> order = computeStrideOrder(*broadcast);
  if (!order)
    return LayoutError{order.error()};
  return coalesceDimensions(*broadcast, *order);
}
