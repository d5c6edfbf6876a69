//===- CoalesceTest.cpp - Tests of dimension coalescing -------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/Coalesce.h"

#include <gtest/gtest.h>

using namespace pointwise::layout;

namespace {

using Ints = std::vector<int64_t>;
using Dims = std::vector<unsigned>;

CoalescedLayout coalesceOrDie(const IterationLayout &layout,
                              const Dims &permutation) {
  LayoutResult<CoalescedLayout> result =
      coalesceDimensions(layout, permutation);
  EXPECT_TRUE(result) << result.error();
  return *result;
}

TEST(CoalesceTest, ContiguousOperandsMergeToRankOne) {
  CoalescedLayout result =
      coalesceOrDie({{2, 3, 4}, {12, 4, 1, 12, 4, 1}, {0, 7}}, {0, 1, 2});
  EXPECT_EQ(result.layout.sizes, (Ints{24}));
  EXPECT_EQ(result.layout.strides, (Ints{1, 1}));
  EXPECT_EQ(result.layout.offsets, (Ints{0, 7}));
  EXPECT_EQ(result.permutation, (Dims{0, 1, 2}));
  EXPECT_EQ(result.groupEnds, (Dims{3}));
}

TEST(CoalesceTest, UnitDimsAreDroppedAndJoinTheNextGroup) {
  // Dims 0 and 2 have size 1 (with noise strides); dims 1 and 3 transpose.
  CoalescedLayout result = coalesceOrDie(
      {{1, 3, 1, 5}, {9, 5, 9, 1, 0, 1, 7, 3}, {0, 0}}, {0, 1, 2, 3});
  EXPECT_EQ(result.layout.sizes, (Ints{3, 5}));
  EXPECT_EQ(result.layout.strides, (Ints{5, 1, 1, 3}));
  EXPECT_EQ(result.groupEnds, (Dims{2, 4}));
}

TEST(CoalesceTest, TrailingUnitDimsJoinTheLastGroup) {
  CoalescedLayout result = coalesceOrDie({{4, 1}, {1, 1}, {0}}, {0, 1});
  EXPECT_EQ(result.layout.sizes, (Ints{4}));
  EXPECT_EQ(result.groupEnds, (Dims{2}));
}

TEST(CoalesceTest, TransposedOperandKeepsRankTwo) {
  CoalescedLayout result =
      coalesceOrDie({{3, 5}, {5, 1, 1, 3}, {0, 0}}, {0, 1});
  EXPECT_EQ(result.layout.sizes, (Ints{3, 5}));
  EXPECT_EQ(result.layout.strides, (Ints{5, 1, 1, 3}));
  EXPECT_EQ(result.groupEnds, (Dims{1, 2}));
}

TEST(CoalesceTest, PermutationIsAppliedBeforeMerging) {
  // Both operands are column-major: walked in memory order they are one dim.
  CoalescedLayout result =
      coalesceOrDie({{3, 5}, {1, 3, 1, 3}, {0, 0}}, {1, 0});
  EXPECT_EQ(result.layout.sizes, (Ints{15}));
  EXPECT_EQ(result.layout.strides, (Ints{1, 1}));
  EXPECT_EQ(result.permutation, (Dims{1, 0}));
  EXPECT_EQ(result.groupEnds, (Dims{2}));
}

TEST(CoalesceTest, FullyFlippedMatrixMergesWithStrideMinusOne) {
  CoalescedLayout result =
      coalesceOrDie({{3, 5}, {5, 1, -5, -1}, {0, 14}}, {0, 1});
  EXPECT_EQ(result.layout.sizes, (Ints{15}));
  EXPECT_EQ(result.layout.strides, (Ints{1, -1}));
  EXPECT_EQ(result.layout.offsets, (Ints{0, 14}));
}

TEST(CoalesceTest, RowFlipAloneDoesNotMerge) {
  CoalescedLayout result =
      coalesceOrDie({{3, 5}, {5, 1, -5, 1}, {0, 10}}, {0, 1});
  EXPECT_EQ(result.layout.sizes, (Ints{3, 5}));
}

TEST(CoalesceTest, TwoBroadcastDimsMerge) {
  // The input is a scalar broadcast over the whole matrix.
  CoalescedLayout result =
      coalesceOrDie({{3, 5}, {5, 1, 0, 0}, {0, 0}}, {0, 1});
  EXPECT_EQ(result.layout.sizes, (Ints{15}));
  EXPECT_EQ(result.layout.strides, (Ints{1, 0}));
}

TEST(CoalesceTest, RowBroadcastStaysRankTwo) {
  CoalescedLayout result =
      coalesceOrDie({{3, 5}, {5, 1, 0, 1}, {0, 0}}, {0, 1});
  EXPECT_EQ(result.layout.sizes, (Ints{3, 5}));
  EXPECT_EQ(result.layout.strides, (Ints{5, 1, 0, 1}));
}

TEST(CoalesceTest, SizeZeroSpaceIsCanonicalRankOne) {
  CoalescedLayout result =
      coalesceOrDie({{3, 0, 5}, {0, 5, 1, 1, 3, 0}, {2, 4}}, {0, 1, 2});
  EXPECT_EQ(result.layout.sizes, (Ints{0}));
  EXPECT_EQ(result.layout.strides, (Ints{1, 1}));
  EXPECT_EQ(result.layout.offsets, (Ints{2, 4}));
  EXPECT_EQ(result.groupEnds, (Dims{3}));
}

TEST(CoalesceTest, RankZeroStaysRankZero) {
  CoalescedLayout result = coalesceOrDie({{}, {}, {3, 4}}, {});
  EXPECT_EQ(result.rank(), 0u);
  EXPECT_TRUE(result.layout.strides.empty());
  EXPECT_EQ(result.layout.offsets, (Ints{3, 4}));
  EXPECT_TRUE(result.groupEnds.empty());
}

TEST(CoalesceTest, AllUnitDimsBecomeRankZero) {
  CoalescedLayout result = coalesceOrDie({{1, 1}, {4, 1}, {6}}, {0, 1});
  EXPECT_EQ(result.rank(), 0u);
  EXPECT_TRUE(result.layout.strides.empty());
  EXPECT_EQ(result.layout.offsets, (Ints{6}));
  EXPECT_TRUE(result.groupEnds.empty());
}

TEST(CoalesceTest, OverflowingProductDoesNotMerge) {
  // 4 * INT64_MAX / 2 overflows: the dims are not walked as one.
  int64_t half = INT64_MAX / 2;
  CoalescedLayout result =
      coalesceOrDie({{2, 4}, {INT64_MIN, half}, {0}}, {0, 1});
  EXPECT_EQ(result.layout.sizes, (Ints{2, 4}));
}

TEST(CoalesceTest, InvalidPermutationIsAnError) {
  LayoutResult<CoalescedLayout> result =
      coalesceDimensions({{2, 3}, {3, 1}, {0}}, {1, 1});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(),
            "permutation [1, 1] is not a permutation of 2 dims");
}

TEST(CoalesceTest, MalformedLayoutIsAnError) {
  LayoutResult<CoalescedLayout> result =
      coalesceDimensions({{2, -3}, {3, 1}, {0}}, {0, 1});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), "iteration dim 1 has negative size -3");
}

} // namespace
