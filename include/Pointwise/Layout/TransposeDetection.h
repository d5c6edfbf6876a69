//===- TransposeDetection.h - When shared-memory tiles pay ----*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The rule that picks pw-tile's transpose strategy, shared by the pass (on
// static strides, some possibly unknown) and the runtime's dispatch (on the
// actual coalesced strides): the outputs are contiguous along the last dim,
// and an input is contiguous along another dim. Walking the outputs in order
// then reads that input with a stride, unless a tile staged in shared memory
// turns the access around.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LAYOUT_TRANSPOSEDETECTION_H
#define POINTWISE_LAYOUT_TRANSPOSEDETECTION_H

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace pointwise::layout {

/// A stride not known (at compile time). Equal to MLIR's ShapedType::kDynamic.
constexpr int64_t kUnknownStride = std::numeric_limits<int64_t>::min();

/// The input whose tile goes through shared memory, and the dim along which
/// it is contiguous.
struct TransposedInput {
  unsigned operand;
  unsigned dim;
};

/// `strides[i]` are operand i's strides (outputs first, `numOutputs` of
/// them), `rank` entries each, or empty for a scalar operand. Returns the
/// first input with a known stride 1 along a dim other than the last, whose
/// last stride is neither 1 nor 0, when every output has a known stride 1
/// along the last dim and the rank is at least 2; nothing otherwise.
std::optional<TransposedInput>
findTransposedInput(const std::vector<std::vector<int64_t>> &strides,
                    unsigned numOutputs, unsigned rank);

} // namespace pointwise::layout

#endif // POINTWISE_LAYOUT_TRANSPOSEDETECTION_H
