//===- StridedLayout.cpp - Strided operands and iteration spaces ----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/StridedLayout.h"

#include "CheckedArithmetic.h"

using namespace pointwise::layout;

std::vector<int64_t> IterationLayout::operandStrides(unsigned operand) const {
  auto first = strides.begin() + static_cast<ptrdiff_t>(operand) * rank();
  return std::vector<int64_t>(first, first + rank());
}

StridedLayout IterationLayout::operandLayout(unsigned operand) const {
  return StridedLayout{sizes, operandStrides(operand), offsets[operand]};
}

LayoutResult<void>
pointwise::layout::verifyStridedLayout(const StridedLayout &layout,
                                       unsigned operandIndex) {
  // Runs on every operand of every launch: the name is only formatted for a
  // message.
  auto name = [&] { return "operand #" + std::to_string(operandIndex); };
  if (layout.strides.size() != layout.sizes.size())
    return LayoutError{name() + " has " + std::to_string(layout.sizes.size()) +
                       " sizes but " + std::to_string(layout.strides.size()) +
                       " strides"};
  for (unsigned d = 0; d < layout.rank(); ++d)
    if (layout.sizes[d] < 0)
      return LayoutError{name() + " dim " + std::to_string(d) +
                         " has negative size " +
                         std::to_string(layout.sizes[d])};
  if (!detail::countElements(layout.sizes))
    return LayoutError{name() + " has more elements than fit in int64"};
  return {};
}

LayoutResult<void>
pointwise::layout::verifyIterationLayout(const IterationLayout &layout) {
  size_t expected = layout.sizes.size() * layout.offsets.size();
  if (layout.strides.size() != expected)
    return LayoutError{"iteration layout has " +
                       std::to_string(layout.strides.size()) + " strides for " +
                       std::to_string(layout.numOperands()) +
                       " operands of rank " + std::to_string(layout.rank()) +
                       ", expected " + std::to_string(expected)};
  return verifyIterationShape(layout.sizes);
}

LayoutResult<void>
pointwise::layout::verifyIterationShape(const std::vector<int64_t> &sizes) {
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] < 0)
      return LayoutError{"iteration dim " + std::to_string(d) +
                         " has negative size " + std::to_string(sizes[d])};
  if (!detail::countElements(sizes))
    return LayoutError{"iteration space has more elements than fit in int64"};
  return {};
}

std::string pointwise::layout::formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  text += "]";
  return text;
}
