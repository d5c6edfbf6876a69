//===- LayoutQueries.cpp - The layout library's rules for callers ---------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// pwPlanOutputLayout: what a front end (the Python package) needs before a
// launch whose outputs it allocates, from the same layout library that
// pwFamilyLaunch and the passes use: the broadcast of the inputs' shapes and
// dense strides for new outputs in the inputs' memory order.
//
//===----------------------------------------------------------------------===//

#include "ErrorState.h"
#include "Pointwise/Layout/Broadcast.h"
#include "Pointwise/Layout/DenseLayout.h"
#include "Pointwise/Runtime/Runtime.h"

#include <algorithm>

using namespace pointwise::layout;
using namespace pointwise::runtime;

pwStatus pwPlanOutputLayout(int32_t numInputs, const int32_t *ranks,
                            const int64_t *sizes, const int64_t *strides,
                            int32_t capacity, int32_t *rank, int64_t *shape,
                            int64_t *outputStrides) {
  if (numInputs < 0 || capacity < 0)
    return recordError(PW_ERROR_INVALID_VALUE,
                       "pwPlanOutputLayout: negative count");
  if (!rank || (capacity > 0 && (!shape || !outputStrides)) ||
      (numInputs > 0 && !ranks))
    return recordNullArgument("pwPlanOutputLayout", "an array argument");
  std::vector<StridedLayout> inputs(numInputs);
  std::vector<std::vector<int64_t>> shapes(numInputs);
  size_t next = 0;
  for (int32_t i = 0; i < numInputs; ++i) {
    if (ranks[i] < 0)
      return recordError(PW_ERROR_INVALID_VALUE, "pwPlanOutputLayout: input " +
                                                     std::to_string(i) +
                                                     " has a negative rank");
    if (ranks[i] > 0 && (!sizes || !strides))
      return recordNullArgument("pwPlanOutputLayout", "sizes or strides");
    inputs[i].sizes.assign(sizes + next, sizes + next + ranks[i]);
    inputs[i].strides.assign(strides + next, strides + next + ranks[i]);
    shapes[i] = inputs[i].sizes;
    next += ranks[i];
  }
  LayoutResult<std::vector<int64_t>> iteration = broadcastShapes(shapes);
  if (!iteration)
    return recordError(PW_ERROR_LAYOUT,
                       "the inputs' shapes do not broadcast: " +
                           iteration.error());
  if (iteration->size() > static_cast<size_t>(capacity))
    return recordError(PW_ERROR_INVALID_VALUE,
                       "pwPlanOutputLayout: the iteration rank " +
                           std::to_string(iteration->size()) +
                           " exceeds the capacity " + std::to_string(capacity));
  LayoutResult<std::vector<int64_t>> dense =
      computeOutputStrides(*iteration, inputs);
  if (!dense)
    return recordError(PW_ERROR_LAYOUT, dense.error());
  *rank = static_cast<int32_t>(iteration->size());
  std::copy(iteration->begin(), iteration->end(), shape);
  std::copy(dense->begin(), dense->end(), outputStrides);
  return PW_SUCCESS;
}
