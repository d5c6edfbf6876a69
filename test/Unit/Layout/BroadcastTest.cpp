//===- BroadcastTest.cpp - Tests of NumPy broadcasting --------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/Broadcast.h"

#include <gtest/gtest.h>

using namespace pointwise::layout;

namespace {

using Shape = std::vector<int64_t>;

Shape broadcastOrDie(const std::vector<Shape> &shapes) {
  LayoutResult<Shape> result = broadcastShapes(shapes);
  EXPECT_TRUE(result) << result.error();
  return *result;
}

std::string broadcastError(const std::vector<Shape> &shapes) {
  LayoutResult<Shape> result = broadcastShapes(shapes);
  EXPECT_FALSE(result);
  return result.error();
}

TEST(BroadcastShapesTest, EqualShapesBroadcastToThemselves) {
  EXPECT_EQ(broadcastOrDie({{2, 3}, {2, 3}}), (Shape{2, 3}));
}

TEST(BroadcastShapesTest, RowBroadcastAddsLeadingDims) {
  EXPECT_EQ(broadcastOrDie({{4, 3}, {3}}), (Shape{4, 3}));
  EXPECT_EQ(broadcastOrDie({{3}, {5, 4, 3}}), (Shape{5, 4, 3}));
}

TEST(BroadcastShapesTest, ColumnAndRowBroadcastToAnOuterProduct) {
  EXPECT_EQ(broadcastOrDie({{4, 1}, {1, 3}}), (Shape{4, 3}));
}

TEST(BroadcastShapesTest, ScalarsBroadcastToAnything) {
  EXPECT_EQ(broadcastOrDie({{}, {2, 3}, {}}), (Shape{2, 3}));
  EXPECT_EQ(broadcastOrDie({{}, {}}), (Shape{}));
  EXPECT_EQ(broadcastOrDie({}), (Shape{}));
}

TEST(BroadcastShapesTest, SizeOneBroadcastsToSizeZero) {
  EXPECT_EQ(broadcastOrDie({{1, 3}, {0, 1}}), (Shape{0, 3}));
  EXPECT_EQ(broadcastOrDie({{0}, {1}, {0}}), (Shape{0}));
}

TEST(BroadcastShapesTest, MismatchNamesBothOperandsDimsAndSizes) {
  EXPECT_EQ(broadcastError({{2, 4}, {3}}),
            "operand #1 dim 0 (size 3) does not broadcast with size 4 of "
            "operand #0 dim 1");
}

TEST(BroadcastShapesTest, MismatchNamesTheOperandThatSetTheSize) {
  // Operand #0 has size 1 there; operand #1 set the size to 5.
  EXPECT_EQ(broadcastError({{1, 2}, {5, 2}, {7, 3, 2}}),
            "operand #2 dim 1 (size 3) does not broadcast with size 5 of "
            "operand #1 dim 0");
}

TEST(BroadcastShapesTest, ZeroDoesNotBroadcastWithFive) {
  EXPECT_EQ(broadcastError({{5}, {0}}),
            "operand #1 dim 0 (size 0) does not broadcast with size 5 of "
            "operand #0 dim 0");
}

TEST(BroadcastShapesTest, NegativeSizeIsAnError) {
  EXPECT_EQ(broadcastError({{2}, {3, -1}}),
            "operand #1 dim 1 has negative size -1");
}

TEST(BroadcastStridesTest, RowBroadcastGetsZeroStrideForMissingDims) {
  LayoutResult<Shape> strides = broadcastStrides({{3}, {1}, 0}, {4, 3}, 1);
  ASSERT_TRUE(strides) << strides.error();
  EXPECT_EQ(*strides, (Shape{0, 1}));
}

TEST(BroadcastStridesTest, ColumnBroadcastGetsZeroStrideForTheUnitDim) {
  LayoutResult<Shape> strides =
      broadcastStrides({{4, 1}, {1, 1}, 0}, {4, 3}, 1);
  ASSERT_TRUE(strides) << strides.error();
  EXPECT_EQ(*strides, (Shape{1, 0}));
}

TEST(BroadcastStridesTest, UnitDimOfAUnitIterationDimKeepsItsStride) {
  LayoutResult<Shape> strides =
      broadcastStrides({{1, 3}, {7, 1}, 0}, {1, 3}, 0);
  ASSERT_TRUE(strides) << strides.error();
  EXPECT_EQ(*strides, (Shape{7, 1}));
}

TEST(BroadcastStridesTest, UnitDimBroadcastsToSizeZero) {
  LayoutResult<Shape> strides =
      broadcastStrides({{1, 3}, {3, 1}, 0}, {0, 3}, 0);
  ASSERT_TRUE(strides) << strides.error();
  EXPECT_EQ(*strides, (Shape{0, 1}));
}

TEST(BroadcastStridesTest, NegativeStridesAreKept) {
  LayoutResult<Shape> strides = broadcastStrides({{3}, {-2}, 4}, {2, 3}, 0);
  ASSERT_TRUE(strides) << strides.error();
  EXPECT_EQ(*strides, (Shape{0, -2}));
}

TEST(BroadcastStridesTest, MismatchNamesTheIterationDim) {
  LayoutResult<Shape> strides = broadcastStrides({{3}, {1}, 0}, {3, 4}, 2);
  ASSERT_FALSE(strides);
  EXPECT_EQ(strides.error(), "operand #2 dim 0 (size 3) does not broadcast to "
                             "size 4 of iteration dim 1");
}

TEST(BroadcastStridesTest, OperandOfHigherRankIsAnError) {
  LayoutResult<Shape> strides = broadcastStrides({{1, 3}, {3, 1}, 0}, {3}, 1);
  ASSERT_FALSE(strides);
  EXPECT_EQ(strides.error(),
            "operand #1 has rank 2, larger than the iteration rank 1");
}

TEST(BroadcastStridesTest, MalformedOperandIsAnError) {
  LayoutResult<Shape> strides = broadcastStrides({{3}, {1, 1}, 0}, {3}, 3);
  ASSERT_FALSE(strides);
  EXPECT_EQ(strides.error(), "operand #3 has 1 sizes but 2 strides");
}

TEST(BroadcastToIterationSpaceTest, FlattensOperandStridesOutputsFirst) {
  LayoutResult<IterationLayout> layout = broadcastToIterationSpace(
      {4, 3}, {{{4, 3}, {3, 1}, 0}, {{3}, {2}, 1}, {{}, {}, 9}}, 1);
  ASSERT_TRUE(layout) << layout.error();
  EXPECT_EQ(layout->sizes, (Shape{4, 3}));
  EXPECT_EQ(layout->strides, (Shape{3, 1, 0, 2, 0, 0}));
  EXPECT_EQ(layout->offsets, (Shape{0, 1, 9}));
}

TEST(BroadcastToIterationSpaceTest, OutputsAreNeverBroadcast) {
  LayoutResult<IterationLayout> layout = broadcastToIterationSpace(
      {4, 3}, {{{4, 3}, {3, 1}, 0}, {{1, 3}, {3, 1}, 0}}, 2);
  ASSERT_FALSE(layout);
  EXPECT_EQ(layout.error(), "output operand #1 has shape [1, 3] but the "
                            "iteration shape is [4, 3]");
}

TEST(BroadcastToIterationSpaceTest, MoreOutputsThanOperandsIsAnError) {
  LayoutResult<IterationLayout> layout =
      broadcastToIterationSpace({2}, {{{2}, {1}, 0}}, 2);
  ASSERT_FALSE(layout);
  EXPECT_EQ(layout.error(), "2 outputs among only 1 operands");
}

TEST(BroadcastToIterationSpaceTest, NegativeIterationSizeIsAnError) {
  LayoutResult<IterationLayout> layout = broadcastToIterationSpace({-2}, {}, 0);
  ASSERT_FALSE(layout);
  EXPECT_EQ(layout.error(), "iteration dim 0 has negative size -2");
}

TEST(BroadcastToIterationSpaceTest, InputMismatchIsReported) {
  LayoutResult<IterationLayout> layout = broadcastToIterationSpace(
      {4, 3}, {{{4, 3}, {3, 1}, 0}, {{2}, {1}, 0}}, 1);
  ASSERT_FALSE(layout);
  EXPECT_EQ(layout.error(), "operand #1 dim 0 (size 2) does not broadcast to "
                            "size 3 of iteration dim 1");
}

} // namespace
