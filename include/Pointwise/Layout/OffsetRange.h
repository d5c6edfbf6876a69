//===- OffsetRange.h - Elements a strided view can reach --------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The lowest and highest element offsets a strided view addresses: what a
// buffer must cover for the view to stay in bounds. Tools that allocate
// buffers for views (pw-run, tests) and bounds checks use it.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LAYOUT_OFFSETRANGE_H
#define POINTWISE_LAYOUT_OFFSETRANGE_H

#include "Pointwise/Layout/LayoutResult.h"
#include "Pointwise/Layout/StridedLayout.h"

#include <cstdint>

namespace pointwise::layout {

/// Inclusive element offsets [first, last] reached by a view. An empty view
/// (some size 0) reaches no element; its range is [offset, offset].
struct ElementOffsetRange {
  int64_t first = 0;
  int64_t last = 0;
};

/// Fails when the layout is malformed or the range overflows int64.
LayoutResult<ElementOffsetRange>
computeElementOffsetRange(const StridedLayout &layout);

} // namespace pointwise::layout

#endif // POINTWISE_LAYOUT_OFFSETRANGE_H
