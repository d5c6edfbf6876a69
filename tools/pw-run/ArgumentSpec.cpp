//===- ArgumentSpec.cpp - pw-run's argument specifications ----------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "ArgumentSpec.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace pointwise::run;

static llvm::Error specError(llvm::StringRef text, const llvm::Twine &why) {
  return llvm::createStringError("bad argument spec '" + text + "': " + why);
}

static llvm::Expected<std::vector<int64_t>>
parseIntegers(llvm::StringRef whole, llvm::StringRef list, char separator,
              llvm::StringRef what) {
  std::vector<int64_t> values;
  llvm::SmallVector<llvm::StringRef> parts;
  list.split(parts, separator);
  for (llvm::StringRef part : parts) {
    int64_t value;
    if (part.trim().getAsInteger(10, value))
      return specError(whole,
                       "expected an integer " + what + ", got '" + part + "'");
    values.push_back(value);
  }
  return values;
}

llvm::Expected<ArgumentSpec>
pointwise::run::parseArgumentSpec(llvm::StringRef text) {
  ArgumentSpec spec;
  llvm::StringRef rest = text.trim();
  if (rest == "-")
    return spec;
  if (rest.consume_front("=")) {
    if (rest.empty())
      return specError(text, "expected a value after '='");
    spec.kind = ArgumentSpec::Kind::Scalar;
    spec.scalar = rest.str();
    return spec;
  }

  spec.kind = ArgumentSpec::Kind::MemRef;
  auto [beforeOffset, offsetText] = rest.split('+');
  if (rest.contains('+')) {
    int64_t offset;
    if (offsetText.getAsInteger(10, offset))
      return specError(text, "expected an integer offset after '+', got '" +
                                 offsetText + "'");
    spec.offset = offset;
  }
  auto [sizesText, stridesText] = beforeOffset.split('@');
  if (sizesText != "()") {
    if (sizesText.empty())
      return specError(text, "expected sizes such as 4x8, or () for rank 0");
    auto sizes = parseIntegers(text, sizesText, 'x', "size");
    if (!sizes)
      return sizes.takeError();
    for (int64_t size : *sizes)
      if (size < 0)
        return specError(text, "sizes must not be negative");
    spec.sizes = std::move(*sizes);
  }
  if (beforeOffset.contains('@')) {
    std::vector<int64_t> strides;
    if (!spec.sizes.empty()) {
      auto parsed = parseIntegers(text, stridesText, ',', "stride");
      if (!parsed)
        return parsed.takeError();
      strides = std::move(*parsed);
    } else if (!stridesText.empty()) {
      return specError(text, "a rank-0 view has no strides");
    }
    if (strides.size() != spec.sizes.size())
      return specError(text, llvm::Twine(spec.sizes.size()) + " sizes but " +
                                 llvm::Twine(strides.size()) + " strides");
    spec.strides = std::move(strides);
  }
  return spec;
}
