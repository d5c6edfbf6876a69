//===- Broadcast.h - NumPy broadcasting of shapes and strides ---*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// NumPy broadcasting: shapes are right-aligned, missing leading dims count as
// size 1, and in every aligned position the sizes are equal or 1 (size 1
// stretches to the other size, including 0). An operand viewed in the
// broadcast iteration space gets stride 0 wherever it stretches.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LAYOUT_BROADCAST_H
#define POINTWISE_LAYOUT_BROADCAST_H

#include "Pointwise/Layout/LayoutResult.h"
#include "Pointwise/Layout/StridedLayout.h"

#include <cstdint>
#include <vector>

namespace pointwise::layout {

/// Returns the NumPy broadcast of `shapes`, whose rank is the largest rank.
/// Fails on a negative size or on two sizes that are different and not 1,
/// naming both sides, e.g.
/// `operand #1 dim 0 (size 3) does not broadcast with size 4 of operand #0
/// dim 1` (dims are each operand's own, counted from its first dim).
LayoutResult<std::vector<int64_t>>
broadcastShapes(const std::vector<std::vector<int64_t>> &shapes);

/// Returns the strides of `operand` in the iteration space `iterationShape`:
/// its own strides right-aligned, 0 for missing leading dims, and 0 for its
/// size-1 dims where the iteration size is not 1. `operandIndex` names the
/// operand in messages.
LayoutResult<std::vector<int64_t>>
broadcastStrides(const StridedLayout &operand,
                 const std::vector<int64_t> &iterationShape,
                 unsigned operandIndex);

/// Views every operand in the iteration space `iterationShape`. The first
/// `numOutputs` operands are outputs and must have exactly that shape (an
/// output is written, never broadcast); the inputs broadcast to it.
LayoutResult<IterationLayout>
broadcastToIterationSpace(const std::vector<int64_t> &iterationShape,
                          const std::vector<StridedLayout> &operands,
                          unsigned numOutputs);

} // namespace pointwise::layout

#endif // POINTWISE_LAYOUT_BROADCAST_H
