//===- Bf16MathToNVVM.cpp - pw-bf16-math-to-nvvm --------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Replaces the kernels' f32 `math.tanh` of bf16 values, rounded back to
// bf16, by a short sequence of the GPU's exp2 and reciprocal instructions
// whose bf16 rounding is exact; and a `math.tanh` inside the f32
// computation of one bf16 number (a GELU) by libdevice's large-argument
// branch alone, where trying every input proves the bf16 results unchanged
// (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Conversion/Passes.h"

#include "Bf16Function.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>
#include <cmath>

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

/// libdevice's `tanhf` (CUDA 13's libdevice.10.bc) computes |x| >= 0.6 as
/// copysign(|x| >= kSaturateFrom ? 1 : 1 - 2 / (2^(|x| * kTwoLog2E) + 1), x)
/// with `ex2.approx.ftz.f32` and `rcp.approx.ftz.f32`, and |x| < 0.6 by an
/// odd polynomial; `createLargeArgumentTanh` emits that branch alone.
constexpr float kPolynomialBelow = 0.6f;
constexpr float kSaturateFrom = 9.01091384887695f;

/// Below this magnitude `createLargeArgumentTanh` gives x itself, as
/// libdevice's polynomial does to f32 precision: x^3 / 3 is under half an
/// f32 ulp of x, where 1 - 2 / (2^(2x / ln 2) + 1) cancels to nothing.
constexpr float kLargeArgumentIdentityBelow = 0x1p-12f;

/// The relative error allowed to `ex2.approx.ftz.f32` and
/// `rcp.approx.ftz.f32` in the bounds of `boundLargeArgumentTanh`: about
/// twice what PTX documents for them.
constexpr double kApproximationError = 0x1p-21;

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

/// 1 - 2 / (2^(x * kTwoLog2E) + 1) with `ex2.approx.ftz.f32` and
/// `rcp.approx.ftz.f32`, for the f32 values `x` holds: tanh(x) but for the
/// two instructions' errors and, near 0, the cancellation of 1 - 2 / ~2.
Value createExp2Tanh(OpBuilder &builder, Location loc, Value x) {
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
  return math::FmaOp::create(builder, loc, reciprocal,
                             createSplat(builder, loc, type, -2.0f), one);
}

/// The sequence of the pass description, for the f32 values `x` hold.
Value createBf16Tanh(OpBuilder &builder, Location loc, Value x) {
  Type type = x.getType();
  Value tanh = createExp2Tanh(builder, loc, x);
  Value magnitude = math::AbsFOp::create(builder, loc, x);
  Value small =
      arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OLT, magnitude,
                            createSplat(builder, loc, type, kIdentityBelow));
  return arith::SelectOp::create(builder, loc, small, x, tanh);
}

/// libdevice's large-argument branch for every |x| (see kPolynomialBelow),
/// x itself below kLargeArgumentIdentityBelow.
Value createLargeArgumentTanh(OpBuilder &builder, Location loc, Value x) {
  Type type = x.getType();
  Value magnitude = math::AbsFOp::create(builder, loc, x);
  Value large = createExp2Tanh(builder, loc, magnitude);
  Value saturated =
      arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::OGE, magnitude,
                            createSplat(builder, loc, type, kSaturateFrom));
  large = arith::SelectOp::create(builder, loc, saturated,
                                  createSplat(builder, loc, type, 1.0f), large);
  Value signedLarge = math::CopySignOp::create(builder, loc, large, x);
  Value small = arith::CmpFOp::create(
      builder, loc, arith::CmpFPredicate::OLT, magnitude,
      createSplat(builder, loc, type, kLargeArgumentIdentityBelow));
  return arith::SelectOp::create(builder, loc, small, x, signedLarge);
}

/// Bounds on 1 - 2 / (2^(a * kTwoLog2E) + 1) for an f32 a >= 0, as
/// `createLargeArgumentTanh` computes it with `ex2` and `rcp` off by up to
/// kApproximationError: `lowest` picks the lower bound.
double boundLargeArgument(float a, bool lowest) {
  if (a >= kSaturateFrom)
    return 1.0;
  // A float64 value within a float64 ulp of the exact one, rounded out to
  // f32 downward or upward.
  auto out = [](double value, bool down) {
    return down ? roundDownToF32(std::nextafter(value, -INFINITY))
                : roundUpToF32(std::nextafter(value, INFINITY));
  };
  // The multiply feeds ex2 alone: rounded to nearest, never contracted.
  float scaled = static_cast<float>(static_cast<double>(a) * kTwoLog2E);
  // A larger power gives a larger result, a larger reciprocal a smaller one.
  double power =
      out(std::exp2(static_cast<double>(scaled)) *
              (lowest ? 1 - kApproximationError : 1 + kApproximationError),
          lowest);
  double denominator = out(power + 1, lowest);
  double reciprocal =
      out((1 / denominator) *
              (lowest ? 1 + kApproximationError : 1 - kApproximationError),
          !lowest);
  return out(1 - 2 * reciprocal, lowest);
}

/// Bounds on `createLargeArgumentTanh` of a value within `operands[0]`.
/// Each of its three pieces (x, the exp2 formula, 1) rises with |x|, so a
/// piece's bounds over an interval are its values at the interval's ends.
F32Bounds boundLargeArgumentTanh(llvm::ArrayRef<F32Bounds> operands) {
  F32Bounds x = operands[0];
  if (x.isNaN())
    return x;
  // Bounds over magnitudes in [low, high].
  auto magnitudes = [](double low, double high) -> F32Bounds {
    double lowest = INFINITY, highest = -INFINITY;
    double identityEnd = std::nextafter(kLargeArgumentIdentityBelow, 0.0f);
    if (low < kLargeArgumentIdentityBelow) {
      lowest = std::min(lowest, low);
      highest = std::max(highest, std::min(high, identityEnd));
    }
    if (high >= kLargeArgumentIdentityBelow) {
      float from = std::max<double>(low, kLargeArgumentIdentityBelow);
      lowest = std::min(lowest, boundLargeArgument(from, /*lowest=*/true));
      highest = std::max(highest,
                         boundLargeArgument(static_cast<float>(high), false));
    }
    return {lowest, highest};
  };
  if (x.low >= 0)
    return magnitudes(x.low, x.high);
  if (x.high <= 0) {
    F32Bounds m = magnitudes(-x.high, -x.low);
    return {-m.high, -m.low};
  }
  F32Bounds negative = magnitudes(0, -x.low);
  F32Bounds positive = magnitudes(0, x.high);
  return {-negative.high, positive.high};
}

/// Whether libdevice's `tanhf` and `createLargeArgumentTanh` compute the
/// same bits on every value within `operands[0]`: the same instructions on
/// |x| >= 0.6, a NaN for a NaN.
bool computesAsLibdevice(llvm::ArrayRef<F32Bounds> operands) {
  F32Bounds x = operands[0];
  return x.isNaN() || x.low >= kPolynomialBelow || x.high <= -kPolynomialBelow;
}

F32Bounds boundLibdeviceTanh(llvm::ArrayRef<F32Bounds> operands) {
  return boundTanhf(operands[0]);
}

/// Whether a target of `module` flushes subnormals (NVVM's `ftz`): libdevice
/// then computes its polynomial branch with flushing instructions, which
/// boundLibdeviceTanh does not model.
bool flushesSubnormals(gpu::GPUModuleOp module) {
  ArrayAttr targets = module.getTargetsAttr();
  return targets && llvm::any_of(targets, [](Attribute target) {
           auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target);
           return nvvm && nvvm.hasFtz();
         });
}

struct Bf16MathToNVVMPass
    : pointwise::impl::Bf16MathToNVVMPassBase<Bf16MathToNVVMPass> {
  void runOnOperation() override {
    SmallVector<math::TanhOp> candidates;
    getOperation().walk([&](math::TanhOp tanh) {
      Type element = getElementTypeOrSelf(tanh.getType());
      auto vectorType = dyn_cast<VectorType>(tanh.getType());
      if (element.isF32() && (!vectorType || vectorType.getRank() == 1))
        candidates.push_back(tanh);
    });
    bool checkFunctions = !flushesSubnormals(getOperation());
    for (math::TanhOp tanh : candidates) {
      OpBuilder builder(tanh);
      Value replacement;
      if (holdsBf16(tanh.getOperand()) && isRoundedToBf16(tanh.getResult())) {
        replacement = createBf16Tanh(builder, tanh.getLoc(), tanh.getOperand());
      } else if (std::optional<Bf16Function> function =
                     checkFunctions ? findBf16Function(tanh) : std::nullopt;
                 function &&
                 roundsAlikeOnEveryInput(
                     *function, tanh, "tanh as libdevice's large branch",
                     boundLibdeviceTanh, boundLargeArgumentTanh,
                     computesAsLibdevice)) {
        replacement =
            createLargeArgumentTanh(builder, tanh.getLoc(), tanh.getOperand());
      } else {
        continue;
      }
      tanh.replaceAllUsesWith(replacement);
      tanh.erase();
    }
  }
};

} // namespace
