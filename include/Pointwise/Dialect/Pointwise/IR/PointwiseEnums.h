//===- PointwiseEnums.h - Enumerations of the pointwise passes --*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_IR_POINTWISEENUMS_H
#define POINTWISE_DIALECT_POINTWISE_IR_POINTWISEENUMS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

#include "Pointwise/Dialect/Pointwise/IR/PointwiseEnums.h.inc"

namespace pointwise {

/// A command-line modifier that makes an option of enum type `EnumT` accept
/// the names of the enum's cases, as PointwiseEnums.td spells them: the one
/// list of names for the passes' options, the pipelines' and the C API's.
template <typename EnumT> struct EnumOptionValues {
  llvm::StringRef (*stringify)(EnumT);
  uint64_t maxValue;

  template <typename Opt> void apply(Opt &option) const {
    for (uint64_t value = 0; value <= maxValue; ++value)
      option.getParser().addLiteralOption(stringify(static_cast<EnumT>(value)),
                                          static_cast<EnumT>(value), "");
  }
};

inline EnumOptionValues<TileStrategy> tileStrategyValues() {
  return {stringifyTileStrategy, getMaxEnumValForTileStrategy()};
}
inline EnumOptionValues<LoadPolicy> loadPolicyValues() {
  return {stringifyLoadPolicy, getMaxEnumValForLoadPolicy()};
}
inline EnumOptionValues<BinaryFormat> binaryFormatValues() {
  return {stringifyBinaryFormat, getMaxEnumValForBinaryFormat()};
}

} // namespace pointwise

#endif // POINTWISE_DIALECT_POINTWISE_IR_POINTWISEENUMS_H
