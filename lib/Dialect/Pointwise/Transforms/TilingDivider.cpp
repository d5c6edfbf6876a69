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

// Division by a magic multiplier in 32-bit kernels (docs/Performance.md, row
// `magic-division`).
Divider KernelEmitter::createDivider(Value divisor) {
  if (!indexType.isInteger(32) || getConstantIntValue(divisor))
    return {divisor, Value(), Value()};
  // shift = ceil(log2(d)), magic = floor(2^32 * (2^shift - d) / d) + 1,
  // computed in 64 bits; an empty dim (d = 0) launches nothing, but the
  // host must not divide by it.
  Type i64 = builder.getI64Type();
  Value one = constant(1);
  Value safe = arith::MaxUIOp::create(builder, loc, divisor, one);
  Value leadingZeros = math::CountLeadingZerosOp::create(
      builder, loc, arith::SubIOp::create(builder, loc, safe, one));
  Value shift = arith::SubIOp::create(builder, loc, constant(32), leadingZeros);
  auto wide = [&](Value value) {
    return arith::ExtUIOp::create(builder, loc, i64, value);
  };
  auto wideConstant = [&](int64_t value) {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getIntegerAttr(i64, value));
  };
  Value power =
      arith::ShLIOp::create(builder, loc, wideConstant(1), wide(shift));
  Value numerator = arith::ShLIOp::create(
      builder, loc, arith::SubIOp::create(builder, loc, power, wide(safe)),
      wideConstant(32));
  Value magic = arith::AddIOp::create(
      builder, loc, arith::DivUIOp::create(builder, loc, numerator, wide(safe)),
      wideConstant(1));
  return {divisor, arith::TruncIOp::create(builder, loc, indexType, magic),
          shift};
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
