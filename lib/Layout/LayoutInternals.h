//===- LayoutInternals.h - Analysis steps into given storage ----*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The steps of analyzeLayout writing into storage the caller owns, so that
// analyzeLayoutInto reuses its vectors' capacity from one launch to the next.
// The public functions are these plus their input checks; the analysis skips
// the checks of the later steps because the earlier ones establish them.
// Internal to lib/Layout.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_LAYOUT_LAYOUTINTERNALS_H
#define POINTWISE_LIB_LAYOUT_LAYOUTINTERNALS_H

#include "Pointwise/Layout/Coalesce.h"
#include "Pointwise/Layout/LayoutResult.h"
#include "Pointwise/Layout/StridedLayout.h"

#include <vector>

namespace pointwise::layout::detail {

/// broadcastToIterationSpace into `layout`, whose contents are replaced. On
/// failure `layout` is unspecified.
LayoutResult<void>
broadcastToIterationSpaceInto(const std::vector<int64_t> &iterationShape,
                              const std::vector<StridedLayout> &operands,
                              unsigned numOutputs, IterationLayout &layout);

/// computeStrideOrder into `permutation` for a `layout` that passes
/// verifyIterationLayout.
void computeStrideOrderInto(const IterationLayout &layout,
                            std::vector<unsigned> &permutation);

/// coalesceDimensions into `result`, whose contents are replaced, for a
/// `layout` that passes verifyIterationLayout and a valid `permutation` of
/// its dims.
void coalesceDimensionsInto(const IterationLayout &layout,
                            const std::vector<unsigned> &permutation,
                            CoalescedLayout &result);

} // namespace pointwise::layout::detail

#endif // POINTWISE_LIB_LAYOUT_LAYOUTINTERNALS_H
