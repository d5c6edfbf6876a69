//===- LayoutQueriesTest.cpp - pwPlanOutputLayout -------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

struct Plan {
  pwStatus status;
  std::vector<int64_t> shape, strides;
};

/// Plans for inputs given as (sizes, strides) pairs.
Plan plan(
    const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>
        &inputs) {
  std::vector<int32_t> ranks;
  std::vector<int64_t> sizes, strides;
  for (const auto &[s, t] : inputs) {
    ranks.push_back(static_cast<int32_t>(s.size()));
    sizes.insert(sizes.end(), s.begin(), s.end());
    strides.insert(strides.end(), t.begin(), t.end());
  }
  int32_t rank = -1;
  std::vector<int64_t> shape(8), out(8);
  pwStatus status = pwPlanOutputLayout(
      static_cast<int32_t>(inputs.size()), ranks.data(), sizes.data(),
      strides.data(), 8, &rank, shape.data(), out.data());
  if (status != PW_SUCCESS)
    return {status, {}, {}};
  shape.resize(rank);
  out.resize(rank);
  return {status, shape, out};
}

TEST(PlanOutputLayout, BroadcastsAndKeepsRowMajor) {
  Plan p = plan({{{3, 1}, {1, 1}}, {{4}, {1}}});
  ASSERT_EQ(p.status, PW_SUCCESS) << pwGetLastErrorMessage();
  EXPECT_EQ(p.shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(p.strides, (std::vector<int64_t>{4, 1}));
}

TEST(PlanOutputLayout, FollowsATransposedInput) {
  // a.T + b.T: the output is allocated transposed too.
  Plan p = plan({{{4, 3}, {1, 4}}, {{4, 3}, {1, 4}}});
  ASSERT_EQ(p.status, PW_SUCCESS);
  EXPECT_EQ(p.shape, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(p.strides, (std::vector<int64_t>{1, 4}));
}

TEST(PlanOutputLayout, ChannelsLast) {
  // An NHWC tensor (N=2, C=3, H=4, W=5) viewed as NCHW.
  Plan p = plan({{{2, 3, 4, 5}, {60, 1, 15, 3}}});
  ASSERT_EQ(p.status, PW_SUCCESS);
  EXPECT_EQ(p.strides, (std::vector<int64_t>{60, 1, 15, 3}));
}

TEST(PlanOutputLayout, RankZeroAndNoInputs) {
  Plan p = plan({{{}, {}}});
  ASSERT_EQ(p.status, PW_SUCCESS);
  EXPECT_TRUE(p.shape.empty());
  Plan none = plan({});
  ASSERT_EQ(none.status, PW_SUCCESS);
  EXPECT_TRUE(none.shape.empty());
}

TEST(PlanOutputLayout, ShapesThatDoNotBroadcast) {
  Plan p = plan({{{3, 4}, {4, 1}}, {{2, 4}, {4, 1}}});
  EXPECT_EQ(p.status, PW_ERROR_LAYOUT);
  std::string message = pwGetLastErrorMessage();
  EXPECT_NE(message.find("do not broadcast"), std::string::npos) << message;
  EXPECT_NE(message.find("size 3"), std::string::npos) << message;
}

TEST(PlanOutputLayout, BadArguments) {
  int32_t rank;
  int64_t shape[2], strides[2];
  EXPECT_EQ(pwPlanOutputLayout(1, nullptr, nullptr, nullptr, 2, &rank, shape,
                               strides),
            PW_ERROR_INVALID_VALUE);
  int32_t ranks[] = {3};
  int64_t sizes[] = {2, 2, 2}, inputStrides[] = {4, 2, 1};
  EXPECT_EQ(pwPlanOutputLayout(1, ranks, sizes, inputStrides, 2, &rank, shape,
                               strides),
            PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwGetLastErrorMessage()).find("capacity"),
            std::string::npos);
}

} // namespace
