//===- IndexWidth.cpp - 32-bit indexability and splitting -----------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/IndexWidth.h"

#include "CheckedArithmetic.h"

#include <algorithm>

using namespace pointwise::layout;

/// More chunks than this means a layout whose addresses span far more memory
/// than any device has; refusing it keeps the chunk list from exhausting host
/// memory.
static constexpr int64_t kMaxChunks = int64_t(1) << 20;

static LayoutResult<void> verifyIndexWidthInputs(const IterationLayout &layout,
                                                 int64_t limit) {
  LayoutResult<void> valid = verifyIterationLayout(layout);
  if (!valid)
    return valid;
  if (limit < 1)
    return LayoutError{"index limit " + std::to_string(limit) +
                       " must be positive"};
  return {};
}

/// |offset| + sum_d (sizes[d] - 1) * |stride(op, d)| over the dims other than
/// `skipDim`, or nullopt on overflow. `sizes` has no zero entry.
static std::optional<int64_t> computeReach(const IterationLayout &layout,
                                           unsigned op, const int64_t *sizes,
                                           int64_t offset,
                                           unsigned skipDim = ~0u) {
  std::optional<int64_t> reach = detail::checkedAbs(offset);
  for (unsigned d = 0; reach && d < layout.rank(); ++d) {
    if (d == skipDim || sizes[d] == 1)
      continue;
    std::optional<int64_t> stride = detail::checkedAbs(layout.stride(op, d));
    std::optional<int64_t> term =
        stride ? detail::checkedMul(sizes[d] - 1, *stride) : std::nullopt;
    reach = term ? detail::checkedAdd(*reach, *term) : std::nullopt;
  }
  return reach;
}

LayoutResult<IndexWidth>
pointwise::layout::computeIndexWidth(const IterationLayout &layout,
                                     int64_t indexLimit) {
  LayoutResult<void> valid = verifyIndexWidthInputs(layout, indexLimit);
  if (!valid)
    return LayoutError{valid.error()};
  int64_t count = *detail::countElements(layout.sizes);
  if (count == 0)
    return IndexWidth::Bits32;
  if (count > indexLimit)
    return IndexWidth::Bits64;
  for (unsigned op = 0; op < layout.numOperands(); ++op) {
    std::optional<int64_t> reach =
        computeReach(layout, op, layout.sizes.data(), layout.offsets[op]);
    if (!reach || *reach > indexLimit)
      return IndexWidth::Bits64;
  }
  return IndexWidth::Bits32;
}

/// (size - 1) * |stride|, saturated at INT64_MAX: only used to rank dims by
/// how much they stretch an operand.
static int64_t reachContribution(int64_t size, int64_t stride) {
  // A dim of length 1 contributes nothing, whatever its stride; halving it
  // would make no progress.
  if (size <= 1)
    return 0;
  std::optional<int64_t> magnitude = detail::checkedAbs(stride);
  std::optional<int64_t> elements =
      magnitude ? detail::checkedMul(size - 1, *magnitude) : std::nullopt;
  return elements ? *elements : INT64_MAX;
}

/// Halves the dim that stretches a violating operand most (or, when only the
/// element count is too large, the longest dim) until a chunk of shape `tile`
/// fits. A tile of one element always does: its reach is 0.
static void shrinkTileUntilItFits(const IterationLayout &layout, int64_t limit,
                                  std::vector<int64_t> &tile) {
  unsigned rank = layout.rank();
  while (true) {
    unsigned bestDim = rank;
    int64_t bestScore = 0;
    bool violated = false;
    for (unsigned op = 0; op < layout.numOperands(); ++op) {
      std::optional<int64_t> reach = computeReach(layout, op, tile.data(), 0);
      if (reach && *reach <= limit)
        continue;
      violated = true;
      for (unsigned d = 0; d < rank; ++d) {
        int64_t score = reachContribution(tile[d], layout.stride(op, d));
        if (score > bestScore) {
          bestScore = score;
          bestDim = d;
        }
      }
    }
    if (!violated) {
      if (*detail::countElements(tile) <= limit)
        return;
      for (unsigned d = 0; d < rank; ++d)
        if (tile[d] > 1 && (bestDim == rank || tile[d] > tile[bestDim]))
          bestDim = d;
    }
    // A violating reach is positive, so some dim contributes to it; a count
    // above limit >= 1 has a dim longer than 1.
    tile[bestDim] -= tile[bestDim] / 2;
  }
}

/// Grows every dim of the fitting `tile`, outermost first, to the largest
/// length that keeps it fitting: halving overshoots by up to 2x per dim.
static void growTile(const IterationLayout &layout, int64_t limit,
                     std::vector<int64_t> &tile) {
  for (unsigned d = 0; d < layout.rank(); ++d) {
    int64_t otherCount = 1;
    for (unsigned e = 0; e < layout.rank(); ++e)
      if (e != d)
        otherCount *= tile[e];
    int64_t length = std::min(layout.sizes[d], limit / otherCount);
    for (unsigned op = 0; op < layout.numOperands(); ++op) {
      std::optional<int64_t> stride = detail::checkedAbs(layout.stride(op, d));
      // INT64_MIN has no magnitude: two steps along it already overflow.
      if (!stride) {
        length = 1;
        continue;
      }
      if (*stride == 0)
        continue;
      // The tile fits, so the other dims' reach is within the budget.
      int64_t budget = limit - *computeReach(layout, op, tile.data(), 0, d);
      length = std::min(length - 1, budget / *stride) + 1;
    }
    tile[d] = std::max(tile[d], length);
  }
}

LayoutResult<std::vector<IndexChunk>>
pointwise::layout::splitFor32BitIndexing(const IterationLayout &layout,
                                         int64_t indexLimit) {
  LayoutResult<void> valid = verifyIndexWidthInputs(layout, indexLimit);
  if (!valid)
    return LayoutError{valid.error()};
  std::vector<IndexChunk> chunks;
  if (*detail::countElements(layout.sizes) == 0)
    return chunks;

  unsigned rank = layout.rank();
  std::vector<int64_t> tile = layout.sizes;
  shrinkTileUntilItFits(layout, indexLimit, tile);
  growTile(layout, indexLimit, tile);

  std::vector<int64_t> gridSizes(rank);
  int64_t numChunks = 1;
  for (unsigned d = 0; d < rank; ++d) {
    gridSizes[d] = (layout.sizes[d] - 1) / tile[d] + 1;
    std::optional<int64_t> product =
        detail::checkedMul(numChunks, gridSizes[d]);
    if (!product || *product > kMaxChunks)
      return LayoutError{"splitting for 32-bit indexing needs more than " +
                         std::to_string(kMaxChunks) + " chunks"};
    numChunks = *product;
  }

  chunks.reserve(numChunks);
  std::vector<int64_t> gridIndex(rank, 0);
  for (int64_t c = 0; c < numChunks; ++c) {
    IndexChunk chunk;
    chunk.start.resize(rank);
    chunk.sizes.resize(rank);
    for (unsigned d = 0; d < rank; ++d) {
      chunk.start[d] = gridIndex[d] * tile[d];
      chunk.sizes[d] = std::min(tile[d], layout.sizes[d] - chunk.start[d]);
    }
    chunk.offsetAdjustments.resize(layout.numOperands());
    for (unsigned op = 0; op < layout.numOperands(); ++op) {
      std::optional<int64_t> adjustment = 0;
      for (unsigned d = 0; adjustment && d < rank; ++d) {
        std::optional<int64_t> term =
            detail::checkedMul(chunk.start[d], layout.stride(op, d));
        adjustment =
            term ? detail::checkedAdd(*adjustment, *term) : std::nullopt;
      }
      if (!adjustment)
        return LayoutError{"operand #" + std::to_string(op) +
                           ": a chunk offset overflows int64"};
      chunk.offsetAdjustments[op] = *adjustment;
    }
    chunks.push_back(std::move(chunk));
    // Row-major odometer over the chunk grid.
    for (unsigned d = rank; d-- > 0;) {
      if (++gridIndex[d] < gridSizes[d])
        break;
      gridIndex[d] = 0;
    }
  }
  return chunks;
}
