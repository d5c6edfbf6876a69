//===- ExpandFloatClasses.cpp - math.isinf / math.isnormal as compares ----===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites the float class predicates that no upstream lowering to LLVM
// handles into an absolute value and ordered comparisons with constants.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace pointwise {
#define GEN_PASS_DEF_EXPANDFLOATCLASSESPASS
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"
} // namespace pointwise

using namespace mlir;

namespace {

/// A constant of `type` (a float or a vector of floats) holding `value`.
Value createFloatConstant(PatternRewriter &rewriter, Location loc, Type type,
                          const llvm::APFloat &value) {
  auto elementType = cast<FloatType>(getElementTypeOrSelf(type));
  TypedAttr attr = rewriter.getFloatAttr(elementType, value);
  if (auto vector = dyn_cast<VectorType>(type))
    attr = DenseElementsAttr::get(vector, attr);
  return arith::ConstantOp::create(rewriter, loc, type, attr);
}

const llvm::fltSemantics &getSemantics(Type type) {
  return cast<FloatType>(getElementTypeOrSelf(type)).getFloatSemantics();
}

/// `magnitude predicate value`, an ordered comparison (false for NaN) with
/// a constant of the magnitude's type.
Value compareWith(PatternRewriter &rewriter, Location loc, Value magnitude,
                  arith::CmpFPredicate predicate, const llvm::APFloat &value) {
  Value constant =
      createFloatConstant(rewriter, loc, magnitude.getType(), value);
  return arith::CmpFOp::create(rewriter, loc, predicate, magnitude, constant);
}

/// math.isinf x: |x| == +inf.
struct ExpandIsInf : OpRewritePattern<math::IsInfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IsInfOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value magnitude = math::AbsFOp::create(rewriter, loc, op.getOperand());
    const llvm::fltSemantics &semantics = getSemantics(magnitude.getType());
    rewriter.replaceOp(op, compareWith(rewriter, loc, magnitude,
                                       arith::CmpFPredicate::OEQ,
                                       llvm::APFloat::getInf(semantics)));
    return success();
  }
};

/// math.isnormal x: smallest normal <= |x| < +inf.
struct ExpandIsNormal : OpRewritePattern<math::IsNormalOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::IsNormalOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value magnitude = math::AbsFOp::create(rewriter, loc, op.getOperand());
    const llvm::fltSemantics &semantics = getSemantics(magnitude.getType());
    Value atLeastNormal =
        compareWith(rewriter, loc, magnitude, arith::CmpFPredicate::OGE,
                    llvm::APFloat::getSmallestNormalized(semantics));
    Value finite =
        compareWith(rewriter, loc, magnitude, arith::CmpFPredicate::OLT,
                    llvm::APFloat::getInf(semantics));
    rewriter.replaceOpWithNewOp<arith::AndIOp>(op, atLeastNormal, finite);
    return success();
  }
};

struct ExpandFloatClassesPass
    : public pointwise::impl::ExpandFloatClassesPassBase<
          ExpandFloatClassesPass> {
  void runOnOperation() override {
    // Only these ops are rewritten, in place: the greedy driver would also
    // fold and hoist constants, which changes the tiled loops the GPU
    // lowering expects untouched until they are kernels.
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandIsInf, ExpandIsNormal>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
