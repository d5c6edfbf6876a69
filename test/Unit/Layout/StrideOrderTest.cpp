//===- StrideOrderTest.cpp - Tests of the common memory order -------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/StrideOrder.h"

#include <gtest/gtest.h>

using namespace pointwise::layout;

namespace {

using Order = std::vector<unsigned>;

Order orderOf(const IterationLayout &layout) {
  LayoutResult<Order> order = computeStrideOrder(layout);
  EXPECT_TRUE(order) << order.error();
  return *order;
}

TEST(StrideOrderTest, RowMajorKeepsTheOriginalOrder) {
  EXPECT_EQ(orderOf({{2, 3, 4}, {12, 4, 1}, {0}}), (Order{0, 1, 2}));
}

TEST(StrideOrderTest, ColumnMajorIsReversed) {
  EXPECT_EQ(orderOf({{2, 3, 4}, {1, 2, 6}, {0}}), (Order{2, 1, 0}));
}

TEST(StrideOrderTest, OutputDecidesBeforeInputs) {
  // c = a + b.T with c row-major: the output's order wins.
  EXPECT_EQ(orderOf({{3, 5}, {5, 1, 1, 3}, {0, 0}}), (Order{0, 1}));
  // c.T = a + b with c column-major: still the output's order.
  EXPECT_EQ(orderOf({{3, 5}, {1, 3, 5, 1}, {0, 0}}), (Order{1, 0}));
}

TEST(StrideOrderTest, NhwcOutputOrdersChannelsInnermost) {
  // Sizes N=2, C=3, H=4, W=5 indexed NCHW; an NHWC output and an NCHW input.
  EXPECT_EQ(orderOf({{2, 3, 4, 5}, {60, 1, 15, 3, 60, 20, 5, 1}, {0, 0}}),
            (Order{0, 2, 3, 1}));
}

TEST(StrideOrderTest, ZeroStridesNeitherVoteNorVeto) {
  // Operand #0 broadcasts along dim 1, so operand #1 decides that pair.
  EXPECT_EQ(orderOf({{3, 5}, {1, 0, 1, 3}, {0, 0}}), (Order{1, 0}));
}

TEST(StrideOrderTest, NegativeStridesSortByMagnitude) {
  // A fully flipped row-major matrix is still row-major.
  EXPECT_EQ(orderOf({{3, 5}, {-5, -1}, {14}}), (Order{0, 1}));
  // A flipped column-major matrix is still column-major.
  EXPECT_EQ(orderOf({{3, 5}, {-1, 3}, {2}}), (Order{1, 0}));
}

TEST(StrideOrderTest, EqualStridesPutTheLargerDimOutside) {
  // A self-overlapping input (sliding window): equal strides, sizes decide.
  EXPECT_EQ(orderOf({{3, 5}, {1, 1}, {0}}), (Order{1, 0}));
  EXPECT_EQ(orderOf({{5, 3}, {1, 1}, {0}}), (Order{0, 1}));
}

TEST(StrideOrderTest, FullyUndecidedDimsKeepTheirOrder) {
  EXPECT_EQ(orderOf({{3, 5}, {0, 0}, {0}}), (Order{0, 1}));
  EXPECT_EQ(orderOf({{3, 3}, {1, 1}, {0}}), (Order{0, 1}));
}

TEST(StrideOrderTest, UnitDimsDoNotVoteAndOtherDimsMovePastThem) {
  // Dims 0 and 2 are column-major; dim 1 has size 1 and its stride is noise.
  EXPECT_EQ(orderOf({{3, 1, 4}, {1, 100, 3}, {0}}), (Order{2, 0, 1}));
  EXPECT_EQ(orderOf({{4, 1, 3}, {3, 100, 1}, {0}}), (Order{0, 1, 2}));
}

TEST(StrideOrderTest, DimsMovePastAnAllBroadcastDim) {
  // Dim 1 is broadcast in every operand; dims 0 and 2 are column-major and
  // must still end up adjacent in memory order.
  EXPECT_EQ(orderOf({{4, 2, 5}, {1, 0, 4}, {0}}), (Order{2, 0, 1}));
}

TEST(StrideOrderTest, FirstDecidingOperandWins) {
  // Operand #0 ties dims 0 and 1 with equal sizes, so operand #1 decides.
  EXPECT_EQ(orderOf({{3, 3}, {1, 1, 1, 3}, {0, 0}}), (Order{1, 0}));
}

TEST(StrideOrderTest, RankZeroHasAnEmptyOrder) {
  EXPECT_EQ(orderOf({{}, {}, {0, 0}}), (Order{}));
}

TEST(StrideOrderTest, MalformedLayoutIsAnError) {
  LayoutResult<Order> order = computeStrideOrder({{2, 2}, {1}, {0}});
  ASSERT_FALSE(order);
  EXPECT_EQ(order.error(), "iteration layout has 1 strides for 1 operands of "
                           "rank 2, expected 2");
}

TEST(VerifyPermutationTest, AcceptsPermutationsOnly) {
  EXPECT_TRUE(verifyPermutation({}, 0));
  EXPECT_TRUE(verifyPermutation({2, 0, 1}, 3));
  LayoutResult<void> repeated = verifyPermutation({0, 0, 1}, 3);
  ASSERT_FALSE(repeated);
  EXPECT_EQ(repeated.error(), "permutation [0, 0, 1] is not a permutation of "
                              "3 dims");
  EXPECT_FALSE(verifyPermutation({0, 3, 1}, 3));
  EXPECT_FALSE(verifyPermutation({0, 1}, 3));
}

} // namespace
