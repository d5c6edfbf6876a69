//===- BFloat16Test.cpp - Tests of the exported bf16 conversions ----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// libPointwiseRuntime exports __truncsfbf2 and __truncdfbf2 for compiled host
// code. They are called here through BFloat16Callers.ll, compiled by llc, so
// the calls use the ABI LLVM's code uses (argument in xmm0, the bf16 result in
// the low 16 bits of xmm0), and checked against a reference that searches for
// the nearest bf16 value.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

extern "C" {
uint16_t pwTestTruncFloatToBFloat16(float value);
uint16_t pwTestTruncDoubleToBFloat16(double value);
}

namespace {

float floatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

double doubleFromBits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// The value of the non-negative bf16 magnitude `code` (0 .. 0x7f80), where
/// 0x7f80 stands for 2^128, the next power of two after the largest finite
/// value: a value that rounds to it is infinite.
double magnitudeValue(uint32_t code) {
  if (code == 0x7f80)
    return std::ldexp(1.0, 128);
  return floatFromBits(code << 16);
}

/// The bf16 nearest to the finite `value`, ties to even, by binary search for
/// the bf16 magnitudes around it and an exact comparison with their midpoint
/// (bf16 values and their midpoints are exact in a double).
uint16_t referenceRound(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  double magnitude = std::fabs(value);
  // The largest code whose value is <= magnitude, in [0, 0x7f80].
  uint32_t low = 0, high = 0x7f80;
  if (magnitude >= magnitudeValue(high))
    return sign | 0x7f80;
  while (high - low > 1) {
    uint32_t middle = (low + high) / 2;
    if (magnitudeValue(middle) <= magnitude)
      low = middle;
    else
      high = middle;
  }
  double below = magnitudeValue(low), above = magnitudeValue(low + 1);
  double midpoint = (below + above) / 2;
  uint32_t code = magnitude < midpoint   ? low
                  : magnitude > midpoint ? low + 1
                  : (low % 2 == 0)       ? low
                                         : low + 1;
  return static_cast<uint16_t>(sign | code);
}

bool isBFloat16NaN(uint16_t bits) {
  return (bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0;
}

TEST(BFloat16Test, FloatValues) {
  struct Case {
    uint32_t input;
    uint16_t expected;
  };
  const Case cases[] = {
      {0x3f800000, 0x3f80}, // 1
      {0xc0200000, 0xc020}, // -2.5
      {0x00000000, 0x0000}, // 0
      {0x80000000, 0x8000}, // -0
      // Halfway: to the even neighbour, down or up; past halfway: up.
      {0x3f808000, 0x3f80},
      {0x3f818000, 0x3f82},
      {0x3f808001, 0x3f81},
      {0x3f807fff, 0x3f80},
      {0xbf818000, 0xbf82},
      // Infinities, and overflow to them.
      {0x7f800000, 0x7f80},
      {0xff800000, 0xff80},
      {0x7f7fffff, 0x7f80}, // FLT_MAX
      {0x7f7f8000, 0x7f80}, // halfway above the largest bf16, odd: up
      {0x7f7f7fff, 0x7f7f},
      {0xff7f8000, 0xff80},
      // Subnormals, and the one that rounds up to the smallest normal.
      {0x00000001, 0x0000},
      {0x00008000, 0x0000},
      {0x00008001, 0x0001},
      {0x00018000, 0x0002},
      {0x00010000, 0x0001},
      {0x007fffff, 0x0080},
      {0x807f0000, 0x807f},
      // NaNs stay NaNs, quiet, with their sign and the top of the payload.
      {0x7fc00000, 0x7fc0},
      {0xffc00000, 0xffc0},
      {0x7f800001, 0x7fc0}, // a payload only in the low bits is no infinity
      {0xffa00000, 0xffe0},
      {0x7f9f0000, 0x7fdf},
  };
  for (const Case &test : cases)
    EXPECT_EQ(pwTestTruncFloatToBFloat16(floatFromBits(test.input)),
              test.expected)
        << std::hex << "input 0x" << test.input;
}

TEST(BFloat16Test, DoubleValues) {
  struct Case {
    double input;
    uint16_t expected;
  };
  const double inf = std::numeric_limits<double>::infinity();
  const Case cases[] = {
      {1.0, 0x3f80},
      {-2.5, 0xc020},
      {0.0, 0x0000},
      {-0.0, 0x8000},
      {1.0 + std::ldexp(1.0, -8), 0x3f80}, // halfway: to even
      {1.0 + 3 * std::ldexp(1.0, -8), 0x3f82},
      // Just above halfway, where rounding to float first would land on the
      // halfway point and then round to even: rounded once, it goes up.
      {1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30), 0x3f81},
      {1.0 + std::ldexp(1.0, -8) - std::ldexp(1.0, -40), 0x3f80},
      {inf, 0x7f80},
      {-inf, 0xff80},
      {1e300, 0x7f80},
      {-1e39, 0xff80},
      {std::ldexp(255.0, 120), 0x7f7f},  // the largest finite bf16
      {std::ldexp(511.0, 119), 0x7f80},  // halfway above it: up
      {std::ldexp(1021.0, 118), 0x7f7f}, // below halfway
      {std::ldexp(1.0, -126), 0x0080},   // the smallest normal
      {std::ldexp(1.0, -133), 0x0001},   // the smallest subnormal
      {std::ldexp(1.0, -134), 0x0000},   // halfway to it: to even
      {std::ldexp(1.0, -134) + std::ldexp(1.0, -180), 0x0001},
      {std::ldexp(3.0, -134), 0x0002}, // 1.5 units: to even
      {-std::ldexp(1.0, -140), 0x8000},
      {std::ldexp(255.0, -134), 0x0080}, // 127.5 units: up to normal
      {std::numeric_limits<double>::denorm_min(), 0x0000},
      {-std::numeric_limits<double>::denorm_min(), 0x8000},
      {std::numeric_limits<double>::min(), 0x0000},
  };
  for (const Case &test : cases)
    EXPECT_EQ(pwTestTruncDoubleToBFloat16(test.input), test.expected)
        << "input " << test.input;

  // NaNs: quiet, with their sign and the top of the payload.
  EXPECT_EQ(pwTestTruncDoubleToBFloat16(doubleFromBits(0x7ff8000000000000)),
            0x7fc0);
  EXPECT_EQ(pwTestTruncDoubleToBFloat16(doubleFromBits(0xfff8000000000000)),
            0xffc0);
  EXPECT_EQ(pwTestTruncDoubleToBFloat16(doubleFromBits(0x7ff0000000000001)),
            0x7fc0);
  EXPECT_EQ(pwTestTruncDoubleToBFloat16(doubleFromBits(0x7ff4000000000000)),
            0x7fe0);
}

TEST(BFloat16Test, FloatsAroundEveryBFloat16MatchTheReference) {
  // Every bf16 with both signs, and the floats at, just below, at and around
  // the halfway point above it.
  const uint32_t offsets[] = {0, 1, 0x3fff, 0x7fff, 0x8000, 0x8001, 0xffff};
  for (uint32_t code = 0; code < 0x10000; ++code) {
    if ((code & 0x7f80) == 0x7f80)
      continue;
    for (uint32_t offset : offsets) {
      uint32_t bits = (code << 16) + offset;
      float value = floatFromBits(bits);
      ASSERT_EQ(pwTestTruncFloatToBFloat16(value), referenceRound(value))
          << std::hex << "float bits 0x" << bits;
    }
  }
  // And NaNs of every payload bit.
  for (uint32_t bit = 0; bit < 23; ++bit) {
    uint16_t result =
        pwTestTruncFloatToBFloat16(floatFromBits(0x7f800000u | (1u << bit)));
    EXPECT_TRUE(isBFloat16NaN(result)) << "payload bit " << bit;
    EXPECT_TRUE(result & 0x0040) << "payload bit " << bit;
  }
}

TEST(BFloat16Test, DoublesMatchTheReference) {
  // Around every positive and negative halfway point, and random doubles
  // spread over the exponents that round to finite bf16s and beyond.
  for (uint32_t code = 0; code < 0x10000; ++code) {
    uint32_t magnitude = code & 0x7fff;
    if (magnitude >= 0x7f80)
      continue;
    double sign = code & 0x8000 ? -1.0 : 1.0;
    double midpoint =
        sign * (magnitudeValue(magnitude) + magnitudeValue(magnitude + 1)) / 2;
    for (double value : {midpoint, std::nextafter(midpoint, 0.0),
                         std::nextafter(midpoint, sign * HUGE_VAL),
                         sign * magnitudeValue(magnitude)})
      ASSERT_EQ(pwTestTruncDoubleToBFloat16(value), referenceRound(value))
          << "double " << value;
  }
  std::mt19937_64 engine(42);
  for (int i = 0; i < 200000; ++i) {
    uint64_t bits = engine();
    // Exponents from 2^-160 to 2^140, and a few anywhere.
    if (i % 8 != 0)
      bits = (bits & 0x800fffffffffffffu) |
             (uint64_t(1023 - 160 + engine() % 301) << 52);
    double value = doubleFromBits(bits);
    if (std::isnan(value)) {
      EXPECT_TRUE(isBFloat16NaN(pwTestTruncDoubleToBFloat16(value)));
      continue;
    }
    ASSERT_EQ(pwTestTruncDoubleToBFloat16(value), referenceRound(value))
        << std::hex << "double bits 0x" << bits;
  }
}

TEST(BFloat16Test, DoesNotDependOnTheRoundingMode) {
  // Integer arithmetic only: the result is the same in every mode.
  int saved = std::fegetround();
  for (int mode : {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO}) {
    std::fesetround(mode);
    EXPECT_EQ(pwTestTruncFloatToBFloat16(floatFromBits(0x3f808001)), 0x3f81);
    EXPECT_EQ(pwTestTruncDoubleToBFloat16(1.0 + std::ldexp(1.0, -9)), 0x3f80);
  }
  std::fesetround(saved);
}

} // namespace
