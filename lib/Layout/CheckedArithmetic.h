//===- CheckedArithmetic.h - Overflow-checked int64 arithmetic --*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Sizes, strides and offsets come from users, and signed overflow is
// undefined behavior, so every product or sum the library forms from them
// goes through these helpers. Internal to lib/Layout.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_LAYOUT_CHECKEDARITHMETIC_H
#define POINTWISE_LIB_LAYOUT_CHECKEDARITHMETIC_H

#include <cstdint>
#include <optional>
#include <vector>

namespace pointwise::layout::detail {

inline std::optional<int64_t> checkedMul(int64_t lhs, int64_t rhs) {
  int64_t result;
  if (__builtin_mul_overflow(lhs, rhs, &result))
    return std::nullopt;
  return result;
}

inline std::optional<int64_t> checkedAdd(int64_t lhs, int64_t rhs) {
  int64_t result;
  if (__builtin_add_overflow(lhs, rhs, &result))
    return std::nullopt;
  return result;
}

/// |value| without overflow: INT64_MIN has no int64 magnitude.
inline std::optional<int64_t> checkedAbs(int64_t value) {
  if (value == INT64_MIN)
    return std::nullopt;
  return value < 0 ? -value : value;
}

/// |value| as an unsigned number, defined for every int64 (for comparisons).
inline uint64_t magnitude(int64_t value) {
  return value < 0 ? uint64_t(0) - static_cast<uint64_t>(value)
                   : static_cast<uint64_t>(value);
}

/// The product of non-negative `sizes`, or nullopt if it exceeds int64. A
/// zero size makes the count 0 however large the other sizes are.
inline std::optional<int64_t> countElements(const int64_t *sizes,
                                            unsigned rank) {
  for (unsigned d = 0; d < rank; ++d)
    if (sizes[d] == 0)
      return 0;
  int64_t count = 1;
  for (unsigned d = 0; d < rank; ++d) {
    std::optional<int64_t> next = checkedMul(count, sizes[d]);
    if (!next)
      return std::nullopt;
    count = *next;
  }
  return count;
}

inline std::optional<int64_t> countElements(const std::vector<int64_t> &sizes) {
  return countElements(sizes.data(), static_cast<unsigned>(sizes.size()));
}

} // namespace pointwise::layout::detail

#endif // POINTWISE_LIB_LAYOUT_CHECKEDARITHMETIC_H
