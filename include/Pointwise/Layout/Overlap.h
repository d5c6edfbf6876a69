//===- Overlap.h - Output overlap checks ------------------------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// A pointwise kernel writes every output element once, from many threads, in
// no particular order. That is only well defined when
//
//   * no non-empty output overlaps itself: no dim of size > 1 has stride 0,
//     and the strides of the dims of size > 1 nest (sorted by magnitude, each
//     exceeds the largest offset the smaller ones reach), or else, for
//     outputs of at most 65536 elements, no two elements share an offset
//     when listed one by one (sizes [3, 2] with strides [2, 3] pass, [2, 3]
//     with [1, 1] fail). Larger outputs whose strides do not nest are
//     rejected: they may overlap and are too large to check;
//   * no output overlaps another output;
//   * no output partially overlaps an input. Exact aliasing is allowed: an
//     input that is the same view of the same memory as an output (same
//     address of its first element, same element size, same size and stride
//     on every dim of size > 1) makes the op in-place, since each element is
//     read before it is written by the same thread.
//
// Overlap between two views is decided on memory ranges [lowest byte,
// highest byte + element size) and, where those intersect, by residues:
// every distance between their elements is congruent to the distance
// between their first elements modulo the gcd of all their byte strides,
// so views whose elements stay apart modulo that gcd share no byte
// (a[::2] and a[1::4], f16 halves of f32 words). Views that are translates
// of each other (one element size, the same sizes and strides: a[::2] and
// a[1::2], two columns of a matrix) are then decided exactly: they share
// an element only if their distance is a combination of their strides
// that stays within their sizes. Other views whose ranges intersect are
// reported as overlapping, conservatively (docs/Layout.md).
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

/// Fails when the non-empty `output` overlaps itself or may (see above).
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
