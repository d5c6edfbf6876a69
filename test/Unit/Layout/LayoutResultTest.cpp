//===- LayoutResultTest.cpp - Tests of LayoutResult -----------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/LayoutResult.h"

#include <gtest/gtest.h>

#include <vector>

using namespace pointwise::layout;

namespace {

LayoutResult<std::vector<int>> makeValue(bool fail) {
  if (fail)
    return LayoutError{"it failed"};
  return std::vector<int>{1, 2};
}

TEST(LayoutResultTest, SuccessHoldsTheValueAndNoError) {
  LayoutResult<std::vector<int>> result = makeValue(false);
  ASSERT_TRUE(result);
  EXPECT_TRUE(result.succeeded());
  EXPECT_EQ(*result, (std::vector<int>{1, 2}));
  EXPECT_EQ(result->size(), 2u);
  EXPECT_EQ(result.error(), "");
  std::vector<int> moved = std::move(result).value();
  EXPECT_EQ(moved, (std::vector<int>{1, 2}));
}

TEST(LayoutResultTest, FailureHoldsTheMessageAndADefaultValue) {
  LayoutResult<std::vector<int>> result = makeValue(true);
  ASSERT_FALSE(result);
  EXPECT_FALSE(result.succeeded());
  EXPECT_EQ(result.error(), "it failed");
  EXPECT_TRUE(result->empty());
}

TEST(LayoutResultTest, VoidResultIsSuccessByDefault) {
  LayoutResult<void> success;
  EXPECT_TRUE(success);
  EXPECT_EQ(success.error(), "");
  LayoutResult<void> failure = LayoutError{"bad"};
  EXPECT_FALSE(failure);
  EXPECT_EQ(failure.error(), "bad");
}

} // namespace
