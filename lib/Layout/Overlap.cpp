//===- Overlap.cpp - Output overlap checks --------------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Layout/Overlap.h"

#include "Pointwise/Layout/OffsetRange.h"

#include "CheckedArithmetic.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

using namespace pointwise::layout;

namespace {
/// The half-open byte range [begin, end) an operand touches; begin == end
/// when it has no elements.
struct ByteRange {
  uint64_t begin = 0;
  uint64_t end = 0;

  bool empty() const { return begin == end; }
  bool intersects(const ByteRange &other) const {
    return !empty() && !other.empty() && begin < other.end && other.begin < end;
  }
};
} // namespace

/// `base + bytes` as an address, or nullopt when it leaves [0, 2^64).
static std::optional<uint64_t> offsetAddress(uint64_t base, int64_t bytes) {
  uint64_t distance = detail::magnitude(bytes);
  if (bytes >= 0)
    return base + distance < base ? std::nullopt
                                  : std::optional<uint64_t>(base + distance);
  return distance > base ? std::nullopt
                         : std::optional<uint64_t>(base - distance);
}

static std::string addressSpaceError(unsigned operandIndex) {
  return "operand #" + std::to_string(operandIndex) +
         " addresses memory outside the 64-bit address space";
}

/// The bytes `layout` touches from `buffer`. The layout is verified, so a
/// failing offset range means its offsets overflow.
static LayoutResult<ByteRange> computeByteRange(const StridedLayout &layout,
                                                const OperandBuffer &buffer,
                                                unsigned operandIndex) {
  if (*detail::countElements(layout.sizes) == 0)
    return ByteRange();
  LayoutResult<ElementOffsetRange> elements = computeElementOffsetRange(layout);
  int64_t size = buffer.elementByteSize;
  std::optional<int64_t> lowBytes =
      elements ? detail::checkedMul(elements->first, size) : std::nullopt;
  std::optional<int64_t> highBytes =
      elements ? detail::checkedMul(elements->last, size) : std::nullopt;
  if (highBytes)
    highBytes = detail::checkedAdd(*highBytes, size);
  std::optional<uint64_t> begin =
      lowBytes ? offsetAddress(buffer.baseAddress, *lowBytes) : std::nullopt;
  std::optional<uint64_t> end =
      highBytes ? offsetAddress(buffer.baseAddress, *highBytes) : std::nullopt;
  if (!begin || !end)
    return LayoutError{addressSpaceError(operandIndex)};
  return ByteRange{*begin, *end};
}

/// Whether `input` reads exactly the elements `output` writes, each at the
/// same iteration index. Operands broadcast to the output's shape, so equal
/// (size, stride) sequences over the dims of size > 1 put them on the same
/// iteration dims.
static bool isExactAlias(const StridedLayout &output,
                         const OperandBuffer &outputBuffer,
                         const StridedLayout &input,
                         const OperandBuffer &inputBuffer) {
  if (outputBuffer.elementByteSize != inputBuffer.elementByteSize)
    return false;
  // Both byte ranges were computed without overflow, so the first elements'
  // addresses are representable.
  int64_t size = outputBuffer.elementByteSize;
  if (outputBuffer.baseAddress + static_cast<uint64_t>(output.offset * size) !=
      inputBuffer.baseAddress + static_cast<uint64_t>(input.offset * size))
    return false;
  unsigned o = 0, i = 0;
  while (true) {
    while (o < output.rank() && output.sizes[o] == 1)
      ++o;
    while (i < input.rank() && input.sizes[i] == 1)
      ++i;
    if (o == output.rank() || i == input.rank())
      return o == output.rank() && i == input.rank();
    if (output.sizes[o] != input.sizes[i] ||
        output.strides[o] != input.strides[i])
      return false;
    ++o;
    ++i;
  }
}

namespace {
/// Wide enough for sums of two int64 offsets and their products with
/// element sizes.
__extension__ typedef __int128 Wide;

/// One operand's set of elements as a lattice: the element offset where it
/// starts (the lowest one) and its (size, stride) pairs of size > 1 with a
/// nonzero stride, strides made positive and the pairs sorted. Two operands
/// with equal pairs are translates of each other.
struct ElementLattice {
  int64_t start = 0;
  /// (stride magnitude, size): a magnitude may be 2^63.
  std::vector<std::pair<uint64_t, int64_t>> dims;
};
} // namespace

static ElementLattice toLattice(const StridedLayout &layout) {
  ElementLattice lattice;
  lattice.start = layout.offset;
  for (unsigned d = 0; d < layout.rank(); ++d) {
    if (layout.sizes[d] <= 1 || layout.strides[d] == 0)
      continue;
    // The layout is verified: its offsets fit in int64.
    if (layout.strides[d] < 0)
      lattice.start += (layout.sizes[d] - 1) * layout.strides[d];
    lattice.dims.push_back(
        {detail::magnitude(layout.strides[d]), layout.sizes[d]});
  }
  std::sort(lattice.dims.rbegin(), lattice.dims.rend());
  return lattice;
}

/// Nodes the search of sharesAnElement visits before it gives up.
constexpr int64_t kTranslateSearchNodes = int64_t(1) << 12;

/// Whether some k with |k_i| < size_i for the dims from `dim` on (strides
/// descending) has sum k_i * stride_i == `difference`; `reach[i]` is the
/// largest |sum| the dims from i on can make. Gives up (true) after
/// `budget` nodes.
static bool solvesTranslate(const ElementLattice &lattice,
                            const std::vector<Wide> &reach, unsigned dim,
                            Wide difference, int64_t &budget) {
  if (--budget < 0)
    return true;
  if (dim == lattice.dims.size())
    return difference == 0;
  Wide stride = lattice.dims[dim].first;
  Wide limit = lattice.dims[dim].second - 1;
  Wide rest = dim + 1 < reach.size() ? reach[dim + 1] : 0;
  // difference - k * stride must lie in [-rest, rest].
  auto floorDiv = [](Wide a, Wide b) {
    return a / b - ((a % b != 0) && (a < 0));
  };
  Wide low = std::max(-limit, -floorDiv(-(difference - rest), stride));
  Wide high = std::min(limit, floorDiv(difference + rest, stride));
  for (Wide k = low; k <= high; ++k)
    if (solvesTranslate(lattice, reach, dim + 1, difference - k * stride,
                        budget))
      return true;
  return false;
}

/// Whether some byte of an element of `a` may be a byte of an element of
/// `b`, by residues: every distance between their elements' first bytes is
/// congruent, modulo the gcd g of all their byte strides (dims of size > 1),
/// to the distance between their first elements, and two elements share a
/// byte only if that distance lies in [-(size of a's elements - 1), size of
/// b's - 1]. False proves they share none, for views of any strides and
/// element sizes: a[::2] and a[1::4], or an f32 view against the odd f16
/// halves of the same words.
static bool mayShareAByteByResidue(const StridedLayout &a,
                                   const OperandBuffer &aBuf,
                                   const StridedLayout &b,
                                   const OperandBuffer &bBuf) {
  // Both byte ranges were computed without overflow, so a byte stride of a
  // dim of size > 1 is below 2^64.
  uint64_t gcd = 0;
  auto addStrides = [&](const StridedLayout &layout, int64_t elementBytes) {
    for (unsigned d = 0; d < layout.rank(); ++d)
      if (layout.sizes[d] > 1)
        gcd = std::gcd(gcd, detail::magnitude(layout.strides[d]) *
                                static_cast<uint64_t>(elementBytes));
  };
  addStrides(a, aBuf.elementByteSize);
  addStrides(b, bBuf.elementByteSize);
  if (gcd == 0)
    return true; // one element each, and their ranges intersect
  Wide distance = static_cast<Wide>(aBuf.baseAddress) +
                  static_cast<Wide>(a.offset) * aBuf.elementByteSize -
                  (static_cast<Wide>(bBuf.baseAddress) +
                   static_cast<Wide>(b.offset) * bBuf.elementByteSize);
  Wide modulus = gcd;
  Wide lowest = 1 - aBuf.elementByteSize;
  Wide span = aBuf.elementByteSize + bBuf.elementByteSize - 1;
  if (span >= modulus)
    return true;
  Wide fromLowest = ((distance - lowest) % modulus + modulus) % modulus;
  return fromLowest < span;
}

/// Whether two operands whose byte ranges intersect may share an element,
/// false only where that is proven: by residues (mayShareAByteByResidue),
/// or for views of one element size whose element sets are translates of
/// each other (equal sizes and strides, such as a[::2] and a[1::2], or two
/// columns of a matrix) by a whole number of elements that no combination
/// of their strides reaches.
static bool mayShareAnElement(const StridedLayout &a, const OperandBuffer &aBuf,
                              const StridedLayout &b,
                              const OperandBuffer &bBuf) {
  if (!mayShareAByteByResidue(a, aBuf, b, bBuf))
    return false;
  if (aBuf.elementByteSize != bBuf.elementByteSize)
    return true;
  ElementLattice aLattice = toLattice(a), bLattice = toLattice(b);
  if (aLattice.dims != bLattice.dims)
    return true;
  // Both byte ranges were computed without overflow, so the lowest
  // elements' addresses are representable; their distance fits in int64
  // bytes since the ranges intersect.
  int64_t size = aBuf.elementByteSize;
  Wide aFirst = static_cast<Wide>(aBuf.baseAddress) +
                static_cast<Wide>(aLattice.start) * size;
  Wide bFirst = static_cast<Wide>(bBuf.baseAddress) +
                static_cast<Wide>(bLattice.start) * size;
  Wide bytes = bFirst - aFirst;
  if (bytes % size != 0)
    return true; // elements that straddle each other's bytes
  std::vector<Wide> reach(aLattice.dims.size());
  Wide total = 0;
  for (size_t i = aLattice.dims.size(); i-- > 0;) {
    total += static_cast<Wide>(aLattice.dims[i].first) *
             (aLattice.dims[i].second - 1);
    reach[i] = total;
  }
  int64_t budget = kTranslateSearchNodes;
  return solvesTranslate(aLattice, reach, 0, bytes / size, budget);
}

/// Elements up to which a layout whose strides do not nest is checked one
/// by one for two elements at one offset.
constexpr int64_t kExactOverlapCheckElements = int64_t(1) << 16;

static std::string formatList(const std::vector<int64_t> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

/// Whether the dims of size > 1 of `layout` (no stride 0 among them) nest:
/// sorted by stride magnitude, each stride exceeds the largest offset the
/// smaller ones reach. Then every element has its own offset.
static bool hasNestedStrides(const StridedLayout &layout) {
  // On the stack for the usual ranks: this runs on every launch.
  constexpr unsigned kInlineDims = 16;
  std::pair<uint64_t, uint64_t> inlineDims[kInlineDims];
  std::vector<std::pair<uint64_t, uint64_t>> heapDims;
  std::pair<uint64_t, uint64_t> *dims = inlineDims;
  if (layout.rank() > kInlineDims) {
    heapDims.resize(layout.rank());
    dims = heapDims.data();
  }
  unsigned count = 0;
  for (unsigned d = 0; d < layout.rank(); ++d)
    if (layout.sizes[d] > 1)
      dims[count++] = {detail::magnitude(layout.strides[d]),
                       static_cast<uint64_t>(layout.sizes[d] - 1)};
  std::sort(dims, dims + count);
  // A verified layout's element count fits in int64, its offsets need not
  // (strides of 2^62 and 2^61): a reach past 64 bits proves nothing, and the
  // exact check decides.
  uint64_t reach = 0;
  for (unsigned i = 0; i < count; ++i) {
    uint64_t span = 0;
    if (dims[i].first <= reach ||
        __builtin_mul_overflow(dims[i].first, dims[i].second, &span) ||
        __builtin_add_overflow(reach, span, &reach))
      return false;
  }
  return true;
}

/// The offsets of every element of `layout`, sorted: for layouts of at most
/// kExactOverlapCheckElements elements. Every value listed, partial sums
/// included, is an element's offset, which fits in int64 for a verified
/// layout; a product of an index and a stride may not, so the sums wrap in
/// uint64 (exact, since their results fit).
static std::vector<int64_t> listOffsets(const StridedLayout &layout) {
  std::vector<int64_t> offsets{layout.offset};
  for (unsigned d = 0; d < layout.rank(); ++d) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * layout.sizes[d]);
    for (int64_t offset : offsets)
      for (int64_t i = 0; i < layout.sizes[d]; ++i)
        next.push_back(
            static_cast<int64_t>(static_cast<uint64_t>(offset) +
                                 static_cast<uint64_t>(i) *
                                     static_cast<uint64_t>(layout.strides[d])));
    offsets.swap(next);
  }
  std::sort(offsets.begin(), offsets.end());
  return offsets;
}

LayoutResult<void>
pointwise::layout::checkNoInternalOverlap(const StridedLayout &output,
                                          unsigned operandIndex) {
  LayoutResult<void> valid = verifyStridedLayout(output, operandIndex);
  if (!valid)
    return valid;
  int64_t elements = *detail::countElements(output.sizes);
  if (elements == 0)
    return {};
  std::string name = "output operand #" + std::to_string(operandIndex);
  for (unsigned d = 0; d < output.rank(); ++d)
    if (output.sizes[d] > 1 && output.strides[d] == 0)
      return LayoutError{name + " overlaps itself: dim " + std::to_string(d) +
                         " has size " + std::to_string(output.sizes[d]) +
                         " and stride 0"};
  if (hasNestedStrides(output))
    return {};
  std::string layout = "sizes " + formatList(output.sizes) + ", strides " +
                       formatList(output.strides);
  if (elements > kExactOverlapCheckElements)
    return LayoutError{
        name +
        " may overlap itself and is too large to check element by "
        "element (" +
        std::to_string(elements) + " elements; " + layout +
        "): sorted by magnitude, each stride must exceed the largest offset "
        "of the dims with smaller strides"};
  std::vector<int64_t> offsets = listOffsets(output);
  auto repeated = std::adjacent_find(offsets.begin(), offsets.end());
  if (repeated != offsets.end())
    return LayoutError{name +
                       " overlaps itself: two of its elements are at "
                       "element offset " +
                       std::to_string(*repeated) + " (" + layout + ")"};
  return {};
}

LayoutResult<void> pointwise::layout::checkOutputOverlap(
    const std::vector<StridedLayout> &operands,
    const std::vector<OperandBuffer> &buffers, unsigned numOutputs) {
  if (buffers.size() != operands.size())
    return LayoutError{std::to_string(buffers.size()) + " buffers for " +
                       std::to_string(operands.size()) + " operands"};
  if (numOutputs > operands.size())
    return LayoutError{std::to_string(numOutputs) + " outputs among only " +
                       std::to_string(operands.size()) + " operands"};

  // On the stack for the usual handful of operands: this runs every launch.
  constexpr size_t kInlineRanges = 16;
  ByteRange inlineRanges[kInlineRanges];
  std::vector<ByteRange> heapRanges;
  ByteRange *ranges = inlineRanges;
  if (operands.size() > kInlineRanges) {
    heapRanges.resize(operands.size());
    ranges = heapRanges.data();
  }
  for (unsigned i = 0; i < operands.size(); ++i) {
    LayoutResult<void> valid = verifyStridedLayout(operands[i], i);
    if (!valid)
      return valid;
    if (buffers[i].elementByteSize <= 0)
      return LayoutError{"operand #" + std::to_string(i) +
                         " has element size " +
                         std::to_string(buffers[i].elementByteSize) +
                         " bytes; it must be positive"};
    LayoutResult<ByteRange> range =
        computeByteRange(operands[i], buffers[i], i);
    if (!range)
      return LayoutError{range.error()};
    ranges[i] = *range;
  }

  for (unsigned out = 0; out < numOutputs; ++out) {
    LayoutResult<void> internal = checkNoInternalOverlap(operands[out], out);
    if (!internal)
      return internal;
    for (unsigned other = out + 1; other < numOutputs; ++other)
      if (ranges[out].intersects(ranges[other]) &&
          mayShareAnElement(operands[out], buffers[out], operands[other],
                            buffers[other]))
        return LayoutError{"output operands #" + std::to_string(out) +
                           " and #" + std::to_string(other) +
                           " overlap in memory"};
    for (unsigned in = numOutputs; in < operands.size(); ++in)
      if (ranges[out].intersects(ranges[in]) &&
          !isExactAlias(operands[out], buffers[out], operands[in],
                        buffers[in]) &&
          mayShareAnElement(operands[out], buffers[out], operands[in],
                            buffers[in]))
        return LayoutError{
            "output operand #" + std::to_string(out) +
            " partially overlaps input operand #" + std::to_string(in) +
            "; only exact aliasing (same address, element size, sizes and "
            "strides) is allowed"};
  }
  return {};
}
