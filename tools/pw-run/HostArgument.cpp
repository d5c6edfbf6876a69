//===- HostArgument.cpp - One argument of a JIT-compiled entry ------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "HostArgument.h"

#include "Pointwise/Layout/OffsetRange.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

using namespace mlir;
using namespace pointwise::run;

namespace {

/// SplitMix64: a tiny, well-mixed generator, so buffers are the same on
/// every platform for a seed.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

private:
  uint64_t state;
};

unsigned getByteWidth(Type type) {
  if (type.isIndex())
    return 8;
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits == 1 ? 1 : bits / 8;
}

const llvm::fltSemantics &getSemantics(Type type) {
  return cast<FloatType>(type).getFloatSemantics();
}

/// The bits of `value` rounded to the float type `type`.
uint64_t toFloatBits(Type type, double value) {
  llvm::APFloat converted(value);
  bool losesInfo;
  converted.convert(getSemantics(type), llvm::APFloat::rmNearestTiesToEven,
                    &losesInfo);
  return converted.bitcastToAPInt().getZExtValue();
}

/// Small values keep integer arithmetic away from overflow and float
/// arithmetic in a range every type represents.
uint64_t randomBits(Type type, Random &random) {
  uint64_t draw = random.next();
  if (type.isInteger(1))
    return draw & 1;
  if (isa<FloatType>(type))
    return toFloatBits(type,
                       (static_cast<int64_t>(draw % 8001) - 4000) / 1000.0);
  int64_t value = static_cast<int64_t>(draw % 201) - 100;
  return static_cast<uint64_t>(value);
}

llvm::Expected<uint64_t> parseScalar(Type type, llvm::StringRef text,
                                     unsigned index) {
  auto error = [&](const llvm::Twine &expected) {
    return llvm::createStringError("argument #" + llvm::Twine(index) +
                                   ": expected " + expected + ", got '" + text +
                                   "'");
  };
  std::string typeName;
  llvm::raw_string_ostream(typeName) << type;
  if (isa<FloatType>(type)) {
    // Rounded once, straight to the type (through double, a decimal could
    // round twice); a finite number that overflows rounds to infinity with
    // opOverflow, while "inf" itself converts exactly.
    llvm::APFloat value(getSemantics(type));
    llvm::Expected<llvm::APFloat::opStatus> status =
        value.convertFromString(text, llvm::APFloat::rmNearestTiesToEven);
    if (!status) {
      llvm::consumeError(status.takeError());
      return error("a number");
    }
    if (*status & llvm::APFloat::opOverflow)
      return llvm::createStringError("argument #" + llvm::Twine(index) + ": " +
                                     text + " is out of range for " + typeName +
                                     " (it rounds to infinity)");
    return value.bitcastToAPInt().getZExtValue();
  }
  if (type.isInteger(1)) {
    if (text == "true" || text == "1")
      return 1;
    if (text == "false" || text == "0")
      return 0;
    return error("true, false, 1 or 0");
  }
  // Signless integers take either reading of their bits, as MLIR's integer
  // literals do: -128 .. 255 for i8, where =255 and =-1 are the same bits.
  // (i1 takes only 0 and 1, above.)
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  llvm::StringRef digits = text;
  bool negative = digits.consume_front("-");
  llvm::APInt magnitude;
  if (digits.empty() || !llvm::all_of(digits, llvm::isDigit) ||
      digits.getAsInteger(10, magnitude))
    return error("an integer");
  unsigned bits = std::max(magnitude.getBitWidth(), width + 1);
  magnitude = magnitude.zext(bits);
  llvm::APInt limit = negative ? llvm::APInt::getOneBitSet(bits, width - 1)
                               : llvm::APInt::getLowBitsSet(bits, width);
  if (magnitude.ugt(limit))
    return llvm::createStringError(
        "argument #" + llvm::Twine(index) + ": " + text +
        " is out of range for " + typeName + ": expected " +
        llvm::Twine(llvm::APInt::getSignedMinValue(width).getSExtValue()) +
        " to " + llvm::Twine(llvm::APInt::getMaxValue(width).getZExtValue()) +
        " (the signed or unsigned reading of its " + llvm::Twine(width) +
        " bits)");
  llvm::APInt value = magnitude.trunc(width);
  if (negative)
    value.negate();
  return value.sext(64).getZExtValue();
}

bool isSupportedElementType(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.isSignless() &&
           llvm::is_contained({1u, 8u, 16u, 32u, 64u}, integer.getWidth());
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

/// The strides of a view of `sizes` whose type has `typeStrides`: the static
/// ones as they are, since the compiled code uses them whatever the
/// descriptor says, and each dynamic one, from the innermost dim out, one
/// more than the element offsets that the dims laid out so far (the static
/// ones first) span. The dims given strides so never overlap each other or
/// the static ones, and a type without static strides gets the row-major
/// layout. std::nullopt when a stride would not fit in 64 bits.
std::optional<std::vector<int64_t>>
fillDynamicStrides(llvm::ArrayRef<int64_t> sizes,
                   llvm::ArrayRef<int64_t> typeStrides) {
  std::vector<int64_t> strides(typeStrides.begin(), typeStrides.end());
  if (llvm::none_of(strides, ShapedType::isDynamic))
    return strides;
  int64_t span = 0;
  auto addToSpan = [&](size_t dim) {
    int64_t steps = std::max<int64_t>(sizes[dim] - 1, 0), distance;
    return strides[dim] != std::numeric_limits<int64_t>::min() &&
           !llvm::MulOverflow(std::abs(strides[dim]), steps, distance) &&
           !llvm::AddOverflow(span, distance, span);
  };
  for (size_t dim = 0; dim < strides.size(); ++dim)
    if (!ShapedType::isDynamic(strides[dim]) && !addToSpan(dim))
      return std::nullopt;
  for (size_t dim = strides.size(); dim-- > 0;) {
    if (!ShapedType::isDynamic(strides[dim]))
      continue;
    if (llvm::AddOverflow(span, int64_t(1), strides[dim]) || !addToSpan(dim))
      return std::nullopt;
  }
  return strides;
}

std::string joinIntegers(llvm::ArrayRef<int64_t> values, llvm::StringRef sep) {
  return llvm::join(
      llvm::map_range(values, [](int64_t v) { return std::to_string(v); }),
      sep);
}

} // namespace

llvm::Expected<HostArgument> HostArgument::create(Type type,
                                                  const ArgumentSpec &spec,
                                                  unsigned index, FillMode fill,
                                                  uint64_t seed) {
  auto argument = plan(type, spec, index, seed);
  if (argument)
    argument->allocate(fill, seed);
  return argument;
}

llvm::Expected<HostArgument> HostArgument::plan(Type type,
                                                const ArgumentSpec &spec,
                                                unsigned index, uint64_t seed) {
  HostArgument argument;
  argument.index = index;
  std::string typeText;
  llvm::raw_string_ostream(typeText) << type;
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("argument #" + llvm::Twine(index) + " (" +
                                   typeText + "): " + why);
  };

  // A tensor argument is bufferized into a memref of any strided layout: a
  // view from --arg, or from its type ('-'), contiguous.
  auto memref = dyn_cast<MemRefType>(type);
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    MemRefLayoutAttrInterface layout;
    if (spec.kind != ArgumentSpec::Kind::FromType)
      layout = StridedLayoutAttr::get(
          type.getContext(), ShapedType::kDynamic,
          SmallVector<int64_t>(tensor.getRank(), ShapedType::kDynamic));
    memref =
        MemRefType::get(tensor.getShape(), tensor.getElementType(), layout);
  }
  if (!memref) {
    if (!type.isIndex() && !isSupportedElementType(type))
      return fail("unsupported argument type");
    if (spec.kind == ArgumentSpec::Kind::MemRef)
      return fail("a scalar takes '=VALUE' or '-', not a memref view");
    argument.type = type;
    argument.byteWidth = getByteWidth(type);
    if (spec.kind == ArgumentSpec::Kind::Scalar) {
      auto value = parseScalar(type, spec.scalar, index);
      if (!value)
        return value.takeError();
      argument.scalar = *value;
    } else {
      Random random(seed * 1000003 + index);
      argument.scalar = randomBits(type, random);
    }
    return argument;
  }

  if (!isSupportedElementType(memref.getElementType()))
    return fail("unsupported element type");
  if (spec.kind == ArgumentSpec::Kind::Scalar)
    return fail("a memref takes a view such as 4x8@8,1+0, or '-'");
  auto [typeStrides, typeOffset] = memref.getStridesAndOffset();
  argument.isView = true;
  argument.type = memref.getElementType();
  argument.byteWidth = getByteWidth(argument.type);

  if (spec.kind == ArgumentSpec::Kind::FromType) {
    if (!memref.hasStaticShape() ||
        llvm::any_of(typeStrides, ShapedType::isDynamic))
      return fail("the type has a dynamic size or stride: give the view with "
                  "--arg, e.g. 4x8 or 4x8@1,4+0");
    argument.sizes.assign(memref.getShape().begin(), memref.getShape().end());
  } else {
    if (static_cast<int64_t>(spec.sizes.size()) != memref.getRank())
      return fail("the view has " + llvm::Twine(spec.sizes.size()) +
                  " sizes for a memref of rank " +
                  llvm::Twine(memref.getRank()));
    argument.sizes = spec.sizes;
    for (auto [dim, size] : llvm::enumerate(memref.getShape()))
      if (!ShapedType::isDynamic(size) && size != argument.sizes[dim])
        return fail("size " + llvm::Twine(argument.sizes[dim]) + " of dim " +
                    llvm::Twine(dim) + " contradicts the type's " +
                    llvm::Twine(size));
  }
  // ('-' leaves strides and offset unset: its type fixes them but a
  // dynamic offset, taken as 0 as for a view without one.)
  if (spec.strides) {
    argument.strides = *spec.strides;
    for (auto [dim, stride] : llvm::enumerate(typeStrides))
      if (!ShapedType::isDynamic(stride) && stride != argument.strides[dim])
        return fail("stride " + llvm::Twine(argument.strides[dim]) +
                    " of dim " + llvm::Twine(dim) + " contradicts the type's " +
                    llvm::Twine(stride));
  } else {
    std::optional<std::vector<int64_t>> strides =
        fillDynamicStrides(argument.sizes, typeStrides);
    if (!strides)
      return fail("no dynamic stride past the type's static ones fits in 64 "
                  "bits: give the strides with @, e.g. 4x8@8,1");
    argument.strides = std::move(*strides);
  }
  if (spec.offset) {
    if (!ShapedType::isDynamic(typeOffset) && typeOffset != *spec.offset)
      return fail("offset " + llvm::Twine(*spec.offset) +
                  " contradicts the type's " + llvm::Twine(typeOffset));
    argument.offset = *spec.offset;
  } else {
    argument.offset = ShapedType::isDynamic(typeOffset) ? 0 : typeOffset;
  }

  layout::StridedLayout view{argument.sizes, argument.strides, argument.offset};
  layout::LayoutResult<layout::ElementOffsetRange> range =
      layout::computeElementOffsetRange(view);
  if (!range)
    return fail(range.error());
  if (range->first < 0)
    return fail("the view reaches element offset " + llvm::Twine(range->first) +
                " before the start of its buffer; raise its offset");
  // Keep test buffers in memory: 2^31 elements is far beyond any test.
  if (range->last >= (int64_t(1) << 31))
    return fail("the view spans " + llvm::Twine(range->last + 1) +
                " elements; pw-run allocates at most 2^31");
  argument.bufferElements = range->last + 1;
  return argument;
}

void HostArgument::allocate(FillMode mode, uint64_t seed) {
  if (!isView)
    return;
  // 64 spare bytes let the elements start on a 64-byte boundary, so that a
  // view at offset 0 is aligned for any vector access.
  buffer.assign((bufferElements * byteWidth + 7) / 8 + 8, 0);
  fill(mode, seed * 1000003 + index);
  int64_t address = reinterpret_cast<int64_t>(elements());
  descriptor = {address, address, offset};
  descriptor.insert(descriptor.end(), sizes.begin(), sizes.end());
  descriptor.insert(descriptor.end(), strides.begin(), strides.end());
}

HostArgument HostArgument::copyResult(Type elementType, unsigned index,
                                      ArrayRef<int64_t> sizes,
                                      ArrayRef<int64_t> strides, int64_t offset,
                                      const uint8_t *aligned) {
  HostArgument result;
  result.index = index;
  result.isResult = true;
  result.isView = true;
  result.type = elementType;
  result.byteWidth = getByteWidth(elementType);
  result.sizes.assign(sizes.begin(), sizes.end());
  result.strides.assign(sizes.size(), 1);
  for (size_t dim = sizes.size(); dim-- > 1;)
    result.strides[dim - 1] = result.strides[dim] * sizes[dim];
  result.bufferElements = 1;
  for (int64_t size : sizes)
    result.bufferElements *= size;
  result.buffer.assign((result.bufferElements * result.byteWidth + 7) / 8 + 8,
                       0);
  // Element by element, in row-major order, from the returned view.
  std::vector<int64_t> position(sizes.size(), 0);
  uint8_t *destination = result.elements();
  for (int64_t element = 0; element < result.bufferElements; ++element) {
    int64_t source = offset;
    for (auto [at, stride] : llvm::zip_equal(position, strides))
      source += at * stride;
    std::memcpy(destination + element * result.byteWidth,
                aligned + source * result.byteWidth, result.byteWidth);
    for (size_t dim = sizes.size(); dim-- > 0;) {
      if (++position[dim] < sizes[dim])
        break;
      position[dim] = 0;
    }
  }
  int64_t address = reinterpret_cast<int64_t>(result.elements());
  result.descriptor = {address, address, 0};
  result.descriptor.insert(result.descriptor.end(), result.sizes.begin(),
                           result.sizes.end());
  result.descriptor.insert(result.descriptor.end(), result.strides.begin(),
                           result.strides.end());
  return result;
}

std::string HostArgument::getLabel() const {
  return (isResult ? "result #" : "argument #") + std::to_string(index);
}

uint8_t *HostArgument::elements() {
  auto address = reinterpret_cast<uintptr_t>(buffer.data());
  return reinterpret_cast<uint8_t *>((address + 63) & ~uintptr_t(63));
}

const uint8_t *HostArgument::elements() const {
  return const_cast<HostArgument *>(this)->elements();
}

void HostArgument::fill(FillMode mode, uint64_t seed) {
  Random random(seed);
  auto *bytes = elements();
  for (int64_t element = 0; element < bufferElements; ++element) {
    // An i1 byte holds 0 or 1: iota alternates them.
    uint64_t bits = mode == FillMode::Random ? randomBits(type, random)
                    : isa<FloatType>(type)
                        ? toFloatBits(type, static_cast<double>(element))
                    : type.isInteger(1) ? static_cast<uint64_t>(element & 1)
                                        : static_cast<uint64_t>(element);
    std::memcpy(bytes + element * byteWidth, &bits, byteWidth);
  }
}

void *HostArgument::getPackedArgument() {
  if (!isView)
    return &scalar;
  descriptorAddress = descriptor.data();
  return &descriptorAddress;
}

pointwise::layout::OperandBuffer HostArgument::getOperandBuffer() const {
  if (buffer.empty())
    return {plannedAddress, static_cast<int64_t>(byteWidth)};
  return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(elements())),
          static_cast<int64_t>(byteWidth)};
}

int64_t HostArgument::getViewBytes() const {
  if (!isView)
    return 0;
  int64_t elements = 1;
  for (int64_t size : sizes)
    elements *= size;
  return elements * byteWidth;
}

std::string HostArgument::formatElement(int64_t bufferIndex) const {
  uint64_t bits = 0;
  const auto *bytes = isView ? elements() + bufferIndex * byteWidth
                             : reinterpret_cast<const uint8_t *>(&scalar);
  std::memcpy(&bits, bytes, byteWidth);
  if (auto floatType = dyn_cast<FloatType>(type)) {
    llvm::APFloat value(getSemantics(type),
                        llvm::APInt(floatType.getWidth(), bits));
    bool losesInfo;
    value.convert(llvm::APFloat::IEEEdouble(),
                  llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::format("%.9g", value.convertToDouble());
    return text;
  }
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  if (width == 1)
    return (bits & 1) ? "1" : "0";
  return std::to_string(llvm::APInt(64, bits).trunc(width).getSExtValue());
}

void HostArgument::printDim(llvm::raw_ostream &os, unsigned dim,
                            int64_t elementOffset) const {
  if (dim == sizes.size()) {
    os << formatElement(elementOffset);
    return;
  }
  os << '[';
  for (int64_t i = 0; i < sizes[dim]; ++i) {
    if (i)
      os << ", ";
    printDim(os, dim + 1, elementOffset + i * strides[dim]);
  }
  os << ']';
}

void HostArgument::print(llvm::raw_ostream &os) const {
  if (!isView) {
    os << formatElement(0);
    return;
  }
  printDim(os, 0, offset);
}

std::string HostArgument::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!isView) {
    os << type << " = " << formatElement(0);
    return text;
  }
  os << (sizes.empty() ? std::string("()") : joinIntegers(sizes, "x"));
  if (!sizes.empty())
    os << '@' << joinIntegers(strides, ",");
  os << '+' << offset << " x" << type;
  return text;
}

double HostArgument::readAsDouble(int64_t bufferIndex) const {
  uint64_t bits = 0;
  std::memcpy(&bits, elements() + bufferIndex * byteWidth, byteWidth);
  auto floatType = cast<FloatType>(type);
  llvm::APFloat value(getSemantics(type),
                      llvm::APInt(floatType.getWidth(), bits));
  bool losesInfo;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

bool HostArgument::compare(const HostArgument &reference, llvm::raw_ostream &os,
                           unsigned maxReports, double tolerance) const {
  if (!isView)
    return true;
  const uint8_t *mine = elements();
  const auto *theirs = reference.elements();
  bool approximate = tolerance > 0 && isa<FloatType>(type);
  int64_t mismatches = 0;
  for (int64_t element = 0; element < bufferElements; ++element) {
    if (std::memcmp(mine + element * byteWidth, theirs + element * byteWidth,
                    byteWidth) == 0)
      continue;
    if (approximate) {
      double a = readAsDouble(element), b = reference.readAsDouble(element);
      if ((std::isnan(a) && std::isnan(b)) ||
          std::fabs(a - b) <= tolerance * (1 + std::fabs(b)))
        continue;
    }
    if (mismatches++ < maxReports)
      os << "  " << getLabel() << " element offset " << element << ": "
         << formatElement(element)
         << " (optimized) != " << reference.formatElement(element)
         << " (reference)\n";
  }
  if (mismatches)
    os << "  " << getLabel() << ": " << mismatches << " of " << bufferElements
       << " buffer elements differ"
       << (approximate ? " beyond the tolerance" : "") << "\n";
  return mismatches == 0;
}

llvm::json::Object HostArgument::getManifestEntry() const {
  std::string typeName;
  llvm::raw_string_ostream(typeName) << type;
  llvm::json::Object entry{{"index", index},
                           {"role", isResult ? "result" : "argument"},
                           {"kind", isView ? "memref" : "scalar"},
                           {"type", typeName},
                           {"byte_width", byteWidth}};
  if (!isView) {
    uint64_t mask =
        byteWidth >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * byteWidth)) - 1;
    entry["bits"] = scalar & mask;
    entry["value"] = formatElement(0);
    return entry;
  }
  entry["sizes"] = llvm::json::Array(sizes);
  entry["strides"] = llvm::json::Array(strides);
  entry["offset"] = offset;
  entry["buffer_elements"] = bufferElements;
  return entry;
}
