//===- LayoutAnalysisTest.cpp - Tests of the one-call layout analysis -----===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/LayoutAnalysis.h"

#include "Pointwise/Layout/Broadcast.h"
#include "Pointwise/Layout/StrideOrder.h"

#include "RandomLayouts.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace pointwise::layout;
using namespace pointwise::layout::testing;

namespace {

using Ints = std::vector<int64_t>;
using Dims = std::vector<unsigned>;

/// Row-major strides of `sizes`.
Ints contiguous(const Ints &sizes) {
  Ints strides(sizes.size());
  int64_t inner = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = inner;
    inner *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

CoalescedLayout analyzeOrDie(const Ints &shape,
                             const std::vector<StridedLayout> &operands,
                             unsigned numOutputs) {
  LayoutResult<CoalescedLayout> result =
      analyzeLayout(shape, operands, numOutputs);
  EXPECT_TRUE(result) << result.error();
  return *result;
}

TEST(LayoutAnalysisTest, ContiguousAddIsRankOne) {
  Ints shape{8, 16, 32};
  StridedLayout dense{shape, contiguous(shape), 0};
  CoalescedLayout result = analyzeOrDie(shape, {dense, dense, dense}, 1);
  EXPECT_EQ(result.layout.sizes, (Ints{4096}));
  EXPECT_EQ(result.layout.strides, (Ints{1, 1, 1}));
}

TEST(LayoutAnalysisTest, ScalarInputMergesWithEverything) {
  Ints shape{8, 16};
  CoalescedLayout result =
      analyzeOrDie(shape, {{shape, contiguous(shape), 0}, {{}, {}, 3}}, 1);
  EXPECT_EQ(result.layout.sizes, (Ints{128}));
  EXPECT_EQ(result.layout.strides, (Ints{1, 0}));
  EXPECT_EQ(result.layout.offsets, (Ints{0, 3}));
}

TEST(LayoutAnalysisTest, RowBroadcastStaysRankTwo) {
  Ints shape{8, 16};
  CoalescedLayout result =
      analyzeOrDie(shape, {{shape, contiguous(shape), 0}, {{16}, {1}, 0}}, 1);
  EXPECT_EQ(result.layout.sizes, (Ints{8, 16}));
  EXPECT_EQ(result.layout.strides, (Ints{16, 1, 0, 1}));
}

TEST(LayoutAnalysisTest, ColumnBroadcastStaysRankTwo) {
  Ints shape{8, 16};
  CoalescedLayout result = analyzeOrDie(
      shape, {{shape, contiguous(shape), 0}, {{8, 1}, {1, 1}, 0}}, 1);
  EXPECT_EQ(result.layout.sizes, (Ints{8, 16}));
  EXPECT_EQ(result.layout.strides, (Ints{16, 1, 1, 0}));
}

TEST(LayoutAnalysisTest, AddOfTransposeStaysRankTwo) {
  // c = a + b.T where b is a contiguous 16x8 matrix.
  Ints shape{8, 16};
  StridedLayout dense{shape, contiguous(shape), 0};
  StridedLayout transposed{shape, {1, 8}, 0};
  CoalescedLayout result = analyzeOrDie(shape, {dense, dense, transposed}, 1);
  EXPECT_EQ(result.layout.sizes, (Ints{8, 16}));
  EXPECT_EQ(result.layout.strides, (Ints{16, 1, 16, 1, 1, 8}));
  EXPECT_EQ(result.permutation, (Dims{0, 1}));
}

TEST(LayoutAnalysisTest, TransposedOutputAndInputsMergeInMemoryOrder) {
  // c.T = a.T + b.T: all column-major, so the output's order makes them one
  // contiguous walk.
  Ints shape{8, 16};
  StridedLayout columnMajor{shape, {1, 8}, 0};
  CoalescedLayout result =
      analyzeOrDie(shape, {columnMajor, columnMajor, columnMajor}, 1);
  EXPECT_EQ(result.layout.sizes, (Ints{128}));
  EXPECT_EQ(result.permutation, (Dims{1, 0}));
  EXPECT_EQ(result.groupEnds, (Dims{2}));
}

TEST(LayoutAnalysisTest, NchwPlusNhwcIsABatchedTranspose) {
  // N=2, C=3, H=4, W=5: an NCHW output and input, and an NHWC input.
  Ints shape{2, 3, 4, 5};
  StridedLayout nchw{shape, contiguous(shape), 0};
  StridedLayout nhwc{shape, {60, 1, 15, 3}, 0};
  CoalescedLayout result = analyzeOrDie(shape, {nchw, nchw, nhwc}, 1);
  EXPECT_EQ(result.layout.sizes, (Ints{2, 3, 20}));
  EXPECT_EQ(result.layout.strides, (Ints{60, 20, 1, 60, 20, 1, 60, 1, 3}));
  EXPECT_EQ(result.permutation, (Dims{0, 1, 2, 3}));
  EXPECT_EQ(result.groupEnds, (Dims{1, 2, 4}));
}

TEST(LayoutAnalysisTest, EveryOtherElementOfAVectorIsRankOne) {
  // a[::2] of a contiguous vector of 20 elements.
  CoalescedLayout result =
      analyzeOrDie({10}, {{{10}, {1}, 0}, {{10}, {2}, 0}}, 1);
  EXPECT_EQ(result.layout.sizes, (Ints{10}));
  EXPECT_EQ(result.layout.strides, (Ints{1, 2}));
}

TEST(LayoutAnalysisTest, EveryOtherColumnOfAnEvenWidthMatrixIsRankOne) {
  // a[:, ::2] of a contiguous 6x8 matrix: row stride 8 == 4 columns * step 2,
  // so the slice is one uniform stride-2 walk.
  Ints shape{6, 4};
  CoalescedLayout result = analyzeOrDie(
      shape, {{shape, contiguous(shape), 0}, {shape, {8, 2}, 0}}, 1);
  EXPECT_EQ(result.layout.sizes, (Ints{24}));
  EXPECT_EQ(result.layout.strides, (Ints{1, 2}));
}

TEST(LayoutAnalysisTest, EveryOtherColumnOfAnOddWidthMatrixStaysRankTwo) {
  // a[:, ::2] of a contiguous 6x9 matrix: row stride 9 != 5 * 2.
  Ints shape{6, 5};
  CoalescedLayout result = analyzeOrDie(
      shape, {{shape, contiguous(shape), 0}, {shape, {9, 2}, 0}}, 1);
  EXPECT_EQ(result.layout.sizes, (Ints{6, 5}));
  EXPECT_EQ(result.layout.strides, (Ints{5, 1, 9, 2}));
}

TEST(LayoutAnalysisTest, RankFiveSliceMergesOnlyItsUniformRuns) {
  // x[:, 1:3, :, ::2, :] of a contiguous 2x4x3x8x5 tensor x (strides
  // 480, 120, 40, 5, 1), copied into a contiguous output of 2x2x3x4x5.
  Ints shape{2, 2, 3, 4, 5};
  StridedLayout slice{shape, {480, 120, 40, 10, 1}, 120};
  CoalescedLayout result =
      analyzeOrDie(shape, {{shape, contiguous(shape), 0}, slice}, 1);
  // Dims 1 to 3 merge: 3 * 40 == 120, and the stepped dim spans
  // 4 * 10 == 40. Dim 4 does not (5 * 1 != 10), nor does dim 0
  // (2 * 120 != 480).
  EXPECT_EQ(result.layout.sizes, (Ints{2, 24, 5}));
  EXPECT_EQ(result.layout.strides, (Ints{120, 5, 1, 480, 10, 1}));
  EXPECT_EQ(result.layout.offsets, (Ints{0, 120}));
  EXPECT_EQ(result.groupEnds, (Dims{1, 4, 5}));
}

TEST(LayoutAnalysisTest, ZeroDimensionalStaysRankZero) {
  CoalescedLayout result =
      analyzeOrDie({}, {{{}, {}, 5}, {{}, {}, 0}, {{}, {}, 2}}, 2);
  EXPECT_EQ(result.rank(), 0u);
  EXPECT_EQ(result.layout.offsets, (Ints{5, 0, 2}));
}

TEST(LayoutAnalysisTest, SizeZeroIsCanonicalRankOne) {
  Ints shape{4, 0, 3};
  CoalescedLayout result = analyzeOrDie(
      shape, {{shape, contiguous(shape), 0}, {{1, 3}, {3, 1}, 0}}, 1);
  EXPECT_EQ(result.layout.sizes, (Ints{0}));
  EXPECT_EQ(result.layout.strides, (Ints{1, 1}));
}

TEST(LayoutAnalysisTest, FlippedInputMergesWithNegativeStride) {
  // a[::-1, ::-1] of a contiguous 4x6 matrix starts at its last element.
  Ints shape{4, 6};
  CoalescedLayout result = analyzeOrDie(
      shape, {{shape, contiguous(shape), 0}, {shape, {-6, -1}, 23}}, 1);
  EXPECT_EQ(result.layout.sizes, (Ints{24}));
  EXPECT_EQ(result.layout.strides, (Ints{1, -1}));
  EXPECT_EQ(result.layout.offsets, (Ints{0, 23}));
}

TEST(LayoutAnalysisTest, SeveralOutputsMustAllAgreeToMerge) {
  Ints shape{4, 6};
  StridedLayout dense{shape, contiguous(shape), 0};
  StridedLayout transposed{shape, {1, 4}, 0};
  CoalescedLayout agreeing = analyzeOrDie(shape, {dense, dense, dense}, 2);
  EXPECT_EQ(agreeing.layout.sizes, (Ints{24}));
  // The first output decides the order; the second keeps it rank 2.
  CoalescedLayout disagreeing =
      analyzeOrDie(shape, {dense, transposed, dense}, 2);
  EXPECT_EQ(disagreeing.layout.sizes, (Ints{4, 6}));
  EXPECT_EQ(disagreeing.permutation, (Dims{0, 1}));
  CoalescedLayout transposedFirst =
      analyzeOrDie(shape, {transposed, dense, dense}, 2);
  EXPECT_EQ(transposedFirst.permutation, (Dims{1, 0}));
}

TEST(LayoutAnalysisTest, OutputShapeMismatchIsAnError) {
  LayoutResult<CoalescedLayout> result =
      analyzeLayout({4, 6}, {{{4, 5}, {5, 1}, 0}}, 1);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(),
            "output operand #0 has shape [4, 5] but the iteration shape is "
            "[4, 6]");
}

TEST(LayoutAnalysisTest, BroadcastMismatchIsAnError) {
  LayoutResult<CoalescedLayout> result =
      analyzeLayout({4, 6}, {{{4, 6}, {6, 1}, 0}, {{4}, {1}, 0}}, 1);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), "operand #1 dim 0 (size 4) does not broadcast to "
                            "size 6 of iteration dim 1");
}

/// The original dim indices of coalesced index `coalesced`, through the
/// permutation and the groups.
Ints originalIndex(const CoalescedLayout &coalesced, const Ints &shape,
                   const Ints &index) {
  Ints original(shape.size(), 0);
  unsigned begin = 0;
  for (unsigned j = 0; j < coalesced.rank(); ++j) {
    int64_t remainder = index[j];
    for (unsigned pos = coalesced.groupEnds[j]; pos-- > begin;) {
      unsigned dim = coalesced.permutation[pos];
      original[dim] = remainder % shape[dim];
      remainder /= shape[dim];
    }
    begin = coalesced.groupEnds[j];
  }
  return original;
}

TEST(LayoutAnalysisPropertyTest, CoalescedLayoutAddressesTheSameTuples) {
  RandomLayoutGenerator generator(0x5eed0001);
  for (int trial = 0; trial < 4000; ++trial) {
    RandomLaunch launch = generator.launch(6, 256);
    SCOPED_TRACE("trial " + std::to_string(trial));
    LayoutResult<CoalescedLayout> result = analyzeLayout(
        launch.iterationShape, launch.operands, launch.numOutputs);
    ASSERT_TRUE(result) << result.error();
    const CoalescedLayout &coalesced = *result;
    const IterationLayout &layout = coalesced.layout;
    const Ints &shape = launch.iterationShape;
    size_t numOperands = launch.operands.size();
    int64_t count = countElements(shape);
    ASSERT_EQ(countElements(layout.sizes), count);
    ASSERT_EQ(layout.numOperands(), numOperands);

    // Every coalesced index maps to a distinct original index with the same
    // operand offsets, and both spaces have the same size: a bijection that
    // preserves the (output, inputs...) tuples.
    std::vector<Ints> originalTuples, coalescedTuples;
    forEachIndex(shape, [&](const Ints &index) {
      Ints tuple;
      for (const StridedLayout &operand : launch.operands)
        tuple.push_back(referenceOffset(operand, index));
      originalTuples.push_back(tuple);
    });
    std::vector<bool> visited(count, false);
    forEachIndex(layout.sizes, [&](const Ints &index) {
      Ints tuple;
      for (unsigned op = 0; op < numOperands; ++op) {
        int64_t offset = layout.offsets[op];
        for (unsigned d = 0; d < layout.rank(); ++d)
          offset += index[d] * layout.stride(op, d);
        tuple.push_back(offset);
      }
      int64_t position =
          linearize(shape, originalIndex(coalesced, shape, index));
      ASSERT_FALSE(visited[position]);
      visited[position] = true;
      ASSERT_EQ(tuple, originalTuples[position]);
      coalescedTuples.push_back(tuple);
    });
    std::sort(originalTuples.begin(), originalTuples.end());
    std::sort(coalescedTuples.begin(), coalescedTuples.end());
    ASSERT_EQ(originalTuples, coalescedTuples);

    // The groups cover every position and multiply out to the new sizes.
    if (layout.rank() > 0) {
      ASSERT_EQ(coalesced.groupEnds.size(), layout.rank());
      ASSERT_EQ(coalesced.groupEnds.back(), shape.size());
      for (unsigned j = 0, begin = 0; j < layout.rank(); ++j) {
        int64_t product = 1;
        for (unsigned pos = begin; pos < coalesced.groupEnds[j]; ++pos)
          product *= shape[coalesced.permutation[pos]];
        ASSERT_EQ(product, count ? layout.sizes[j] : countElements(shape));
        begin = coalesced.groupEnds[j];
      }
    }

    // Coalescing is complete: no unit dims remain outside the canonical forms
    // and no two neighbors could merge further.
    if (count == 0) {
      ASSERT_EQ(layout.sizes, (Ints{0}));
      continue;
    }
    for (unsigned d = 0; d < layout.rank(); ++d)
      ASSERT_GT(layout.sizes[d], 1);
    for (unsigned d = 0; d + 1 < layout.rank(); ++d) {
      bool mergeable = true;
      for (unsigned op = 0; op < numOperands; ++op)
        mergeable &= layout.sizes[d + 1] * layout.stride(op, d + 1) ==
                     layout.stride(op, d);
      ASSERT_FALSE(mergeable) << "dims " << d << " and " << d + 1;
    }
  }
}

/// broadcastToIterationSpace, computeStrideOrder and coalesceDimensions one
/// after the other, each with its own checks: what analyzeLayout means.
LayoutResult<CoalescedLayout> analyzeStepByStep(const RandomLaunch &launch) {
  LayoutResult<IterationLayout> broadcast = broadcastToIterationSpace(
      launch.iterationShape, launch.operands, launch.numOutputs);
  if (!broadcast)
    return LayoutError{broadcast.error()};
  LayoutResult<std::vector<unsigned>> order = computeStrideOrder(*broadcast);
  if (!order)
    return LayoutError{order.error()};
  return coalesceDimensions(*broadcast, *order);
}

void expectSameAnalysis(const LayoutResult<CoalescedLayout> &expected,
                        const LayoutResult<void> &status,
                        const CoalescedLayout &result) {
  ASSERT_EQ(static_cast<bool>(status), static_cast<bool>(expected));
  if (!expected) {
    EXPECT_EQ(status.error(), expected.error());
    return;
  }
  EXPECT_EQ(result.layout.sizes, expected->layout.sizes);
  EXPECT_EQ(result.layout.strides, expected->layout.strides);
  EXPECT_EQ(result.layout.offsets, expected->layout.offsets);
  EXPECT_EQ(result.permutation, expected->permutation);
  EXPECT_EQ(result.groupEnds, expected->groupEnds);
}

TEST(LayoutAnalysisPropertyTest, IntoReusedStorageMatchesTheSteps) {
  // One result and one scratch for every launch, of every rank and operand
  // count, valid or not: nothing of an earlier launch may leak into a later
  // one, and both entry points give what the three steps give.
  RandomLayoutGenerator generator(0x5eed0002);
  CoalescedLayout result;
  LayoutAnalysisScratch scratch;
  int analyzed = 0, failed = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    RandomLaunch launch = generator.launch(6, 256);
    // Some invalid launches: an output of another shape, an input that does
    // not broadcast, a negative size, a missing stride.
    int broken =
        generator.chance(20) ? static_cast<int>(generator.uniform(0, 3)) : -1;
    if (broken >= 0 && !launch.operands.empty()) {
      StridedLayout &operand = launch.operands[static_cast<size_t>(
          generator.uniform(0, launch.operands.size() - 1))];
      if (broken == 0 || operand.rank() == 0) {
        operand.sizes.push_back(2);
        operand.strides.push_back(1);
      } else if (broken == 1) {
        operand.sizes[0] += 3;
      } else if (broken == 2) {
        operand.sizes[0] = -1;
      } else {
        operand.strides.pop_back();
      }
    }
    LayoutResult<CoalescedLayout> expected = analyzeStepByStep(launch);
    (expected ? analyzed : failed) += 1;
    LayoutResult<void> status =
        analyzeLayoutInto(launch.iterationShape, launch.operands,
                          launch.numOutputs, result, scratch);
    expectSameAnalysis(expected, status, result);
    LayoutResult<CoalescedLayout> byValue = analyzeLayout(
        launch.iterationShape, launch.operands, launch.numOutputs);
    ASSERT_EQ(static_cast<bool>(byValue), static_cast<bool>(expected));
    if (byValue)
      expectSameAnalysis(expected, LayoutResult<void>(), *byValue);
    else
      EXPECT_EQ(byValue.error(), expected.error());
  }
  EXPECT_GT(analyzed, 2000);
  EXPECT_GT(failed, 300);
}

TEST(LayoutAnalysisTest, IntoReportsTheSameErrors) {
  CoalescedLayout result;
  LayoutAnalysisScratch scratch;
  LayoutResult<void> status = analyzeLayoutInto(
      {4, 6}, {{{4, 6}, {6, 1}, 0}, {{4}, {1}, 0}}, 1, result, scratch);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error(), "operand #1 dim 0 (size 4) does not broadcast to "
                            "size 6 of iteration dim 1");
  status = analyzeLayoutInto({2}, {{{2}, {1}, 0}}, 3, result, scratch);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error(), "3 outputs among only 1 operands");
  status = analyzeLayoutInto({-1}, {}, 0, result, scratch);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error(), "iteration dim 0 has negative size -1");
}

} // namespace
