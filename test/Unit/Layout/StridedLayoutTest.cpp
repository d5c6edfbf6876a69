//===- StridedLayoutTest.cpp - Tests of the layout value types ------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/StridedLayout.h"

#include <gtest/gtest.h>

using namespace pointwise::layout;

namespace {

TEST(StridedLayoutTest, ValidLayoutsVerify) {
  EXPECT_TRUE(verifyStridedLayout({{2, 3}, {3, 1}, 0}, 0));
  EXPECT_TRUE(verifyStridedLayout({{}, {}, 5}, 0));
  EXPECT_TRUE(verifyStridedLayout({{0, 7}, {-7, 0}, 3}, 0));
}

TEST(StridedLayoutTest, MismatchedStrideCountIsAnError) {
  LayoutResult<void> result = verifyStridedLayout({{2, 3}, {1}, 0}, 4);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), "operand #4 has 2 sizes but 1 strides");
}

TEST(StridedLayoutTest, NegativeSizeIsAnError) {
  LayoutResult<void> result = verifyStridedLayout({{2, -3}, {3, 1}, 0}, 1);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), "operand #1 dim 1 has negative size -3");
}

TEST(StridedLayoutTest, ElementCountOverflowIsAnError) {
  int64_t big = int64_t(1) << 32;
  LayoutResult<void> result = verifyStridedLayout({{big, big}, {big, 1}, 0}, 0);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), "operand #0 has more elements than fit in int64");
  // A zero size makes the element count 0 however large the rest is.
  EXPECT_TRUE(verifyStridedLayout({{big, big, 0}, {1, 1, 1}, 0}, 0));
}

TEST(StridedLayoutTest, IterationLayoutAccessorsAreOperandMajor) {
  IterationLayout layout{{2, 3}, {3, 1, 0, 1}, {0, 5}};
  EXPECT_EQ(layout.rank(), 2u);
  EXPECT_EQ(layout.numOperands(), 2u);
  EXPECT_EQ(layout.stride(0, 0), 3);
  EXPECT_EQ(layout.stride(1, 0), 0);
  EXPECT_EQ(layout.operandStrides(1), (std::vector<int64_t>{0, 1}));
  StridedLayout second = layout.operandLayout(1);
  EXPECT_EQ(second.sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(second.strides, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(second.offset, 5);
}

TEST(StridedLayoutTest, IterationLayoutVerifiesItsStrideCount) {
  EXPECT_TRUE(verifyIterationLayout({{2, 3}, {3, 1, 0, 1}, {0, 5}}));
  LayoutResult<void> result = verifyIterationLayout({{2, 3}, {3, 1}, {0, 5}});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(),
            "iteration layout has 2 strides for 2 operands of rank 2, "
            "expected 4");
}

TEST(StridedLayoutTest, IterationLayoutRejectsNegativeSizes) {
  LayoutResult<void> result = verifyIterationLayout({{2, -1}, {1, 1}, {0}});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), "iteration dim 1 has negative size -1");
}

TEST(StridedLayoutTest, FormatShapeListsTheSizes) {
  EXPECT_EQ(formatShape({}), "[]");
  EXPECT_EQ(formatShape({4}), "[4]");
  EXPECT_EQ(formatShape({2, -3, 0}), "[2, -3, 0]");
}

} // namespace
