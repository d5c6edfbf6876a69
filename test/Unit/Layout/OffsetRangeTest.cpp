//===- OffsetRangeTest.cpp - Tests of element offset ranges ---------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/OffsetRange.h"

#include <gtest/gtest.h>

using namespace pointwise::layout;

namespace {

ElementOffsetRange rangeOrDie(const StridedLayout &layout) {
  LayoutResult<ElementOffsetRange> range = computeElementOffsetRange(layout);
  EXPECT_TRUE(range) << range.error();
  return *range;
}

TEST(OffsetRangeTest, ContiguousViewSpansItsElements) {
  ElementOffsetRange range = rangeOrDie({{2, 3}, {3, 1}, 4});
  EXPECT_EQ(range.first, 4);
  EXPECT_EQ(range.last, 9);
}

TEST(OffsetRangeTest, NegativeStridesReachBelowTheOffset) {
  // a[::-1, :] of a contiguous 3x4 matrix starts at row 2.
  ElementOffsetRange range = rangeOrDie({{3, 4}, {-4, 1}, 8});
  EXPECT_EQ(range.first, 0);
  EXPECT_EQ(range.last, 11);
}

TEST(OffsetRangeTest, BroadcastAndUnitDimsDoNotWiden) {
  ElementOffsetRange range = rangeOrDie({{5, 1, 3}, {0, 100, 2}, 1});
  EXPECT_EQ(range.first, 1);
  EXPECT_EQ(range.last, 5);
}

TEST(OffsetRangeTest, EmptyViewIsJustItsOffset) {
  ElementOffsetRange range = rangeOrDie({{4, 0}, {-100, 1}, 7});
  EXPECT_EQ(range.first, 7);
  EXPECT_EQ(range.last, 7);
}

TEST(OffsetRangeTest, OverflowIsAnError) {
  LayoutResult<ElementOffsetRange> range =
      computeElementOffsetRange({{3}, {INT64_MAX}, 0});
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error(), "the view's element offsets overflow int64");
}

TEST(OffsetRangeTest, MalformedViewIsAnError) {
  LayoutResult<ElementOffsetRange> range =
      computeElementOffsetRange({{3}, {}, 0});
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error(), "operand #0 has 1 sizes but 0 strides");
}

} // namespace
