//===- StripRoundingGuards.cpp - pw-strip-rounding-guards -----------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Cancels the negations that pw-fuse-maps writes around the roundings of
// fused producers, once in the kernels no canonicalization follows (see the
// pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace pointwise {
#define GEN_PASS_DEF_STRIPROUNDINGGUARDSPASS
#include "Pointwise/Conversion/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

/// The rounding of `-v` that `value` is, `truncf(-v)` to nearest even;
/// null otherwise.
arith::TruncFOp getGuardedRounding(Value value) {
  auto truncation = value.getDefiningOp<arith::TruncFOp>();
  if (!truncation)
    return {};
  std::optional<arith::RoundingMode> mode = truncation.getRoundingmode();
  if (mode && *mode != arith::RoundingMode::to_nearest_even)
    return {};
  if (!truncation.getIn().getDefiningOp<arith::NegFOp>())
    return {};
  return truncation;
}

/// Whether every use of `value` rounds it to `narrow` (an element type),
/// directly or through a guard's negation: a value that LLVM can then
/// compute in `narrow` itself.
bool isRoundedTo(Value value, Type narrow) {
  for (Operation *user : value.getUsers()) {
    if (isa<arith::TruncFOp>(user) &&
        getElementTypeOrSelf(user->getResult(0).getType()) == narrow)
      continue;
    if (isa<arith::NegFOp>(user) && isRoundedTo(user->getResult(0), narrow))
      continue;
    return false;
  }
  return true;
}

/// Whether the ops that read `widened` (a guarded rounding, widened) all
/// round their results to the rounding's type: the consumer is then narrow
/// arithmetic that LLVM computes in that type (packed on the GPU) once the
/// guard is gone. A consumer that goes on in f32 (op math across a body)
/// keeps the guard: without it, LLVM narrows the first op and converts
/// back and forth (docs/Performance.md, row `rounding-guards`).
bool feedsNarrowArithmetic(Value widened, Type narrow) {
  for (Operation *user : widened.getUsers()) {
    if (user->getNumResults() != 1 || !user->hasTrait<OpTrait::Elementwise>())
      return false;
    if (!isRoundedTo(user->getResult(0), narrow))
      return false;
  }
  return true;
}

/// `-negated`'s replacement, `truncf(v)` or `extf(truncf(v))`, or null when
/// `negated` is not a guarded rounding (possibly widened) or, widened, it
/// does not feed narrow arithmetic.
Value createUnguarded(OpBuilder &builder, arith::NegFOp negation) {
  Value negated = negation.getOperand();
  auto widening = negated.getDefiningOp<arith::ExtFOp>();
  arith::TruncFOp rounding =
      getGuardedRounding(widening ? widening.getIn() : negated);
  if (!rounding)
    return {};
  if (widening &&
      !feedsNarrowArithmetic(negation.getResult(),
                             getElementTypeOrSelf(rounding.getType())))
    return {};
  Value unguarded =
      rounding.getIn().getDefiningOp<arith::NegFOp>().getOperand();
  Value rounded = arith::TruncFOp::create(
      builder, negation.getLoc(), rounding.getType(), unguarded,
      /*roundingmode=*/nullptr, rounding.getFastmathAttr());
  if (!widening)
    return rounded;
  return arith::ExtFOp::create(builder, negation.getLoc(), widening.getType(),
                               rounded, widening.getFastmathAttr());
}

struct StripRoundingGuardsPass
    : pointwise::impl::StripRoundingGuardsPassBase<StripRoundingGuardsPass> {
  void runOnOperation() override {
    SmallVector<arith::NegFOp> negations;
    getOperation().walk(
        [&](arith::NegFOp negation) { negations.push_back(negation); });
    SmallVector<Operation *> guards;
    llvm::SmallPtrSet<Operation *, 16> seen;
    for (arith::NegFOp negation : negations) {
      OpBuilder builder(negation);
      Value unguarded = createUnguarded(builder, negation);
      if (!unguarded)
        continue;
      // The negation and the guard's own ops (the widening if any, the
      // rounding, the inner negation) go once nothing reads them; erased
      // only after every match, since one guard's inner negation can be
      // another's outer one.
      negation.replaceAllUsesWith(unguarded);
      Operation *op = negation;
      for (int step = isa<arith::ExtFOp>(negation.getOperand().getDefiningOp())
                          ? 4
                          : 3;
           step > 0; --step) {
        if (seen.insert(op).second)
          guards.push_back(op);
        if (step > 1)
          op = op->getOperand(0).getDefiningOp();
      }
    }
    // The ops that nothing reads any more, users first.
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation *&op : guards)
        if (op && isOpTriviallyDead(op)) {
          op->erase();
          op = nullptr;
          erased = true;
        }
    }
  }
};

} // namespace
