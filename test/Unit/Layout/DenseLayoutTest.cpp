//===- DenseLayoutTest.cpp - Tests of output allocation strides -----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/DenseLayout.h"

#include "RandomLayouts.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace pointwise::layout;
using namespace pointwise::layout::testing;

namespace {

using Ints = std::vector<int64_t>;

Ints denseOrDie(const Ints &sizes, const std::vector<unsigned> &permutation) {
  LayoutResult<Ints> result = computeDenseStrides(sizes, permutation);
  EXPECT_TRUE(result) << result.error();
  return *result;
}

Ints outputOrDie(const Ints &shape, const std::vector<StridedLayout> &inputs) {
  LayoutResult<Ints> result = computeOutputStrides(shape, inputs);
  EXPECT_TRUE(result) << result.error();
  return *result;
}

TEST(DenseStridesTest, IdentityPermutationIsRowMajor) {
  EXPECT_EQ(denseOrDie({2, 3, 4}, {0, 1, 2}), (Ints{12, 4, 1}));
}

TEST(DenseStridesTest, PermutationPutsItsLastDimInnermost) {
  EXPECT_EQ(denseOrDie({2, 3, 4}, {2, 1, 0}), (Ints{1, 2, 6}));
  // NHWC for sizes indexed NCHW.
  EXPECT_EQ(denseOrDie({2, 3, 4, 5}, {0, 2, 3, 1}), (Ints{60, 1, 15, 3}));
}

TEST(DenseStridesTest, SizeZeroAndOneCountAsOne) {
  EXPECT_EQ(denseOrDie({2, 0, 4}, {0, 1, 2}), (Ints{4, 4, 1}));
  EXPECT_EQ(denseOrDie({2, 1, 4}, {0, 1, 2}), (Ints{4, 4, 1}));
  EXPECT_EQ(denseOrDie({}, {}), (Ints{}));
}

TEST(DenseStridesTest, InvalidArgumentsAreErrors) {
  LayoutResult<Ints> repeated = computeDenseStrides({2, 3}, {0, 0});
  ASSERT_FALSE(repeated);
  EXPECT_EQ(repeated.error(),
            "permutation [0, 0] is not a permutation of 2 dims");
  LayoutResult<Ints> negative = computeDenseStrides({2, -3}, {0, 1});
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error(), "dim 1 has negative size -3");
  int64_t big = int64_t(1) << 32;
  LayoutResult<Ints> huge = computeDenseStrides({big, big, 2}, {0, 1, 2});
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error(),
            "dense strides of [4294967296, 4294967296, 2] overflow int64");
}

TEST(OutputStridesTest, NoInputsGiveRowMajor) {
  EXPECT_EQ(outputOrDie({2, 3}, {}), (Ints{3, 1}));
}

TEST(OutputStridesTest, TransposedInputGivesATransposedOutput) {
  EXPECT_EQ(outputOrDie({3, 5}, {{{3, 5}, {1, 3}, 0}}), (Ints{1, 3}));
}

TEST(OutputStridesTest, NhwcInputGivesAnNhwcOutput) {
  // A sliced NHWC input (every other W) still gives dense NHWC.
  EXPECT_EQ(outputOrDie({2, 3, 4, 5}, {{{2, 3, 4, 5}, {120, 1, 30, 6}, 0}}),
            (Ints{60, 1, 15, 3}));
}

TEST(OutputStridesTest, BroadcastInputsAreSkipped) {
  // The row vector and the expanded (stride-0) matrix do not decide; the
  // transposed third input does.
  std::vector<StridedLayout> inputs{
      {{5}, {1}, 0}, {{3, 5}, {0, 1}, 0}, {{3, 5}, {1, 3}, 0}};
  EXPECT_EQ(outputOrDie({3, 5}, inputs), (Ints{1, 3}));
}

TEST(OutputStridesTest, OnlyBroadcastInputsGiveRowMajor) {
  EXPECT_EQ(outputOrDie({3, 5}, {{{3, 1}, {1, 1}, 0}, {{5}, {1}, 0}}),
            (Ints{5, 1}));
}

TEST(OutputStridesTest, FlippedInputGivesPositiveStridesInItsOrder) {
  EXPECT_EQ(outputOrDie({3, 5}, {{{3, 5}, {-1, -3}, 14}}), (Ints{1, 3}));
}

TEST(OutputStridesTest, MalformedInputIsAnError) {
  LayoutResult<Ints> result = computeOutputStrides({3}, {{{3}, {}, 0}});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), "operand #0 has 1 sizes but 0 strides");
}

TEST(OutputStridesPropertyTest, DenseNonOverlappingAndInTheReferenceOrder) {
  RandomLayoutGenerator generator(0x5eed0003);
  for (int trial = 0; trial < 2000; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    unsigned rank = static_cast<unsigned>(generator.uniform(0, 6));
    Ints shape = generator.shape(rank, 5, 512);
    StridedLayout reference =
        generator.view(shape, generator.permutation(rank), 30);
    std::vector<StridedLayout> inputs;
    if (generator.chance(50))
      inputs.push_back(
          generator.broadcastInput(shape, generator.permutation(rank), 30));
    bool broadcastFirst = !inputs.empty() && inputs[0].sizes != shape;
    if (broadcastFirst || inputs.empty())
      inputs.push_back(reference);
    else
      reference = inputs[0];

    LayoutResult<Ints> strides = computeOutputStrides(shape, inputs);
    ASSERT_TRUE(strides) << strides.error();
    ASSERT_EQ(strides->size(), rank);

    // Dense and non-overlapping: the offsets are exactly 0 .. count - 1.
    int64_t count = countElements(shape);
    std::vector<int> hits(count, 0);
    forEachIndex(shape, [&](const Ints &index) {
      int64_t offset = 0;
      for (unsigned d = 0; d < rank; ++d)
        offset += index[d] * (*strides)[d];
      ASSERT_GE(offset, 0);
      ASSERT_LT(offset, count);
      ++hits[offset];
    });
    for (int hit : hits)
      ASSERT_EQ(hit, 1);

    // Same order as the reference wherever the reference has one: dims of
    // size > 1 with distinct non-zero stride magnitudes.
    bool referenceDecides = true;
    for (unsigned d = 0; d < rank; ++d)
      referenceDecides &= shape[d] <= 1 || reference.strides[d] != 0;
    if (!referenceDecides)
      continue;
    for (unsigned a = 0; a < rank; ++a)
      for (unsigned b = 0; b < rank; ++b) {
        if (shape[a] <= 1 || shape[b] <= 1)
          continue;
        int64_t refA = std::abs(reference.strides[a]);
        int64_t refB = std::abs(reference.strides[b]);
        if (refA < refB) {
          ASSERT_LT((*strides)[a], (*strides)[b]) << "dims " << a << ", " << b;
        }
      }
  }
}

} // namespace
