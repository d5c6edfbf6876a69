//===- MapCanonicalization.cpp - Canonicalization of pointwise.map --------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The simplifications `--canonicalize` applies to `pointwise.map`, in both
// forms: one input per distinct value, constants inside the body, no unused
// inputs; in the tensor form, no unused results and no results that only
// forward an input; in the memref form, no map that copies a buffer onto
// itself.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/BitVector.h"

using namespace mlir;
using namespace pointwise;

namespace {

/// Replaces `map` by a map with the inputs not in `droppedInputs` and the
/// outputs not in `droppedOutputs`, moving the body over. The body loses the
/// arguments of the dropped inputs (which must have no uses left) and the
/// yielded values of the dropped outputs; the results of the kept outputs
/// replace the old ones (the dropped ones must have no uses left).
void rebuildWithout(PatternRewriter &rewriter, MapOp map,
                    const llvm::BitVector &droppedInputs,
                    const llvm::BitVector &droppedOutputs) {
  SmallVector<Value> inputs, outputs;
  for (auto [index, input] : llvm::enumerate(map.getInputs()))
    if (!droppedInputs.test(index))
      inputs.push_back(input);
  for (auto [index, output] : llvm::enumerate(map.getOutputs()))
    if (!droppedOutputs.test(index))
      outputs.push_back(output);

  SmallVector<Type> resultTypes;
  for (Value output : outputs)
    if (isa<RankedTensorType>(output.getType()))
      resultTypes.push_back(output.getType());
  auto rebuilt =
      MapOp::create(rewriter, map.getLoc(), resultTypes, inputs, outputs);
  rebuilt->setDiscardableAttrs(map->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(map.getBody(), rebuilt.getBody(),
                              rebuilt.getBody().end());

  Block *body = rebuilt.getBodyBlock();
  rewriter.modifyOpInPlace(rebuilt,
                           [&] { body->eraseArguments(droppedInputs); });
  auto yield = cast<YieldOp>(body->getTerminator());
  rewriter.modifyOpInPlace(yield, [&] {
    SmallVector<Value> kept;
    for (auto [index, value] : llvm::enumerate(yield.getValues()))
      if (!droppedOutputs.test(index))
        kept.push_back(value);
    yield.getValuesMutable().assign(kept);
  });

  SmallVector<Value> replacements;
  unsigned next = 0;
  for (unsigned index = 0; index < map.getNumResults(); ++index)
    replacements.push_back(
        droppedOutputs.test(index) ? Value() : rebuilt.getResult(next++));
  rewriter.replaceOp(map, replacements);
}

/// `ins(%a, %a)` reads one value twice: the second argument's uses move to
/// the first, and inputs whose arguments the body never uses go. In the
/// memref form, an unused input is dropped with its run-time broadcast check,
/// as `linalg` drops unused operands.
struct DropRedundantInputs : OpRewritePattern<MapOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MapOp map,
                                PatternRewriter &rewriter) const override {
    Block *body = map.getBodyBlock();
    llvm::BitVector dropped(map.getNumInputs());
    llvm::SmallDenseMap<Value, unsigned> firstUse;
    for (auto [index, input] : llvm::enumerate(map.getInputs())) {
      BlockArgument argument = body->getArgument(index);
      auto [it, inserted] = firstUse.try_emplace(input, index);
      if (!inserted) {
        rewriter.replaceAllUsesWith(argument, body->getArgument(it->second));
        dropped.set(index);
      } else if (argument.use_empty()) {
        dropped.set(index);
      }
    }
    // A first occurrence whose argument is unused is dropped only if no later
    // duplicate handed it uses.
    for (auto [index, input] : llvm::enumerate(map.getInputs()))
      if (dropped.test(index) && firstUse.lookup(input) == index &&
          !body->getArgument(index).use_empty())
        dropped.reset(index);
    if (dropped.none())
      return failure();
    rebuildWithout(rewriter, map, dropped,
                   llvm::BitVector(map.getNumOutputs()));
    return success();
  }
};

/// A scalar input that is a constant becomes an `arith.constant` at the
/// start of the body.
struct InlineConstantScalars : OpRewritePattern<MapOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MapOp map,
                                PatternRewriter &rewriter) const override {
    Block *body = map.getBodyBlock();
    bool changed = false;
    for (auto [index, input] : llvm::enumerate(map.getInputs())) {
      if (isa<ShapedType>(input.getType()))
        continue;
      BlockArgument argument = body->getArgument(index);
      TypedAttr value;
      if (argument.use_empty() || !matchPattern(input, m_Constant(&value)) ||
          !arith::ConstantOp::isBuildableWith(value, input.getType()))
        continue;
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(body);
      Value constant =
          arith::ConstantOp::create(rewriter, input.getLoc(), value);
      rewriter.replaceAllUsesWith(argument, constant);
      changed = true;
    }
    // The arguments are now unused; DropRedundantInputs removes the inputs.
    return success(changed);
  }
};

/// The body argument that `value` is, if it is one of the map's inputs.
std::optional<unsigned> getInputIndex(MapOp map, Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument || argument.getOwner() != map.getBodyBlock())
    return std::nullopt;
  return argument.getArgNumber();
}

/// In the tensor form, a result that yields an input unchanged is that input
/// when the two are the same tensor: the input is the result's destination,
/// or both have one fully static type (a dynamic input of the same type may
/// still broadcast a size-1 dim at run time). Such results are replaced by
/// the input, and results with no uses are dropped with their outputs. The
/// map itself goes when no result has uses: it has no memory effects.
struct DropForwardedAndUnusedResults : OpRewritePattern<MapOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MapOp map,
                                PatternRewriter &rewriter) const override {
    if (map.getNumResults() == 0)
      return failure();
    auto yield = cast<YieldOp>(map.getBodyBlock()->getTerminator());
    bool changed = false;
    for (auto [index, result, yielded, output] : llvm::enumerate(
             map.getResults(), yield.getValues(), map.getOutputs())) {
      std::optional<unsigned> input = getInputIndex(map, yielded);
      if (!input || result.use_empty())
        continue;
      Value source = map.getInputs()[*input];
      auto type = dyn_cast<RankedTensorType>(source.getType());
      if (source != output &&
          !(type && type == output.getType() && type.hasStaticShape()))
        continue;
      rewriter.replaceAllUsesWith(result, source);
      changed = true;
    }

    llvm::BitVector unused(map.getNumOutputs());
    for (auto [index, result] : llvm::enumerate(map.getResults()))
      if (result.use_empty())
        unused.set(index);
    // A map with no used result is dead; erasing it is the dead-code
    // eliminator's job, which keeps one place deciding what is dead.
    if (unused.none() || unused.all())
      return success(changed);
    rebuildWithout(rewriter, map, llvm::BitVector(map.getNumInputs()), unused);
    return success();
  }
};

/// A memref map whose every output receives, unchanged, the element it reads
/// from the very same buffer stores nothing new.
struct EraseSelfCopy : OpRewritePattern<MapOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MapOp map,
                                PatternRewriter &rewriter) const override {
    if (map.getNumResults() != 0)
      return failure();
    auto yield = cast<YieldOp>(map.getBodyBlock()->getTerminator());
    for (auto [yielded, output] :
         llvm::zip_equal(yield.getValues(), map.getOutputs())) {
      std::optional<unsigned> input = getInputIndex(map, yielded);
      if (!input || map.getInputs()[*input] != output)
        return failure();
    }
    rewriter.eraseOp(map);
    return success();
  }
};

} // namespace

void MapOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *context) {
  patterns.add<DropRedundantInputs, InlineConstantScalars,
               DropForwardedAndUnusedResults, EraseSelfCopy>(context);
}
