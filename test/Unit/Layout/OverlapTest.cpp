//===- OverlapTest.cpp - Tests of the output overlap checks ---------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/Overlap.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <set>

using namespace pointwise::layout;

namespace {

constexpr uint64_t kBase = 0x10000;

/// The element offset of every element of `layout`, one by one (none when
/// a size is 0): the brute force the randomized tests compare against.
std::vector<int64_t> elementOffsets(const StridedLayout &layout) {
  std::vector<int64_t> offsets;
  for (int64_t size : layout.sizes)
    if (size == 0)
      return offsets;
  std::vector<int64_t> index(layout.rank(), 0);
  while (true) {
    int64_t offset = layout.offset;
    for (unsigned d = 0; d < layout.rank(); ++d)
      offset += index[d] * layout.strides[d];
    offsets.push_back(offset);
    unsigned d = 0;
    while (d < layout.rank() && ++index[d] == layout.sizes[d])
      index[d++] = 0;
    if (d == layout.rank())
      return offsets;
  }
}

std::string overlapError(const std::vector<StridedLayout> &operands,
                         const std::vector<OperandBuffer> &buffers,
                         unsigned numOutputs) {
  LayoutResult<void> result = checkOutputOverlap(operands, buffers, numOutputs);
  EXPECT_FALSE(result);
  return result.error();
}

void expectNoOverlap(const std::vector<StridedLayout> &operands,
                     const std::vector<OperandBuffer> &buffers,
                     unsigned numOutputs) {
  LayoutResult<void> result = checkOutputOverlap(operands, buffers, numOutputs);
  EXPECT_TRUE(result) << result.error();
}

TEST(InternalOverlapTest, BroadcastOutputOverlapsItself) {
  LayoutResult<void> result = checkNoInternalOverlap({{4, 3}, {0, 1}, 0}, 2);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(),
            "output operand #2 overlaps itself: dim 0 has size 4 and stride 0");
}

TEST(InternalOverlapTest, StrideZeroIsFineOnUnitAndEmptyOutputs) {
  EXPECT_TRUE(checkNoInternalOverlap({{1, 3}, {0, 1}, 0}, 0));
  EXPECT_TRUE(checkNoInternalOverlap({{4, 0}, {0, 1}, 0}, 0));
  EXPECT_TRUE(checkNoInternalOverlap({{}, {}, 0}, 0));
}

TEST(InternalOverlapTest, StridesWhoseReachPasses64BitsProveNothing) {
  // 2^61 * 8 wraps to 0 in 64 bits, which made the strides look nested: the
  // offsets i * 2^61 + j * 2^62 meet modulo 2^64 (i = 2, j = 0 and i = 0,
  // j = 1), and the element-by-element check says so.
  int64_t big = int64_t(1) << 62, half = int64_t(1) << 61;
  LayoutResult<void> result =
      checkNoInternalOverlap({{9, 2}, {half, big}, 0}, 0);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().find("output operand #0 overlaps itself"),
            std::string::npos)
      << result.error();
}

TEST(InternalOverlapTest, StridesThatDoNotNestAreCheckedElementByElement) {
  // Offsets 0..3 twice over: (i, j) and (i + 1, j - 1) meet.
  LayoutResult<void> result = checkNoInternalOverlap({{2, 3}, {1, 1}, 5}, 1);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(),
            "output operand #1 overlaps itself: two of its elements are at "
            "element offset 6 (sizes [2, 3], strides [1, 1])");
  // 0, 2, 4 and 3, 5, 7: the strides do not nest, yet every offset differs.
  EXPECT_TRUE(checkNoInternalOverlap({{3, 2}, {2, 3}, 0}, 0));
  // Negative strides are compared by magnitude: offsets 0, -3 and 2, -1 ...
  EXPECT_TRUE(checkNoInternalOverlap({{2, 3}, {-3, 2}, 9}, 0));
  LayoutResult<void> negative = checkNoInternalOverlap({{3, 3}, {-2, 1}, 9}, 0);
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.error().find("overlaps itself"), std::string::npos);
}

TEST(InternalOverlapTest, NestedStridesPassWithoutAListing) {
  // Transposed, padded, sliced and flipped outputs of any size.
  EXPECT_TRUE(checkNoInternalOverlap({{1 << 20, 1 << 10}, {1, 1 << 20}, 0}, 0));
  EXPECT_TRUE(checkNoInternalOverlap({{1 << 20, 64}, {65, 1}, 0}, 0));
  EXPECT_TRUE(checkNoInternalOverlap({{1 << 20, 64}, {-128, -2}, 1 << 30}, 0));
  EXPECT_TRUE(checkNoInternalOverlap({{8, 1, 8}, {8, 0, 1}, 0}, 0));
}

TEST(InternalOverlapTest, LargeOutputsThatMayOverlapAreRejected) {
  LayoutResult<void> result =
      checkNoInternalOverlap({{1 << 10, 1 << 10}, {3, 2}, 0}, 0);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(),
            "output operand #0 may overlap itself and is too large to check "
            "element by element (1048576 elements; sizes [1024, 1024], "
            "strides [3, 2]): sorted by magnitude, each stride must exceed the "
            "largest offset of the dims with smaller strides");
}

TEST(InternalOverlapTest, MalformedOutputIsAnError) {
  LayoutResult<void> result = checkNoInternalOverlap({{4}, {}, 0}, 0);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), "operand #0 has 1 sizes but 0 strides");
}

TEST(OutputOverlapTest, DisjointBuffersAreFine) {
  StridedLayout dense{{4, 3}, {3, 1}, 0};
  expectNoOverlap({dense, dense, dense},
                  {{kBase, 4}, {kBase + 48, 4}, {kBase + 96, 4}}, 1);
}

TEST(OutputOverlapTest, AdjacentRangesDoNotOverlap) {
  // Bytes [0, 16) and [16, 32) of one allocation.
  StridedLayout vector{{4}, {1}, 0};
  StridedLayout next{{4}, {1}, 4};
  expectNoOverlap({vector, next}, {{kBase, 4}, {kBase, 4}}, 1);
}

TEST(OutputOverlapTest, InPlaceExactAliasIsAllowed) {
  // a[:, ::2] += b, with a strided and offset view.
  StridedLayout view{{4, 3}, {6, 2}, 1};
  expectNoOverlap({view, view, {{3}, {1}, 0}},
                  {{kBase, 4}, {kBase, 4}, {kBase + 1024, 4}}, 1);
}

TEST(OutputOverlapTest, AliasIgnoresUnitDimsAndTheirStrides) {
  // One vector as a [1, 4] output, as a rank-1 input, and as a [1, 4] input
  // whose unit dim has another (meaningless) stride.
  StridedLayout output{{1, 4}, {99, 1}, 2};
  expectNoOverlap({output, {{4}, {1}, 2}, {{1, 4}, {5, 1}, 2}},
                  {{kBase, 8}, {kBase, 8}, {kBase, 8}}, 1);
}

TEST(OutputOverlapTest, AliasThroughDifferentBasesIsStillAnAlias) {
  // The same first element reached from two base pointers.
  StridedLayout output{{4}, {1}, 0};
  StridedLayout input{{4}, {1}, 2};
  expectNoOverlap({output, input}, {{kBase + 8, 4}, {kBase, 4}}, 1);
}

TEST(OutputOverlapTest, ShiftedViewIsAPartialOverlap) {
  StridedLayout output{{4}, {1}, 0};
  StridedLayout input{{4}, {1}, 1};
  EXPECT_EQ(overlapError({output, input}, {{kBase, 4}, {kBase, 4}}, 1),
            "output operand #0 partially overlaps input operand #1; only exact "
            "aliasing (same address, element size, sizes and strides) is "
            "allowed");
}

TEST(OutputOverlapTest, TransposedSameMemoryIsAPartialOverlap) {
  // b = a.T in place on a square matrix is a race.
  StridedLayout output{{3, 3}, {3, 1}, 0};
  StridedLayout input{{3, 3}, {1, 3}, 0};
  EXPECT_FALSE(
      checkOutputOverlap({output, input}, {{kBase, 4}, {kBase, 4}}, 1));
}

TEST(OutputOverlapTest, BroadcastReadOfTheOutputIsAPartialOverlap) {
  // c[i, j] = c[0, j] + ...: row 0 is read by every row while written.
  StridedLayout output{{3, 4}, {4, 1}, 0};
  StridedLayout firstRow{{4}, {1}, 0};
  EXPECT_FALSE(
      checkOutputOverlap({output, firstRow}, {{kBase, 4}, {kBase, 4}}, 1));
}

TEST(OutputOverlapTest, DifferentElementSizesAreAPartialOverlap) {
  StridedLayout view{{4}, {1}, 0};
  EXPECT_FALSE(checkOutputOverlap({view, view}, {{kBase, 4}, {kBase, 2}}, 1));
}

TEST(OutputOverlapTest, FlippedInputOfTheSameBufferIsAPartialOverlap) {
  StridedLayout output{{4}, {1}, 0};
  StridedLayout reversed{{4}, {-1}, 3};
  EXPECT_FALSE(
      checkOutputOverlap({output, reversed}, {{kBase, 4}, {kBase, 4}}, 1));
}

TEST(OutputOverlapTest, TranslatesThatShareNoElementPass) {
  // a[::2] = f(a[1::2]): their ranges intersect, their elements do not.
  StridedLayout even{{4}, {2}, 0};
  StridedLayout odd{{4}, {2}, 1};
  expectNoOverlap({even, odd}, {{kBase, 4}, {kBase, 4}}, 1);
  expectNoOverlap({odd, even}, {{kBase, 4}, {kBase, 4}}, 1);
  // Two outputs the same way.
  expectNoOverlap({even, odd}, {{kBase, 4}, {kBase, 4}}, 2);
  // Column 0 of a 4x4 row-major matrix written from column 1, and with the
  // second operand's base 4 bytes further on instead of its offset.
  StridedLayout column0{{4}, {4}, 0};
  StridedLayout column1{{4}, {4}, 1};
  expectNoOverlap({column0, column1}, {{kBase, 4}, {kBase, 4}}, 1);
  expectNoOverlap({column0, column0}, {{kBase, 4}, {kBase + 4, 4}}, 1);
  // 2x2 blocks of a 4-wide matrix: [0, 1, 4, 5] against [2, 3, 6, 7].
  StridedLayout left{{2, 2}, {4, 1}, 0};
  StridedLayout right{{2, 2}, {4, 1}, 2};
  expectNoOverlap({left, right}, {{kBase, 4}, {kBase, 4}}, 1);
  // The odd elements reversed (7, 5, 3, 1) against the even ones; the order
  // of the dims does not matter either.
  StridedLayout oddReversed{{4}, {-2}, 7};
  expectNoOverlap({even, oddReversed}, {{kBase, 4}, {kBase, 4}}, 1);
  StridedLayout leftTransposed{{2, 2}, {1, 4}, 0};
  expectNoOverlap({leftTransposed, right}, {{kBase, 4}, {kBase, 4}}, 1);
}

TEST(OutputOverlapTest, TranslatesThatShareAnElementFail) {
  // [0, 1, 4, 5] against [3, 4, 7, 8]: both have element 4.
  StridedLayout left{{2, 2}, {4, 1}, 0};
  StridedLayout shifted{{2, 2}, {4, 1}, 3};
  EXPECT_EQ(overlapError({left, shifted}, {{kBase, 4}, {kBase, 4}}, 1),
            "output operand #0 partially overlaps input operand #1; only "
            "exact aliasing (same address, element size, sizes and strides) "
            "is allowed");
  EXPECT_FALSE(
      checkOutputOverlap({left, shifted}, {{kBase, 4}, {kBase, 4}}, 2));
  // Even elements against the even elements reversed: the same set, but
  // not the same element at each index.
  StridedLayout even{{4}, {2}, 0};
  StridedLayout evenReversed{{4}, {-2}, 6};
  EXPECT_FALSE(
      checkOutputOverlap({even, evenReversed}, {{kBase, 4}, {kBase, 4}}, 1));
}

TEST(OutputOverlapTest, TranslatesAgreeWithTheirElements) {
  // Random small layouts and a translate of each: the check passes exactly
  // when no element of one is an element of the other (outputs whose own
  // elements repeat are left out: that check comes first).
  std::mt19937 random(7);
  auto pick = [&](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(random);
  };
  int passed = 0, failed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    StridedLayout output;
    int rank = pick(1, 3);
    for (int d = 0; d < rank; ++d) {
      output.sizes.push_back(pick(1, 5));
      output.strides.push_back(pick(-9, 9));
    }
    output.offset = 60;
    if (!checkNoInternalOverlap(output, 0))
      continue;
    StridedLayout input = output;
    input.offset += pick(-40, 40);
    std::set<int64_t> outputElements;
    for (int64_t offset : elementOffsets(output))
      outputElements.insert(offset);
    bool shared = false;
    for (int64_t offset : elementOffsets(input))
      shared |= outputElements.count(offset) != 0;
    bool exactAlias = input.offset == output.offset;
    LayoutResult<void> result =
        checkOutputOverlap({output, input}, {{kBase, 4}, {kBase, 4}}, 1);
    EXPECT_EQ(static_cast<bool>(result), !shared || exactAlias)
        << "sizes " << formatShape(output.sizes) << " strides "
        << formatShape(output.strides) << ", offsets " << output.offset
        << " and " << input.offset;
    (result ? passed : failed)++;
  }
  // Both outcomes occur.
  EXPECT_GT(passed, 300);
  EXPECT_GT(failed, 300);
}

TEST(OutputOverlapTest, AnyTwoViewsNeverPassWhenTheyShareAByte) {
  // Random small layouts of random element sizes and bases: whenever an
  // element of the output shares a byte with an element of the other
  // operand (and the two are not an exact alias), the check fails. Views
  // whose byte ranges intersect pass often enough to exercise the residue
  // and translate rules.
  std::mt19937 random(11);
  auto pick = [&](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(random);
  };
  auto randomLayout = [&] {
    StridedLayout layout;
    int rank = pick(0, 3);
    for (int d = 0; d < rank; ++d) {
      layout.sizes.push_back(pick(1, 4));
      layout.strides.push_back(pick(-8, 8));
    }
    layout.offset = 40;
    return layout;
  };
  auto bytesOf = [](const StridedLayout &layout, const OperandBuffer &buffer) {
    std::set<uint64_t> bytes;
    for (int64_t offset : elementOffsets(layout))
      for (int64_t byte = 0; byte < buffer.elementByteSize; ++byte)
        bytes.insert(buffer.baseAddress + offset * buffer.elementByteSize +
                     byte);
    return bytes;
  };
  const int64_t elementSizes[] = {1, 2, 4, 8};
  int passedWithIntersectingRanges = 0, shared = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    StridedLayout output = randomLayout(), other = randomLayout();
    if (!checkNoInternalOverlap(output, 0))
      continue;
    OperandBuffer outputBuffer{kBase, elementSizes[pick(0, 3)]};
    OperandBuffer otherBuffer{kBase + pick(-24, 24), elementSizes[pick(0, 3)]};
    std::set<uint64_t> outputBytes = bytesOf(output, outputBuffer);
    std::set<uint64_t> otherBytes = bytesOf(other, otherBuffer);
    bool sharesAByte = false;
    for (uint64_t byte : otherBytes)
      sharesAByte |= outputBytes.count(byte) != 0;
    bool rangesIntersect = !outputBytes.empty() && !otherBytes.empty() &&
                           *outputBytes.begin() <= *otherBytes.rbegin() &&
                           *otherBytes.begin() <= *outputBytes.rbegin();
    for (unsigned numOutputs : {1u, 2u}) {
      if (numOutputs == 2 && !checkNoInternalOverlap(other, 1))
        continue;
      LayoutResult<void> result = checkOutputOverlap(
          {output, other}, {outputBuffer, otherBuffer}, numOutputs);
      if (!sharesAByte) {
        passedWithIntersectingRanges += result && rangesIntersect;
        continue;
      }
      ++shared;
      // Only an input that is the same view of the same bytes may pass.
      bool sameView =
          numOutputs == 1 &&
          outputBuffer.elementByteSize == otherBuffer.elementByteSize &&
          outputBytes == otherBytes;
      if (result) {
        EXPECT_TRUE(sameView)
            << numOutputs << " outputs; sizes " << formatShape(output.sizes)
            << " and " << formatShape(other.sizes) << ", strides "
            << formatShape(output.strides) << " and "
            << formatShape(other.strides) << ", bases "
            << outputBuffer.baseAddress << " and " << otherBuffer.baseAddress
            << ", element sizes " << outputBuffer.elementByteSize << " and "
            << otherBuffer.elementByteSize;
      }
    }
  }
  EXPECT_GT(shared, 1000);
  EXPECT_GT(passedWithIntersectingRanges, 300);
}

TEST(OutputOverlapTest, TranslatesWithTheMostNegativeStride) {
  // Elements {0, 1, -2^63, -2^63 + 1} and {1, 2, -2^63 + 1, -2^63 + 2} of
  // one-byte elements from a base of 2^63: they share two (the stride's
  // magnitude, 2^63, does not fit in int64).
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  StridedLayout a{{2, 2}, {kMin, 1}, 0};
  StridedLayout b{{2, 2}, {kMin, 1}, 1};
  OperandBuffer buffer{uint64_t(1) << 63, 1};
  EXPECT_FALSE(checkOutputOverlap({a, b}, {buffer, buffer}, 1));
  EXPECT_FALSE(checkOutputOverlap({a, b}, {buffer, buffer}, 2));
  // Two apart instead of one: {2, 3, -2^63 + 2, -2^63 + 3} shares nothing.
  StridedLayout c{{2, 2}, {kMin, 1}, 2};
  expectNoOverlap({a, c}, {buffer, buffer}, 1);
}

TEST(OutputOverlapTest, ViewsApartModuloTheirStridesPass) {
  // (0, 2, 4, 6) written from (1, 5): not translates, but every even element
  // is 4 bytes off the odd ones modulo 8, the gcd of their byte strides.
  StridedLayout even{{4}, {2}, 0};
  StridedLayout sparse{{2}, {4}, 1};
  expectNoOverlap({even, sparse}, {{kBase, 4}, {kBase, 4}}, 1);
  expectNoOverlap({sparse, even}, {{kBase, 4}, {kBase, 4}}, 2);
  // The high f16 halves of 8 f32 words (bytes 2-3 of every 4) written from
  // the words' lowest bytes read as u8: different element sizes and strides.
  StridedLayout highHalves{{8}, {2}, 1};
  StridedLayout lowestBytes{{8}, {4}, 0};
  expectNoOverlap({highHalves, lowestBytes}, {{kBase, 2}, {kBase, 1}}, 1);
  // A column of a 4x6 f64 matrix written from the low f32 halves of the
  // next column: 8 bytes on, modulo 48.
  StridedLayout column{{4}, {6}, 0};
  StridedLayout nextColumnLowHalves{{4}, {12}, 2};
  expectNoOverlap({column, nextColumnLowHalves}, {{kBase, 8}, {kBase, 4}}, 1);
  // The f32 halves one earlier are the high halves of column 0.
  StridedLayout highHalvesOfColumn{{4}, {12}, 1};
  EXPECT_FALSE(checkOutputOverlap({column, highHalvesOfColumn},
                                  {{kBase, 8}, {kBase, 4}}, 1));
}

TEST(OutputOverlapTest, OtherIntersectingRangesAreConservativelyRejected) {
  // Disjoint elements, (0, 3, 6, 9) and (4, 5), but not translates and with
  // a gcd of 1 element between their strides.
  StridedLayout everyThird{{4}, {3}, 0};
  StridedLayout pair{{2}, {1}, 4};
  EXPECT_FALSE(
      checkOutputOverlap({everyThird, pair}, {{kBase, 4}, {kBase, 4}}, 1));
  // Translates by half an element: their bytes straddle.
  StridedLayout even{{4}, {2}, 0};
  StridedLayout odd{{4}, {2}, 0};
  EXPECT_FALSE(
      checkOutputOverlap({even, odd}, {{kBase, 4}, {kBase + 6, 4}}, 1));
  // Translates of different element sizes.
  EXPECT_FALSE(
      checkOutputOverlap({even, odd}, {{kBase, 4}, {kBase + 4, 2}}, 1));
}

TEST(OutputOverlapTest, OutputsMustNotOverlapEachOther) {
  StridedLayout view{{4}, {1}, 0};
  EXPECT_EQ(overlapError({view, view}, {{kBase, 4}, {kBase, 4}}, 2),
            "output operands #0 and #1 overlap in memory");
}

TEST(OutputOverlapTest, InternalOverlapIsReportedFirst) {
  StridedLayout broadcast{{4}, {0}, 0};
  EXPECT_EQ(overlapError({broadcast, broadcast}, {{kBase, 4}, {kBase, 4}}, 1),
            "output operand #0 overlaps itself: dim 0 has size 4 and stride 0");
}

TEST(OutputOverlapTest, EmptyOperandsOverlapNothing) {
  StridedLayout output{{0, 4}, {4, 1}, 0};
  StridedLayout input{{4}, {1}, 0};
  expectNoOverlap({output, input}, {{kBase, 4}, {kBase, 4}}, 1);
}

TEST(OutputOverlapTest, InputsMayOverlapEachOther) {
  StridedLayout view{{4}, {1}, 0};
  expectNoOverlap({view, view, {{4}, {1}, 1}},
                  {{kBase + 1024, 4}, {kBase, 4}, {kBase, 4}}, 1);
}

TEST(OutputOverlapTest, AddressOutsideTheAddressSpaceIsAnError) {
  StridedLayout below{{4}, {-1}, 0};
  EXPECT_EQ(overlapError({below}, {{8, 4}}, 1),
            "operand #0 addresses memory outside the 64-bit address space");
  StridedLayout above{{4}, {1}, 0};
  EXPECT_EQ(overlapError({above}, {{UINT64_MAX - 4, 4}}, 1),
            "operand #0 addresses memory outside the 64-bit address space");
}

TEST(OutputOverlapTest, MismatchedArgumentsAreErrors) {
  StridedLayout view{{4}, {1}, 0};
  EXPECT_EQ(overlapError({view, view}, {{kBase, 4}}, 1),
            "1 buffers for 2 operands");
  EXPECT_EQ(overlapError({view}, {{kBase, 4}}, 2),
            "2 outputs among only 1 operands");
  EXPECT_EQ(overlapError({view}, {{kBase, 0}}, 1),
            "operand #0 has element size 0 bytes; it must be positive");
}

} // namespace
