//===- Overlap.h - Output overlap checks ------------------------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// A pointwise kernel writes every output element once, from many threads, in
// no particular order. That is only well defined when
//
//   * no non-empty output overlaps itself. The rule checked is that no dim of
//     size > 1 has stride 0; rarer self-overlapping strides (a 2x2 output
//     with strides [1, 1]) are not detected;
//   * no output overlaps another output;
//   * no output partially overlaps an input. Exact aliasing is allowed: an
//     input that is the same view of the same memory as an output (same
//     address of its first element, same element size, same size and stride
//     on every dim of size > 1) makes the op in-place, since each element is
//     read before it is written by the same thread.
//
// Like PyTorch's get_overlap_status, overlap between two views is decided
// conservatively on memory ranges [lowest byte, highest byte + element size):
// views that interleave without sharing an element (a[::2] and a[1::2]) are
// reported as overlapping.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LAYOUT_OVERLAP_H
#define POINTWISE_LAYOUT_OVERLAP_H

#include "Pointwise/Layout/LayoutResult.h"
#include "Pointwise/Layout/StridedLayout.h"

#include <cstdint>
#include <vector>

namespace pointwise::layout {

/// Where an operand's elements live: element offset `o` of its layout is at
/// byte address `baseAddress + o * elementByteSize`.
struct OperandBuffer {
  uint64_t baseAddress = 0;
  int64_t elementByteSize = 0;
};

/// Fails when the non-empty `output` has a dim of size > 1 and stride 0.
/// Needs no addresses, so the verifier checks static memref types with it.
/// `operandIndex` names the output in the message.
LayoutResult<void> checkNoInternalOverlap(const StridedLayout &output,
                                          unsigned operandIndex);

/// All output checks of a launch: internal overlap of every output, any
/// overlap between two outputs, and partial overlap of an output with an
/// input. `operands` are in their own (unbroadcast) shapes, outputs first;
/// `buffers` has one entry per operand. O(operands^2 + operands * rank).
LayoutResult<void>
checkOutputOverlap(const std::vector<StridedLayout> &operands,
                   const std::vector<OperandBuffer> &buffers,
                   unsigned numOutputs);

} // namespace pointwise::layout

#endif // POINTWISE_LAYOUT_OVERLAP_H
