//===- TilingDivider.cpp - Division by run-time sizes ---------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "TilingInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace pointwise;
using namespace pointwise::tiling;

// Division by a magic multiplier (docs/Performance.md, row
// `magic-division`).
Divider KernelEmitter::createDivider(Value divisor) {
  if (getConstantIntValue(divisor))
    return {divisor, Value(), Value()};
  // With N-bit indices: shift = ceil(log2(d)), magic = floor(2^N * (2^shift
  // - d) / d) + 1, computed in 2N bits; an empty dim (d = 0) launches
  // nothing, but the host must not divide by it. `index` is 64 bits wide.
  unsigned bits = indexType.isIndex() ? IndexType::kInternalStorageBitWidth
                                      : indexType.getIntOrFloatBitWidth();
  Type narrowType = builder.getIntegerType(bits);
  Type wideType = builder.getIntegerType(2 * bits);
  auto narrowConstant = [&](int64_t value) {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getIntegerAttr(narrowType, value));
  };
  auto wideConstant = [&](int64_t value) {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getIntegerAttr(wideType, value));
  };
  auto wide = [&](Value value) {
    return arith::ExtUIOp::create(builder, loc, wideType, value);
  };
  auto toIndexType = [&](Value value) -> Value {
    if (indexType == narrowType)
      return value;
    return arith::IndexCastUIOp::create(builder, loc, indexType, value);
  };
  Value narrowDivisor = indexType == narrowType
                            ? divisor
                            : Value(arith::IndexCastUIOp::create(
                                  builder, loc, narrowType, divisor));
  Value one = narrowConstant(1);
  Value safe = arith::MaxUIOp::create(builder, loc, narrowDivisor, one);
  Value leadingZeros = math::CountLeadingZerosOp::create(
      builder, loc, arith::SubIOp::create(builder, loc, safe, one));
  Value shift =
      arith::SubIOp::create(builder, loc, narrowConstant(bits), leadingZeros);
  Value power =
      arith::ShLIOp::create(builder, loc, wideConstant(1), wide(shift));
  Value numerator = arith::ShLIOp::create(
      builder, loc, arith::SubIOp::create(builder, loc, power, wide(safe)),
      wideConstant(bits));
  Value magic = arith::AddIOp::create(
      builder, loc, arith::DivUIOp::create(builder, loc, numerator, wide(safe)),
      wideConstant(1));
  return {divisor,
          toIndexType(arith::TruncIOp::create(builder, loc, narrowType, magic)),
          toIndexType(shift)};
}

std::pair<Value, Value>
KernelEmitter::divideWithRemainder(Value dividend, const Divider &divider) {
  if (!divider.magic)
    return {divide(dividend, divider.divisor),
            remainder(dividend, divider.divisor)};
  Value high =
      arith::MulUIExtendedOp::create(builder, loc, dividend, divider.magic)
          .getHigh();
  Value quotient =
      arith::ShRUIOp::create(builder, loc, add(high, dividend), divider.shift);
  return {quotient, arith::SubIOp::create(builder, loc, dividend,
                                          mul(quotient, divider.divisor))};
}
