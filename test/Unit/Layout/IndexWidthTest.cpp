//===- IndexWidthTest.cpp - Tests of 32-bit indexability and splitting ----===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/IndexWidth.h"

#include "Pointwise/Layout/LayoutAnalysis.h"

#include "RandomLayouts.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace pointwise::layout;
using namespace pointwise::layout::testing;

namespace {

using Ints = std::vector<int64_t>;

IndexWidth indexWidthOrDie(const IterationLayout &layout,
                           int64_t indexLimit = kMax32BitIndex) {
  LayoutResult<IndexWidth> result = computeIndexWidth(layout, indexLimit);
  EXPECT_TRUE(result) << result.error();
  return *result;
}

std::vector<IndexChunk> splitOrDie(const IterationLayout &layout,
                                   int64_t indexLimit = kMax32BitIndex) {
  LayoutResult<std::vector<IndexChunk>> result =
      splitFor32BitIndexing(layout, indexLimit);
  EXPECT_TRUE(result) << result.error();
  return *result;
}

/// The layout of `chunk` launched on rebased pointers (offset 0).
IterationLayout rebasedChunk(const IterationLayout &layout,
                             const IndexChunk &chunk) {
  return {chunk.sizes, layout.strides, Ints(layout.numOperands(), 0)};
}

TEST(IndexWidthTest, SmallContiguousTensorIs32Bit) {
  EXPECT_EQ(IndexWidth::Bits32,
            indexWidthOrDie({{1024, 1024}, {1024, 1, 0, 1}, {0, 0}}));
}

TEST(IndexWidthTest, LastElementOffsetMustFit) {
  // Every other element of 2^31: the last offset is 2^31 - 2. The kernels
  // scale offsets by the element size after widening them, so over floats
  // that view spans 8 GiB and is still one 32-bit launch.
  int64_t n = int64_t(1) << 30;
  EXPECT_EQ(IndexWidth::Bits32, indexWidthOrDie({{n}, {2}, {0}}));
  EXPECT_EQ(IndexWidth::Bits64, indexWidthOrDie({{n + 1}, {2}, {0}}));
  // One step of INT32_MAX elements fits, one more element does not.
  EXPECT_EQ(IndexWidth::Bits32, indexWidthOrDie({{2}, {kMax32BitIndex}, {0}}));
  EXPECT_EQ(IndexWidth::Bits64,
            indexWidthOrDie({{2}, {kMax32BitIndex + 1}, {0}}));
}

TEST(IndexWidthTest, ElementCountMustFit) {
  // Every offset fits (the input is a broadcast scalar), the count not.
  int64_t n = int64_t(1) << 31;
  EXPECT_EQ(IndexWidth::Bits64, indexWidthOrDie({{n}, {0}, {0}}));
  EXPECT_EQ(IndexWidth::Bits32, indexWidthOrDie({{n - 1}, {0}, {0}}));
}

TEST(IndexWidthTest, OffsetCountsUnlessRebased) {
  IterationLayout layout{{16}, {1}, {int64_t(1) << 31}};
  EXPECT_EQ(IndexWidth::Bits64, indexWidthOrDie(layout));
  // Rebased on its first element, the same view is one small chunk.
  std::vector<IndexChunk> chunks = splitOrDie(layout);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].start, (Ints{0}));
  EXPECT_EQ(chunks[0].sizes, (Ints{16}));
  EXPECT_EQ(chunks[0].offsetAdjustments, (Ints{0}));
}

TEST(IndexWidthTest, NegativeStridesCountByMagnitude) {
  int64_t n = int64_t(1) << 30;
  EXPECT_EQ(IndexWidth::Bits32, indexWidthOrDie({{n}, {-2}, {0}}));
  EXPECT_EQ(IndexWidth::Bits64, indexWidthOrDie({{n + 1}, {-2}, {0}}));
  // A flipped view starting at its last element: the conservative bound adds
  // the offset to the walk, so only rebasing makes it 32-bit.
  EXPECT_EQ(IndexWidth::Bits64, indexWidthOrDie({{n + 1}, {-1}, {n}}));
  EXPECT_EQ(splitOrDie({{n + 1}, {-1}, {n}}).size(), 1u);
}

TEST(IndexWidthTest, OverflowingExtentIs64Bit) {
  EXPECT_EQ(IndexWidth::Bits64, indexWidthOrDie({{3}, {INT64_MAX}, {0}}));
  EXPECT_EQ(IndexWidth::Bits64, indexWidthOrDie({{3}, {INT64_MIN}, {0}}));
}

TEST(IndexWidthTest, EmptySpaceIs32BitAndHasNoChunks) {
  IterationLayout layout{{0, int64_t(1) << 40}, {1, 1}, {0}};
  EXPECT_EQ(IndexWidth::Bits32, indexWidthOrDie(layout));
  EXPECT_TRUE(splitOrDie(layout).empty());
}

TEST(IndexWidthTest, RankZeroIsOneChunk) {
  IterationLayout layout{{}, {}, {int64_t(1) << 40, 3}};
  EXPECT_EQ(IndexWidth::Bits64, indexWidthOrDie(layout));
  std::vector<IndexChunk> chunks = splitOrDie(layout);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_TRUE(chunks[0].sizes.empty());
  EXPECT_EQ(chunks[0].offsetAdjustments, (Ints{0, 0}));
}

TEST(IndexWidthTest, FiveBillionElementsSplitIntoThreeChunks) {
  // A contiguous output and a broadcast scalar input.
  int64_t n = 5000000000;
  IterationLayout layout{{n}, {1, 0}, {0, 0}};
  EXPECT_EQ(IndexWidth::Bits64, indexWidthOrDie(layout));
  std::vector<IndexChunk> chunks = splitOrDie(layout);
  // INT32_MAX elements is the most one chunk can count.
  int64_t chunk = kMax32BitIndex;
  ASSERT_EQ(chunks.size(), 3u);
  for (int64_t c = 0; c < 3; ++c) {
    EXPECT_EQ(chunks[c].start, (Ints{c * chunk}));
    EXPECT_EQ(chunks[c].offsetAdjustments, (Ints{c * chunk, 0}));
  }
  EXPECT_EQ(chunks[0].sizes, (Ints{chunk}));
  EXPECT_EQ(chunks[2].sizes, (Ints{n - 2 * chunk}));
}

TEST(IndexWidthTest, SingleDimTooLargeIsSplitInside) {
  // Three rows of three billion elements: each row alone is too large.
  int64_t n = 3000000000;
  IterationLayout layout{{3, n}, {n, 1}, {0}};
  std::vector<IndexChunk> chunks = splitOrDie(layout);
  ASSERT_EQ(chunks.size(), 6u);
  for (int64_t row = 0; row < 3; ++row) {
    const IndexChunk &first = chunks[2 * row];
    const IndexChunk &second = chunks[2 * row + 1];
    EXPECT_EQ(first.start, (Ints{row, 0}));
    EXPECT_EQ(first.sizes, (Ints{1, kMax32BitIndex}));
    EXPECT_EQ(first.offsetAdjustments, (Ints{row * n}));
    EXPECT_EQ(second.start, (Ints{row, kMax32BitIndex}));
    EXPECT_EQ(second.sizes, (Ints{1, n - kMax32BitIndex}));
    EXPECT_EQ(second.offsetAdjustments, (Ints{row * n + kMax32BitIndex}));
  }
}

TEST(IndexWidthTest, TransposeOfAHugeMatrixNeedsFewChunks) {
  // out = in.T for a 3000 x 1000000 float matrix: splitting only one dim
  // would need a chunk per row of one operand; splitting both balances it.
  IterationLayout layout{{1000000, 3000}, {3000, 1, 1, 1000000}, {0, 0}};
  std::vector<IndexChunk> chunks = splitOrDie(layout);
  // Chunks of 715828 x 2147: both operands' reach just under 2^31 elements
  // (2,147,483,146 and 2,146,715,827).
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(chunks[0].sizes, (Ints{715828, 2147}));
  int64_t covered = 0;
  for (const IndexChunk &chunk : chunks) {
    EXPECT_EQ(IndexWidth::Bits32, indexWidthOrDie(rebasedChunk(layout, chunk)));
    covered += chunk.sizes[0] * chunk.sizes[1];
  }
  EXPECT_EQ(covered, int64_t(3000) * 1000000);
}

TEST(IndexWidthTest, StrideWithoutMagnitudeIsSplitToSingleSteps) {
  // |INT64_MIN| does not fit in int64: that dim can only be walked in
  // chunks of one.
  IterationLayout layout{{2, 3}, {INT64_MIN, 1}, {0}};
  std::vector<IndexChunk> chunks = splitOrDie(layout);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[1].start, (Ints{1, 0}));
  EXPECT_EQ(chunks[1].sizes, (Ints{1, 3}));
  EXPECT_EQ(chunks[1].offsetAdjustments, (Ints{INT64_MIN}));
}

TEST(IndexWidthTest, LimitUpToInt64MaxDoesNotOverflow) {
  IterationLayout layout{{INT64_MAX / 2}, {1}, {0}};
  std::vector<IndexChunk> chunks = splitOrDie(layout, INT64_MAX);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].sizes, (Ints{INT64_MAX / 2}));
}

TEST(IndexWidthTest, TooManyChunksIsAnError) {
  LayoutResult<std::vector<IndexChunk>> result =
      splitFor32BitIndexing({{INT64_MAX}, {0}, {0}});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(),
            "splitting for 32-bit indexing needs more than 1048576 chunks");
}

TEST(IndexWidthTest, NonPositiveLimitIsAnError) {
  LayoutResult<IndexWidth> result = computeIndexWidth({{4}, {1}, {0}}, 0);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), "index limit 0 must be positive");
}

TEST(IndexWidthPropertyTest, ChunksCoverEveryIndexOnceAndEachFits) {
  RandomLayoutGenerator generator(0x5eed0002);
  int splitLaunches = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    RandomLaunch launch = generator.launch(5, 256);
    LayoutResult<CoalescedLayout> coalesced = analyzeLayout(
        launch.iterationShape, launch.operands, launch.numOutputs);
    ASSERT_TRUE(coalesced) << coalesced.error();
    const IterationLayout &layout = coalesced->layout;
    int64_t limit = generator.uniform(4, 120);

    std::vector<IndexChunk> chunks = splitOrDie(layout, limit);
    IterationLayout rebased{layout.sizes, layout.strides,
                            Ints(layout.numOperands(), 0)};
    if (indexWidthOrDie(rebased, limit) == IndexWidth::Bits32) {
      ASSERT_EQ(chunks.size(), countElements(layout.sizes) ? 1u : 0u);
    } else {
      ++splitLaunches;
    }

    std::vector<int> hits(countElements(layout.sizes), 0);
    for (const IndexChunk &chunk : chunks) {
      ASSERT_EQ(chunk.start.size(), layout.rank());
      ASSERT_EQ(chunk.sizes.size(), layout.rank());
      ASSERT_GT(countElements(chunk.sizes), 0);
      ASSERT_LE(countElements(chunk.sizes), limit);
      for (unsigned op = 0; op < layout.numOperands(); ++op) {
        // The documented bound, computed here from its definition.
        int64_t reach = 0, adjustment = 0;
        for (unsigned d = 0; d < layout.rank(); ++d) {
          reach += (chunk.sizes[d] - 1) * std::abs(layout.stride(op, d));
          adjustment += chunk.start[d] * layout.stride(op, d);
        }
        ASSERT_LE(reach, limit);
        ASSERT_EQ(chunk.offsetAdjustments[op], adjustment);
      }
      forEachIndex(chunk.sizes, [&](const Ints &local) {
        Ints index(layout.rank());
        for (unsigned d = 0; d < layout.rank(); ++d) {
          index[d] = chunk.start[d] + local[d];
          ASSERT_LT(index[d], layout.sizes[d]);
        }
        ++hits[linearize(layout.sizes, index)];
      });
    }
    for (int hit : hits)
      ASSERT_EQ(hit, 1);
  }
  // The limits are small enough that most launches really split.
  EXPECT_GT(splitLaunches, 500);
}

} // namespace
