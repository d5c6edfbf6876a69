//===- OffsetRange.cpp - Elements a strided view can reach ----------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/OffsetRange.h"

#include "CheckedArithmetic.h"

using namespace pointwise::layout;

LayoutResult<ElementOffsetRange>
pointwise::layout::computeElementOffsetRange(const StridedLayout &layout) {
  LayoutResult<void> valid = verifyStridedLayout(layout, 0);
  if (!valid)
    return LayoutError{valid.error()};
  ElementOffsetRange range{layout.offset, layout.offset};
  for (unsigned dim = 0; dim < layout.rank(); ++dim)
    if (layout.sizes[dim] == 0)
      return range;
  for (unsigned dim = 0; dim < layout.rank(); ++dim) {
    std::optional<int64_t> reach =
        detail::checkedMul(layout.sizes[dim] - 1, layout.strides[dim]);
    std::optional<int64_t> moved =
        reach
            ? detail::checkedAdd(*reach < 0 ? range.first : range.last, *reach)
            : std::nullopt;
    if (!moved)
      return LayoutError{"the view's element offsets overflow int64"};
    (*reach < 0 ? range.first : range.last) = *moved;
  }
  return range;
}
