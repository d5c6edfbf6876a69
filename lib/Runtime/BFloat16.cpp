//===- BFloat16.cpp - bf16 conversions that compiled host code calls ------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// LLVM lowers `fptrunc float/double to bfloat` on the host to calls of
// __truncsfbf2 and __truncdfbf2, which libgcc only has since GCC 13 (and
// compiler-rt since LLVM 17). A library from pw-compile with a bf16 scalar
// argument calls them, so on Debian 12 (GCC 12) it would fail to load with
// "undefined symbol: __truncsfbf2". Compiled libraries link this runtime, so
// it exports both.
//
// The ABI is libgcc's and compiler-rt's: the argument in a floating-point
// register (xmm0 on x86-64), the bf16 result in the low 16 bits of the same
// register, which is where LLVM's caller reads it (`pextrw $0, %xmm0`).
// GCC 12 has no `__bf16` on x86, so the result is returned as a float whose
// low 16 bits are the bf16 bits: the same register, the same bits. On
// AArch64 a __bf16 is returned in h0, the low 16 bits of the float's s0, so
// the same holds.
//
// The conversions round to nearest, ties to even, using integer arithmetic
// only, so they do not depend on the floating-point environment (rounding
// mode, flush-to-zero) and raise no floating-point exceptions. A NaN stays a
// NaN with its sign and the top of its payload, made quiet.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Runtime/Runtime.h"

#include <cstdint>
#include <cstring>

namespace {

/// The bf16 bits nearest to `value` (ties to even).
uint16_t roundFloatToBFloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  // A NaN: keep the sign and the top 7 payload bits, set the quiet bit (so a
  // payload only in the low bits cannot become infinity).
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  // Adding just under half a bf16 unit in the last place, plus the kept
  // lowest bit, rounds ties to even. A carry moves into the exponent, which
  // is right for subnormals becoming normal and for overflow to infinity.
  uint32_t lowestKept = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7fffu + lowestKept) >> 16);
}

/// Rounds `magnitude >> shift` to nearest, ties to even (0 < shift < 64).
uint64_t shiftRightRoundingToEven(uint64_t magnitude, unsigned shift) {
  uint64_t kept = magnitude >> shift;
  uint64_t dropped = magnitude & ((uint64_t(1) << shift) - 1);
  uint64_t half = uint64_t(1) << (shift - 1);
  if (dropped > half || (dropped == half && (kept & 1u)))
    ++kept;
  return kept;
}

/// The bf16 bits nearest to `value` (ties to even), rounded once: rounding
/// to float first and then to bf16 could round a value just above a bf16
/// halfway point down onto it.
uint16_t roundDoubleToBFloat16(double value) {
  constexpr unsigned kDoubleMantissaBits = 52;
  constexpr unsigned kBFloat16MantissaBits = 7;
  constexpr uint64_t kDoubleExponentBias = 1023;
  constexpr uint64_t kBFloat16ExponentBias = 127;
  constexpr uint64_t kDoubleInfinity = 0x7ff0000000000000u;
  constexpr unsigned kDroppedBits = kDoubleMantissaBits - kBFloat16MantissaBits;

  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000u);
  uint64_t magnitude = bits & 0x7fffffffffffffffu;
  if (magnitude > kDoubleInfinity)
    return static_cast<uint16_t>(sign | 0x7fc0u |
                                 ((magnitude >> kDroppedBits) & 0x7fu));

  uint64_t exponent = magnitude >> kDoubleMantissaBits;
  // The biased exponent of the smallest normal bf16 and of the largest
  // finite one, as double exponents.
  constexpr uint64_t kMinNormal =
      kDoubleExponentBias - kBFloat16ExponentBias + 1;
  constexpr uint64_t kMaxFinite = kDoubleExponentBias + kBFloat16ExponentBias;
  if (exponent > kMaxFinite)
    return static_cast<uint16_t>(sign | 0x7f80u);
  if (exponent >= kMinNormal) {
    // Rebias the exponent in place, then drop the extra mantissa bits; a
    // carry out of the mantissa increments the exponent (up to infinity).
    uint64_t rebiased =
        magnitude -
        ((kDoubleExponentBias - kBFloat16ExponentBias) << kDoubleMantissaBits);
    return static_cast<uint16_t>(
        sign | shiftRightRoundingToEven(rebiased, kDroppedBits));
  }
  // A bf16 subnormal (or zero): a count of 2^-133 units. The double is
  // significand * 2^(exponent - 1075), i.e. significand >> (942 - exponent)
  // units. Double subnormals (exponent 0) are far below half a unit.
  if (exponent == 0)
    return sign;
  uint64_t significand =
      (magnitude & ((uint64_t(1) << kDoubleMantissaBits) - 1)) |
      (uint64_t(1) << kDoubleMantissaBits);
  uint64_t shift = kDoubleExponentBias + kDoubleMantissaBits -
                   (kBFloat16ExponentBias - 1 + kBFloat16MantissaBits) -
                   exponent;
  // Below half a unit: significand < 2^53 <= 2^(shift - 1).
  if (shift > kDoubleMantissaBits + 1)
    return sign;
  return static_cast<uint16_t>(
      sign |
      shiftRightRoundingToEven(significand, static_cast<unsigned>(shift)));
}

/// The register carrying a bf16 result: a float whose low 16 bits are it.
float inFloatRegister(uint16_t bfloat16) {
  uint32_t bits = bfloat16;
  float carrier;
  std::memcpy(&carrier, &bits, sizeof(carrier));
  return carrier;
}

} // namespace

#if defined(__x86_64__) || defined(__aarch64__)
extern "C" {
PW_RUNTIME_API float __truncsfbf2(float value) {
  return inFloatRegister(roundFloatToBFloat16(value));
}

PW_RUNTIME_API float __truncdfbf2(double value) {
  return inFloatRegister(roundDoubleToBFloat16(value));
}
} // extern "C"
#endif
