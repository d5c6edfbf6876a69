//===- Broadcast.cpp - NumPy broadcasting of shapes and strides -----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/Broadcast.h"

#include "LayoutInternals.h"

#include <algorithm>

using namespace pointwise::layout;

static std::string describeDim(unsigned operandIndex, size_t dim) {
  return "operand #" + std::to_string(operandIndex) + " dim " +
         std::to_string(dim);
}

LayoutResult<std::vector<int64_t>> pointwise::layout::broadcastShapes(
    const std::vector<std::vector<int64_t>> &shapes) {
  size_t rank = 0;
  for (unsigned i = 0; i < shapes.size(); ++i) {
    for (size_t d = 0; d < shapes[i].size(); ++d)
      if (shapes[i][d] < 0)
        return LayoutError{describeDim(i, d) + " has negative size " +
                           std::to_string(shapes[i][d])};
    rank = std::max(rank, shapes[i].size());
  }

  std::vector<int64_t> result(rank, 1);
  for (unsigned i = 0; i < shapes.size(); ++i) {
    size_t lead = rank - shapes[i].size();
    for (size_t d = 0; d < shapes[i].size(); ++d) {
      int64_t size = shapes[i][d];
      int64_t &target = result[lead + d];
      if (size == target || size == 1)
        continue;
      if (target == 1) {
        target = size;
        continue;
      }
      // Conflicts are rare, so the operand that set `target` is searched for
      // here instead of being tracked for every dim.
      for (unsigned j = 0; j < i; ++j) {
        size_t otherLead = rank - shapes[j].size();
        if (lead + d < otherLead || shapes[j][lead + d - otherLead] != target)
          continue;
        return LayoutError{
            describeDim(i, d) + " (size " + std::to_string(size) +
            ") does not broadcast with size " + std::to_string(target) +
            " of " + describeDim(j, lead + d - otherLead)};
      }
    }
  }
  return result;
}

/// Appends the strides of `operand` in the iteration space to `strides`, so
/// that broadcastToIterationSpace fills its flat stride vector without a
/// temporary per operand.
static LayoutResult<void>
appendBroadcastStrides(const StridedLayout &operand,
                       const std::vector<int64_t> &iterationShape,
                       unsigned operandIndex, std::vector<int64_t> &strides) {
  LayoutResult<void> valid = verifyStridedLayout(operand, operandIndex);
  if (!valid)
    return valid;
  size_t rank = iterationShape.size();
  if (operand.rank() > rank)
    return LayoutError{"operand #" + std::to_string(operandIndex) +
                       " has rank " + std::to_string(operand.rank()) +
                       ", larger than the iteration rank " +
                       std::to_string(rank)};

  size_t lead = rank - operand.rank();
  strides.insert(strides.end(), lead, 0);
  for (unsigned d = 0; d < operand.rank(); ++d) {
    int64_t size = operand.sizes[d];
    int64_t target = iterationShape[lead + d];
    if (size == target)
      strides.push_back(operand.strides[d]);
    else if (size == 1)
      strides.push_back(0);
    else
      return LayoutError{
          describeDim(operandIndex, d) + " (size " + std::to_string(size) +
          ") does not broadcast to size " + std::to_string(target) +
          " of iteration dim " + std::to_string(lead + d)};
  }
  return {};
}

LayoutResult<std::vector<int64_t>>
pointwise::layout::broadcastStrides(const StridedLayout &operand,
                                    const std::vector<int64_t> &iterationShape,
                                    unsigned operandIndex) {
  std::vector<int64_t> strides;
  strides.reserve(iterationShape.size());
  LayoutResult<void> appended =
      appendBroadcastStrides(operand, iterationShape, operandIndex, strides);
  if (!appended)
    return LayoutError{appended.error()};
  return strides;
}

LayoutResult<void> pointwise::layout::detail::broadcastToIterationSpaceInto(
    const std::vector<int64_t> &iterationShape,
    const std::vector<StridedLayout> &operands, unsigned numOutputs,
    IterationLayout &layout) {
  if (numOutputs > operands.size())
    return LayoutError{std::to_string(numOutputs) + " outputs among only " +
                       std::to_string(operands.size()) + " operands"};
  LayoutResult<void> validShape = verifyIterationShape(iterationShape);
  if (!validShape)
    return validShape;

  layout.sizes = iterationShape;
  layout.strides.clear();
  layout.strides.reserve(iterationShape.size() * operands.size());
  layout.offsets.clear();
  layout.offsets.reserve(operands.size());
  for (unsigned i = 0; i < operands.size(); ++i) {
    const StridedLayout &operand = operands[i];
    if (i < numOutputs) {
      LayoutResult<void> valid = verifyStridedLayout(operand, i);
      if (!valid)
        return valid;
      if (operand.sizes != iterationShape)
        return LayoutError{"output operand #" + std::to_string(i) +
                           " has shape " + formatShape(operand.sizes) +
                           " but the iteration shape is " +
                           formatShape(iterationShape)};
      layout.strides.insert(layout.strides.end(), operand.strides.begin(),
                            operand.strides.end());
    } else {
      LayoutResult<void> appended =
          appendBroadcastStrides(operand, iterationShape, i, layout.strides);
      if (!appended)
        return appended;
    }
    layout.offsets.push_back(operand.offset);
  }
  return {};
}

LayoutResult<IterationLayout> pointwise::layout::broadcastToIterationSpace(
    const std::vector<int64_t> &iterationShape,
    const std::vector<StridedLayout> &operands, unsigned numOutputs) {
  IterationLayout layout;
  LayoutResult<void> broadcast = detail::broadcastToIterationSpaceInto(
      iterationShape, operands, numOutputs, layout);
  if (!broadcast)
    return LayoutError{broadcast.error()};
  return layout;
}
