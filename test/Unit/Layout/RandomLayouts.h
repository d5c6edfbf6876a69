//===- RandomLayouts.h - Random layouts for property tests ------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Generates the layouts real pointwise launches see (permuted dims, sliced
// steps, flips, gaps, offsets, NumPy broadcasts, expanded stride-0 dims,
// several outputs) and computes element offsets straight from the definition,
// independently of the library, so property tests compare the library
// against first principles. Deterministic: std::mt19937_64's sequence is
// fixed by the standard and the draws below do not use the
// implementation-defined std::uniform_int_distribution.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_TEST_UNIT_LAYOUT_RANDOMLAYOUTS_H
#define POINTWISE_TEST_UNIT_LAYOUT_RANDOMLAYOUTS_H

#include "Pointwise/Layout/StridedLayout.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace pointwise::layout::testing {

/// The operands of one pointwise launch, outputs first.
struct RandomLaunch {
  std::vector<int64_t> iterationShape;
  std::vector<StridedLayout> operands;
  unsigned numOutputs = 0;
};

class RandomLayoutGenerator {
public:
  explicit RandomLayoutGenerator(uint64_t seed) : engine(seed) {}

  /// Uniform in [low, high].
  int64_t uniform(int64_t low, int64_t high) {
    return low + static_cast<int64_t>(engine() %
                                      static_cast<uint64_t>(high - low + 1));
  }
  bool chance(int percent) { return uniform(0, 99) < percent; }

  /// A shape of rank `rank` with sizes 0 (rarely), 1 (often) and 2..maxSize,
  /// shrunk until it has at most `maxElements` elements.
  std::vector<int64_t> shape(unsigned rank, int64_t maxSize,
                             int64_t maxElements) {
    std::vector<int64_t> sizes(rank);
    for (int64_t &size : sizes)
      size = chance(4) ? 0 : chance(20) ? 1 : uniform(2, maxSize);
    while (true) {
      int64_t count = 1;
      for (int64_t size : sizes)
        count *= size;
      if (count <= maxElements)
        return sizes;
      for (int64_t &size : sizes)
        if (size > 1 && chance(50))
          size = (size + 1) / 2;
    }
  }

  /// A uniformly random permutation of `rank` dims.
  std::vector<unsigned> permutation(unsigned rank) {
    std::vector<unsigned> order(rank);
    std::iota(order.begin(), order.end(), 0u);
    for (unsigned i = rank; i > 1; --i)
      std::swap(order[i - 1], order[uniform(0, i - 1)]);
    return order;
  }

  /// Row-major half of the time, as most real tensors are; else shuffled.
  std::vector<unsigned> memoryOrder(unsigned rank) {
    if (chance(50))
      return permutation(rank);
    std::vector<unsigned> order(rank);
    std::iota(order.begin(), order.end(), 0u);
    return order;
  }

  /// A non-overlapping view of shape `sizes` into a fresh buffer whose dims lie
  /// in memory in `memoryOrder` (outermost first): every dim may be sliced
  /// with a step, flipped, or padded, and the view starts at a random offset.
  /// All addressed element offsets are non-negative.
  StridedLayout view(const std::vector<int64_t> &sizes,
                     const std::vector<unsigned> &memoryOrder,
                     int stepPercent) {
    unsigned rank = static_cast<unsigned>(sizes.size());
    StridedLayout layout{sizes, std::vector<int64_t>(rank), uniform(0, 7)};
    int64_t bufferStride = 1;
    for (unsigned pos = rank; pos-- > 0;) {
      unsigned dim = memoryOrder[pos];
      int64_t step = chance(stepPercent) ? uniform(2, 3) : 1;
      int64_t padding = chance(10) ? uniform(1, 2) : 0;
      int64_t stride = bufferStride * step;
      if (chance(20)) {
        stride = -stride;
        if (sizes[dim] > 0)
          layout.offset -= (sizes[dim] - 1) * stride;
      }
      layout.strides[dim] = stride;
      bufferStride *= std::max<int64_t>(sizes[dim], 1) * step + padding;
    }
    return layout;
  }

  /// An input that broadcasts to `iterationShape`: some leading dims missing,
  /// some dims of size 1 (with arbitrary strides), some dims expanded with
  /// stride 0 at full size.
  StridedLayout broadcastInput(const std::vector<int64_t> &iterationShape,
                               const std::vector<unsigned> &memoryOrder,
                               int stepPercent) {
    unsigned dropped =
        chance(25) ? static_cast<unsigned>(uniform(0, iterationShape.size()))
                   : 0;
    std::vector<int64_t> sizes(iterationShape.begin() + dropped,
                               iterationShape.end());
    for (int64_t &size : sizes)
      if (chance(20))
        size = 1;
    std::vector<unsigned> order;
    for (unsigned dim : memoryOrder)
      if (dim >= dropped)
        order.push_back(dim - dropped);
    StridedLayout layout = view(sizes, order, stepPercent);
    for (unsigned d = 0; d < layout.rank(); ++d) {
      if (layout.sizes[d] == 1 && chance(50))
        layout.strides[d] = uniform(-5, 5);
      else if (layout.sizes[d] > 1 && chance(8))
        layout.strides[d] = 0;
    }
    return layout;
  }

  /// A launch of rank 0..maxRank with up to 2 outputs and 3 inputs. Half of
  /// the launches give every operand the same memory order and rare steps,
  /// which is where coalescing has something to merge.
  RandomLaunch launch(unsigned maxRank, int64_t maxElements) {
    RandomLaunch launch;
    unsigned rank = static_cast<unsigned>(uniform(0, maxRank));
    launch.iterationShape = shape(rank, 5, maxElements);
    launch.numOutputs = static_cast<unsigned>(chance(10) ? 0 : uniform(1, 2));
    unsigned numInputs = static_cast<unsigned>(uniform(0, 3));
    bool sharedOrder = chance(50);
    std::vector<unsigned> order = memoryOrder(rank);
    int stepPercent = sharedOrder ? 5 : 30;
    for (unsigned i = 0; i < launch.numOutputs + numInputs; ++i) {
      std::vector<unsigned> operandOrder =
          sharedOrder ? order : memoryOrder(rank);
      launch.operands.push_back(
          i < launch.numOutputs
              ? view(launch.iterationShape, operandOrder, stepPercent)
              : broadcastInput(launch.iterationShape, operandOrder,
                               stepPercent));
    }
    return launch;
  }

private:
  std::mt19937_64 engine;
};

/// Calls `visit(index)` for every index of `sizes`, in row-major order.
template <typename Visitor>
void forEachIndex(const std::vector<int64_t> &sizes, Visitor visit) {
  for (int64_t size : sizes)
    if (size == 0)
      return;
  std::vector<int64_t> index(sizes.size(), 0);
  while (true) {
    visit(index);
    size_t d = sizes.size();
    while (d > 0 && ++index[d - 1] == sizes[d - 1])
      index[--d] = 0;
    if (d == 0)
      return;
  }
}

/// The element offset of `operand`, in its own shape, at `index` of the
/// iteration space it broadcasts to, straight from the NumPy definition.
inline int64_t referenceOffset(const StridedLayout &operand,
                               const std::vector<int64_t> &index) {
  size_t lead = index.size() - operand.sizes.size();
  int64_t offset = operand.offset;
  for (size_t d = 0; d < operand.sizes.size(); ++d)
    if (operand.sizes[d] != 1)
      offset += index[lead + d] * operand.strides[d];
  return offset;
}

/// The number of elements of `sizes`.
inline int64_t countElements(const std::vector<int64_t> &sizes) {
  int64_t count = 1;
  for (int64_t size : sizes)
    count *= size;
  return count;
}

/// The row-major linear position of `index` in `sizes`.
inline int64_t linearize(const std::vector<int64_t> &sizes,
                         const std::vector<int64_t> &index) {
  int64_t position = 0;
  for (size_t d = 0; d < sizes.size(); ++d)
    position = position * sizes[d] + index[d];
  return position;
}

} // namespace pointwise::layout::testing

#endif // POINTWISE_TEST_UNIT_LAYOUT_RANDOMLAYOUTS_H
