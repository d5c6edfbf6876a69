//===- LayoutQueriesTest.cpp - pwPlanOutputLayout, pwCheckMapOverlap -----===//
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

TEST(PlanOutputLayout, NegativeSizesAreLayoutErrors) {
  // As in pwFamilyLaunch: a size is part of the layout (Runtime.h's table).
  Plan p = plan({{{3, -4}, {4, 1}}});
  EXPECT_EQ(p.status, PW_ERROR_LAYOUT);
  std::string message = pwGetLastErrorMessage();
  EXPECT_NE(message.find("negative size -4"), std::string::npos) << message;
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

/// One operand of a pwCheckMapOverlap packet.
struct PacketOperand {
  int64_t address, elementBytes, offset;
  std::vector<int64_t> sizes, strides;
};

/// The packet of a map with `numOutputs` outputs among `operands`.
std::vector<int64_t> packet(int64_t numOutputs,
                            const std::vector<PacketOperand> &operands) {
  std::vector<int64_t> words = {numOutputs,
                                static_cast<int64_t>(operands.size())};
  for (const PacketOperand &o : operands) {
    words.insert(words.end(), {o.address, o.elementBytes,
                               static_cast<int64_t>(o.sizes.size()), o.offset});
    words.insert(words.end(), o.sizes.begin(), o.sizes.end());
    words.insert(words.end(), o.strides.begin(), o.strides.end());
  }
  return words;
}

/// pwCheckMapOverlap on `words` passed as a memref<?xi64> descriptor whose
/// elements are `stride` apart, starting `offset` words into a buffer.
int32_t check(const std::vector<int64_t> &words, int64_t stride = 1,
              int64_t offset = 0) {
  // Never empty: an empty packet still has an address.
  std::vector<int64_t> buffer(offset + words.size() * stride + 1, -7);
  for (size_t i = 0; i < words.size(); ++i)
    buffer[offset + i * stride] = words[i];
  return pwCheckMapOverlap(buffer.data(), buffer.data(), offset,
                           static_cast<int64_t>(words.size()), stride);
}

TEST(CheckMapOverlap, DisjointViewsAndInPlacePass) {
  // out = a[4:8], in = a[0:4] of one float buffer at 0x1000.
  EXPECT_EQ(
      check(packet(1, {{0x1000, 4, 4, {4}, {1}}, {0x1000, 4, 0, {4}, {1}}})),
      1);
  // The same view read and written.
  EXPECT_EQ(
      check(packet(1, {{0x1000, 4, 4, {4}, {1}}, {0x1000, 4, 4, {4}, {1}}})),
      1);
  // A broadcast input (stride 0) in another buffer; rank 0 outputs.
  EXPECT_EQ(check(packet(
                1, {{0x1000, 4, 0, {2, 3}, {3, 1}}, {0x9000, 4, 0, {3}, {0}}})),
            1);
  EXPECT_EQ(check(packet(2, {{0x1000, 8, 0, {}, {}}, {0x1008, 8, 0, {}, {}}})),
            1);
}

TEST(CheckMapOverlap, ElementsOfStridedDescriptors) {
  // The packet's words 3 apart, 5 words into the buffer.
  EXPECT_EQ(
      check(packet(1, {{0x1000, 4, 4, {4}, {1}}, {0x1000, 4, 0, {4}, {1}}}), 3,
            5),
      1);
  EXPECT_EQ(
      check(packet(1, {{0x1000, 4, 1, {7}, {1}}, {0x1000, 4, 0, {7}, {1}}}), 3,
            5),
      0);
}

TEST(CheckMapOverlap, OverlapsAreReportedWithTheOperands) {
  // out = a[1:8], in = a[0:7].
  EXPECT_EQ(
      check(packet(1, {{0x1000, 4, 1, {7}, {1}}, {0x1000, 4, 0, {7}, {1}}})),
      0);
  std::string message = pwGetLastErrorMessage();
  EXPECT_NE(message.find("output operand #0 partially overlaps input "
                         "operand #1"),
            std::string::npos)
      << message;
  // Two outputs sharing elements.
  EXPECT_EQ(
      check(packet(2, {{0x1000, 4, 0, {4}, {1}}, {0x1000, 4, 2, {4}, {1}}})),
      0);
  message = pwGetLastErrorMessage();
  EXPECT_NE(message.find("output operands #0 and #1 overlap"),
            std::string::npos)
      << message;
  // Sizes 3x3 with strides 1x1.
  EXPECT_EQ(check(packet(1, {{0x1000, 4, 0, {3, 3}, {1, 1}}})), 0);
  message = pwGetLastErrorMessage();
  EXPECT_NE(message.find("output operand #0 overlaps itself"),
            std::string::npos)
      << message;
  // The same view with a row stride of 3 does not.
  EXPECT_EQ(check(packet(1, {{0x1000, 4, 0, {3, 3}, {3, 1}}})), 1);
}

TEST(CheckMapOverlap, MalformedPacketsAreErrors) {
  std::vector<int64_t> good =
      packet(1, {{0x1000, 4, 0, {4}, {1}}, {0x2000, 4, 0, {4}, {1}}});
  std::vector<std::vector<int64_t>> bad = {
      {},                               // no counts
      {1},                              // one count
      {2, 1, 0x1000, 4, 0, 0},          // 2 outputs of 1
      {1, -1},                          // negative count
      {1, 1, 0x1000, 0, 0, 0},          // 0-byte elements
      {1, 1, 0x1000, 4, -1, 0},         // negative rank
      {1, 1, 0x1000, 4, 2, 0, 3, 3, 1}, // a stride missing
      std::vector<int64_t>(good.begin(), good.end() - 1)};
  for (const std::vector<int64_t> &words : bad) {
    EXPECT_EQ(check(words), 0);
    EXPECT_NE(std::string(pwGetLastErrorMessage()).find("malformed"),
              std::string::npos)
        << pwGetLastErrorMessage();
  }
  std::vector<int64_t> extra = good;
  extra.push_back(0);
  EXPECT_EQ(check(extra), 0);
  EXPECT_NE(std::string(pwGetLastErrorMessage()).find("left over"),
            std::string::npos);
  EXPECT_EQ(pwCheckMapOverlap(nullptr, nullptr, 0, 2, 1), 0);
  // A negative size in an otherwise well-formed packet: the layout library's
  // own message.
  EXPECT_EQ(check(packet(1, {{0x1000, 4, 0, {-2}, {1}}})), 0);
  EXPECT_NE(std::string(pwGetLastErrorMessage()).find("operand #0"),
            std::string::npos)
      << pwGetLastErrorMessage();
  EXPECT_EQ(check(good), 1);
}

} // namespace
