//===- TransposeDetectionTest.cpp - When shared-memory tiles pay ----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/TransposeDetection.h"

#include <gtest/gtest.h>

using namespace pointwise::layout;

namespace {

constexpr int64_t kUnknown = kUnknownStride;

TEST(TransposeDetectionTest, TransposedInputOfA2DAdd) {
  // c[i, j] = a[i, j] + b[j, i]: b is contiguous along dim 0.
  auto found = findTransposedInput({{64, 1}, {64, 1}, {1, 64}}, 1, 2);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->operand, 2u);
  EXPECT_EQ(found->dim, 0u);
}

TEST(TransposeDetectionTest, NchwPlusNhwcPicksTheChannelDim) {
  // Coalesced [N, C, HW]: the NHWC input is contiguous along C.
  auto found = findTransposedInput(
      {{802816, 3136, 1}, {802816, 3136, 1}, {802816, 1, 256}}, 1, 3);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->operand, 2u);
  EXPECT_EQ(found->dim, 1u);
}

TEST(TransposeDetectionTest, FirstQualifyingInputWins) {
  auto found = findTransposedInput({{8, 1}, {}, {1, 8}, {1, 8}}, 1, 2);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->operand, 2u);
}

TEST(TransposeDetectionTest, NothingWhenAnOutputIsNotContiguousLast) {
  EXPECT_FALSE(findTransposedInput({{1, 8}, {1, 8}}, 1, 2));
  EXPECT_FALSE(findTransposedInput({{kUnknown, kUnknown}, {1, 8}}, 1, 2));
  // Every output must be contiguous along the last dim.
  EXPECT_FALSE(findTransposedInput({{8, 1}, {1, 8}, {1, 8}}, 2, 2));
}

TEST(TransposeDetectionTest, BroadcastsAndContiguousInputsDoNotCount) {
  // A column broadcast (last stride 0) reads one element per row.
  EXPECT_FALSE(findTransposedInput({{8, 1}, {1, 0}}, 1, 2));
  // Same order as the output.
  EXPECT_FALSE(findTransposedInput({{8, 1}, {8, 1}}, 1, 2));
  // A strided input with no unit dim: nothing to stage.
  EXPECT_FALSE(findTransposedInput({{8, 1}, {16, 2}}, 1, 2));
}

TEST(TransposeDetectionTest, UnknownStridesNeverCountAsOne) {
  EXPECT_FALSE(
      findTransposedInput({{kUnknown, 1}, {kUnknown, kUnknown}}, 1, 2));
  // An unknown last stride is "not 1", a known 1 elsewhere qualifies.
  auto found = findTransposedInput({{kUnknown, 1}, {1, kUnknown}}, 1, 2);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->dim, 0u);
}

TEST(TransposeDetectionTest, RankBelowTwoAndMalformedInput) {
  EXPECT_FALSE(findTransposedInput({{1}, {1}}, 1, 1));
  EXPECT_FALSE(findTransposedInput({}, 1, 2));
  EXPECT_FALSE(findTransposedInput({{8, 1}, {1, 8}}, 0, 2));
  // Operands of the wrong rank are skipped, not read out of bounds.
  EXPECT_FALSE(findTransposedInput({{8, 1}, {1, 8, 64}}, 1, 2));
}

} // namespace
