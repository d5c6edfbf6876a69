//===- IndexWidth.h - 32-bit indexability and splitting ---------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Kernels come in 32-bit and 64-bit index variants; the 32-bit one is faster
// and is safe when no index it computes can overflow int32. Like PyTorch's
// can_use_32bit_indexing / with_32bit_indexing, this file decides that and,
// when the answer is no, splits the iteration space into chunks that are
// each 32-bit safe.
//
// The kernels compute element offsets in the index type and widen them to
// the pointer's 64 bits before scaling by the element size (an LLVM
// getelementptr sign-extends its index; PTX `mul.wide.s32`), so the bound
// counts elements, not bytes: per operand, with largest reachable element
// offset
//
//   reach = |offset| + sum_d (sizes[d] - 1) * |strides[d]|,
//
// reach <= limit. Using |stride| bounds every partial sum of the offset
// computation, not just the final one, so flipped dims are safe too. The
// element count must also be <= limit. The limit is INT32_MAX; tests pass a
// small one to exercise splitting on tiny tensors. (PyTorch bounds bytes,
// because its kernels compute byte offsets.)
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LAYOUT_INDEXWIDTH_H
#define POINTWISE_LAYOUT_INDEXWIDTH_H

#include "Pointwise/Layout/LayoutResult.h"
#include "Pointwise/Layout/StridedLayout.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace pointwise::layout {

/// The largest element offset and element count a 32-bit kernel variant
/// handles.
constexpr int64_t kMax32BitIndex = std::numeric_limits<int32_t>::max();

/// The index type of a kernel variant; the value is its bit width.
enum class IndexWidth : unsigned { Bits32 = 32, Bits64 = 64 };

/// Bits32 when a kernel launched on `layout` as given (offsets included)
/// computes only indices <= `indexLimit`, else Bits64. An empty iteration space
/// accesses nothing and is Bits32; a layout whose extent overflows int64 is
/// Bits64. An enum rather than a bool so that `if (result)` cannot be mistaken
/// for the answer.
LayoutResult<IndexWidth> computeIndexWidth(const IterationLayout &layout,
                                           int64_t indexLimit = kMax32BitIndex);

/// A box of the iteration space: `sizes[d]` indices from `start[d]` along
/// every dim (same rank as the split layout).
struct IndexChunk {
  std::vector<int64_t> start;
  std::vector<int64_t> sizes;
  /// Per operand, `sum_d start[d] * stride(operand, d)`: the element offset of
  /// the chunk's first element relative to the operand's own offset.
  std::vector<int64_t> offsetAdjustments;
};

/// Splits `layout` into chunks that together cover every iteration index
/// exactly once and that each need only IndexWidth::Bits32 once rebased: the
/// caller launches a chunk with every operand's pointer advanced by `offset +
/// offsetAdjustments[operand]` elements and in-kernel offset 0, and the chunk's
/// sizes. Rebasing in 64-bit host arithmetic is what makes the far chunks of a
/// large tensor 32-bit at all.
///
/// The chunks form a grid: the dim that stretches an operand which does not
/// fit the most (in elements; or the longest dim when only the element count is
/// too large) is halved until the chunk shape fits, then every dim, outermost
/// first, grows back to the largest length that still fits. This balances
/// the split across dims (a transpose of a huge matrix gets a few dozen
/// chunks, not one per row) and splits inside a single dim that alone is too
/// large. Chunks are listed in row-major order of the grid. A layout that
/// fits once rebased gives one chunk; an empty space gives none. More than
/// 2^20 chunks (addresses spanning petabytes) is an error rather than a huge
/// list.
LayoutResult<std::vector<IndexChunk>>
splitFor32BitIndexing(const IterationLayout &layout,
                      int64_t indexLimit = kMax32BitIndex);

} // namespace pointwise::layout

#endif // POINTWISE_LAYOUT_INDEXWIDTH_H
