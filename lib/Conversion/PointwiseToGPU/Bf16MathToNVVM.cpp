//===- Bf16MathToNVVM.cpp - pw-bf16-math-to-nvvm --------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Replaces the kernels' f32 `math.tanh` of bf16 values, rounded back to
// bf16, by a short sequence of the GPU's exp2 and reciprocal instructions
// whose bf16 rounding is exact (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace pointwise {
#define GEN_PASS_DEF_BF16MATHTONVVMPASS
#include "Pointwise/Conversion/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

/// Below this magnitude tanh(x) rounds to x in bf16: x^3 / 3 is under half
/// an ulp of x (docs/Performance.md, row `bf16-tanh`).
constexpr float kIdentityBelow = 0.0625f;

/// 2 / ln 2: 2^(x * kTwoLog2E) is e^(2x).
constexpr float kTwoLog2E = 2.8853900817779268f;

bool isBf16Element(Type type) { return getElementTypeOrSelf(type).isBF16(); }

/// Whether `value` holds bf16 numbers only: a bf16 value extended, or its
/// negation or absolute value (both exact).
bool holdsBf16(Value value) {
  Operation *defining = value.getDefiningOp();
  if (auto extend = dyn_cast_or_null<arith::ExtFOp>(defining))
    return isBf16Element(extend.getIn().getType());
  if (isa_and_nonnull<arith::NegFOp, math::AbsFOp>(defining))
    return holdsBf16(defining->getOperand(0));
  return false;
}

/// Whether every use of `value` rounds it to bf16 to nearest, even, directly
/// or through a negation or absolute value (which commute with that
/// rounding), or asks whether it is NaN.
bool isRoundedToBf16(Value value) {
  if (value.use_empty())
    return false;
  for (Operation *user : value.getUsers()) {
    if (auto truncate = dyn_cast<arith::TruncFOp>(user)) {
      std::optional<arith::RoundingMode> mode = truncate.getRoundingmode();
      if (!isBf16Element(truncate.getType()) ||
          (mode && *mode != arith::RoundingMode::to_nearest_even))
        return false;
      continue;
    }
    if (isa<arith::NegFOp, math::AbsFOp>(user) &&
        isRoundedToBf16(user->getResult(0)))
      continue;
    // A NaN test of the rounded value, which canonicalization moves onto
    // the unrounded one: the sequence gives NaN exactly where tanh does.
    if (auto compare = dyn_cast<arith::CmpFOp>(user);
        compare && (compare.getPredicate() == arith::CmpFPredicate::UNO ||
                    compare.getPredicate() == arith::CmpFPredicate::ORD))
      continue;
    return false;
  }
  return true;
}

/// `compute` applied to each f32 lane of `value` (a scalar or a 1-D vector),
/// for instructions that exist on scalars only.
Value mapLanes(OpBuilder &builder, Location loc, Value value,
               llvm::function_ref<Value(Value)> compute) {
  auto vectorType = dyn_cast<VectorType>(value.getType());
  if (!vectorType)
    return compute(value);
  SmallVector<Value> lanes;
  for (int64_t lane = 0, e = vectorType.getNumElements(); lane < e; ++lane)
    lanes.push_back(
        compute(vector::ExtractOp::create(builder, loc, value, lane)));
  return vector::FromElementsOp::create(builder, loc, vectorType, lanes);
}

/// A constant of `type` (f32 or a vector of f32) whose lanes are `number`.
Value createSplat(OpBuilder &builder, Location loc, Type type, float number) {
  FloatAttr scalar = builder.getF32FloatAttr(number);
  if (auto vectorType = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(
        builder, loc, DenseElementsAttr::get(vectorType, scalar.getValue()));
  return arith::ConstantOp::create(builder, loc, scalar);
}

/// The sequence of the pass description, for the f32 values `x` hold.
Value createBf16Tanh(OpBuilder &builder, Location loc, Value x) {
  Type type = x.getType();
  Type f32 = builder.getF32Type();
  Value scaled = arith::MulFOp::create(
      builder, loc, x, createSplat(builder, loc, type, kTwoLog2E));
  Value power = mapLanes(builder, loc, scaled, [&](Value lane) {
    return LLVM::CallIntrinsicOp::create(
               builder, loc, f32,
               builder.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"), lane)
        .getResult(0);
  });
  Value one = createSplat(builder, loc, type, 1.0f);
  Value denominator = arith::AddFOp::create(builder, loc, power, one);
  Value reciprocal = mapLanes(builder, loc, denominator, [&](Value lane) {
    return NVVM::RcpApproxFtzF32Op::create(builder, loc, f32, lane);
  });
  Value tanh = math::FmaOp::create(builder, loc, reciprocal,
                                   createSplat(builder, loc, type, -2.0f), one);
  Value magnitude = math::AbsFOp::create(builder, loc, x);
  Value small =
      arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OLT, magnitude,
                            createSplat(builder, loc, type, kIdentityBelow));
  return arith::SelectOp::create(builder, loc, small, x, tanh);
}

struct Bf16MathToNVVMPass
    : pointwise::impl::Bf16MathToNVVMPassBase<Bf16MathToNVVMPass> {
  void runOnOperation() override {
    SmallVector<math::TanhOp> candidates;
    getOperation().walk([&](math::TanhOp tanh) {
      Type element = getElementTypeOrSelf(tanh.getType());
      auto vectorType = dyn_cast<VectorType>(tanh.getType());
      if (element.isF32() && (!vectorType || vectorType.getRank() == 1) &&
          holdsBf16(tanh.getOperand()) && isRoundedToBf16(tanh.getResult()))
        candidates.push_back(tanh);
    });
    for (math::TanhOp tanh : candidates) {
      OpBuilder builder(tanh);
      tanh.replaceAllUsesWith(
          createBf16Tanh(builder, tanh.getLoc(), tanh.getOperand()));
      tanh.erase();
    }
  }
};

} // namespace
