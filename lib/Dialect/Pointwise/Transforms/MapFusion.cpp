//===- MapFusion.cpp - Fusing tensor maps into each other -----------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// `pw-fuse-maps`: on the tensor form of `pointwise.map`, producers are
// computed inside the maps that read their results, and sibling maps over one
// iteration space become one map with several outputs. The rules (when a
// producer is cheap enough to recompute, what happens to a producer with
// several users) are in the pass's description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/Dialect/Pointwise/Transforms/OpMath.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/SetVector.h"

namespace pointwise {
#define GEN_PASS_DEF_FUSEMAPSPASS
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

bool isTensorMap(Operation *op) {
  auto map = dyn_cast_or_null<MapOp>(op);
  return map && map.getNumResults() != 0;
}

//===----------------------------------------------------------------------===//
// Sizes that are provably equal
//===----------------------------------------------------------------------===//

/// What one size of a tensor is known to be: a static size, an SSA index
/// value, or dim `dim` of a tensor `value` that nothing more is known about.
struct KnownSize {
  int64_t staticSize = ShapedType::kDynamic;
  Value value;
  int64_t dim = -1;

  bool operator==(const KnownSize &other) const {
    return staticSize == other.staticSize && value == other.value &&
           dim == other.dim;
  }
};

KnownSize getKnownDimSize(Value tensor, int64_t dim);

/// The size an index value stands for: a constant, the dim of a tensor, or
/// the value itself.
KnownSize getKnownIndexSize(Value size) {
  APInt constant;
  if (matchPattern(size, m_ConstantInt(&constant)))
    return {constant.getSExtValue(), Value(), -1};
  if (auto dimOp = size.getDefiningOp<tensor::DimOp>())
    if (std::optional<int64_t> index = dimOp.getConstantIndex())
      if (auto type = dyn_cast<RankedTensorType>(dimOp.getSource().getType());
          type && *index >= 0 && *index < type.getRank())
        return getKnownDimSize(dimOp.getSource(), *index);
  return {ShapedType::kDynamic, size, -1};
}

/// Dim `dim` of `tensor`, followed through the destinations of
/// destination-style ops (a result has its destination's shape) to a static
/// size, a `tensor.empty` size or a tensor that defines its own shape.
KnownSize getKnownDimSize(Value tensor, int64_t dim) {
  while (true) {
    auto type = cast<RankedTensorType>(tensor.getType());
    if (!type.isDynamicDim(dim))
      return {type.getDimSize(dim), Value(), -1};
    auto result = dyn_cast<OpResult>(tensor);
    if (!result)
      return {ShapedType::kDynamic, tensor, dim};
    Operation *owner = result.getOwner();
    if (auto empty = dyn_cast<tensor::EmptyOp>(owner))
      return getKnownIndexSize(empty.getDynamicSize(dim));
    auto destinationStyle = dyn_cast<DestinationStyleOpInterface>(owner);
    if (!destinationStyle || !destinationStyle.hasPureTensorSemantics())
      return {ShapedType::kDynamic, tensor, dim};
    tensor = destinationStyle.getTiedOpOperand(result)->get();
  }
}

/// Whether two tensors have the same shape whenever the program runs.
bool haveProvablySameShape(Value a, Value b) {
  auto aType = cast<RankedTensorType>(a.getType());
  auto bType = cast<RankedTensorType>(b.getType());
  if (aType.getRank() != bType.getRank())
    return false;
  for (int64_t dim = 0; dim < aType.getRank(); ++dim) {
    KnownSize aSize = getKnownDimSize(a, dim);
    if (!(aSize == getKnownDimSize(b, dim)))
      return false;
  }
  return true;
}

/// Whether `map` reads `input` at its own full shape, every element once.
bool readsAtFullShape(MapOp map, Value input) {
  return haveProvablySameShape(input, map.getOutputs().front());
}

//===----------------------------------------------------------------------===//
// The cost rule
//===----------------------------------------------------------------------===//

/// Ops that cost much more than an add: transcendental math, division and
/// remainder, and ops with regions (loops, whose work is unbounded).
bool isExpensive(Operation &op) {
  if (op.getNumRegions() != 0)
    return true;
  if (isa<arith::DivFOp, arith::DivSIOp, arith::DivUIOp, arith::CeilDivSIOp,
          arith::CeilDivUIOp, arith::FloorDivSIOp, arith::RemFOp,
          arith::RemSIOp, arith::RemUIOp>(op))
    return true;
  if (isa<math::MathDialect>(op.getDialect()))
    return !isa<math::AbsFOp, math::AbsIOp, math::CopySignOp, math::FmaOp,
                math::CeilOp, math::FloorOp, math::TruncOp, math::RoundOp,
                math::RoundEvenOp, math::IsNaNOp, math::IsInfOp,
                math::IsFiniteOp, math::IsNormalOp, math::CountLeadingZerosOp,
                math::CountTrailingZerosOp, math::CtPopOp>(op);
  return false;
}

/// Whether computing `map`'s body again for every element that reads one of
/// its results through a broadcast costs little enough: at most `maxOps` ops
/// besides constants, none of them expensive.
bool isCheapToRecompute(MapOp map, unsigned maxOps) {
  unsigned count = 0;
  for (Operation &op : map.getBodyBlock()->without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>())
      continue;
    if (isExpensive(op) || ++count > maxOps)
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Legality
//===----------------------------------------------------------------------===//

/// Whether `consumer` runs at most once each time `producer` runs: it is in
/// the producer's block, or nested in it under ops whose regions run at most
/// once (`scf.if`, not a loop).
bool runsOncePerProducer(Operation *producer, Operation *consumer) {
  Block *block = producer->getBlock();
  Operation *ancestor = consumer;
  while (ancestor->getBlock() != block) {
    Region *region = ancestor->getParentRegion();
    Operation *parent = ancestor->getParentOp();
    if (!parent || isa<LoopLikeOpInterface>(parent))
      return false;
    auto branch = dyn_cast<RegionBranchOpInterface>(parent);
    if (!branch || branch.isRepetitiveRegion(region->getRegionNumber()))
      return false;
    ancestor = parent;
  }
  return true;
}

/// Whether every tensor input of `producer` may broadcast to the iteration
/// space of `consumer` as far as the types tell. It does whenever the two
/// maps run without error (broadcasting composes); a program that cannot run
/// without error may still break this, and is left alone rather than turned
/// into a map the verifier rejects.
bool inputsBroadcastTo(MapOp producer, MapOp consumer) {
  SmallVector<int64_t> space = consumer.getIterationShape();
  return llvm::all_of(producer.getInputs(), [&](Value input) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type)
      return true;
    if (type.getRank() > static_cast<int64_t>(space.size()))
      return false;
    ArrayRef<int64_t> aligned = ArrayRef(space).take_back(type.getRank());
    return llvm::all_of(
        llvm::zip_equal(type.getShape(), aligned), [](auto sizes) {
          auto [size, spaceSize] = sizes;
          return size == 1 || ShapedType::isDynamic(size) ||
                 ShapedType::isDynamic(spaceSize) || size == spaceSize;
        });
  });
}

/// Whether the op could move to `point`: every operand is defined before it.
bool operandsDominate(DominanceInfo &dominance, Operation *op,
                      Operation *point) {
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return dominance.properlyDominates(operand, point);
  });
}

/// Whether every use of `op`'s results comes after `point`.
bool usesComeAfter(DominanceInfo &dominance, Operation *op, Operation *point) {
  return llvm::all_of(op->getUsers(), [&](Operation *user) {
    return dominance.properlyDominates(point, user);
  });
}

//===----------------------------------------------------------------------===//
// Building fused maps
//===----------------------------------------------------------------------===//

/// Collects the inputs of a map being built, each value once, and the body
/// argument each one gets.
class InputList {
public:
  unsigned add(Value input) {
    auto [it, inserted] = positions.try_emplace(input, inputs.size());
    if (inserted)
      inputs.push_back(input);
    return it->second;
  }

  ArrayRef<Value> values() const { return inputs; }

  /// The body block of `map` (built with these inputs), with one argument
  /// per input.
  Block *createBody(RewriterBase &rewriter, MapOp map) const {
    SmallVector<Type> types;
    SmallVector<Location> locations;
    for (Value input : inputs) {
      types.push_back(MapOp::getScalarTypeOf(input.getType()));
      locations.push_back(input.getLoc());
    }
    return rewriter.createBlock(&map.getBody(), map.getBody().end(), types,
                                locations);
  }

  BlockArgument getArgument(Block *body, Value input) const {
    return body->getArgument(positions.lookup(input));
  }

private:
  SmallVector<Value> inputs;
  llvm::DenseMap<Value, unsigned> positions;
};

/// Collects the outputs of a map being built. A destination already in the
/// list is replaced by a new `tensor.empty` of its sizes, since two results
/// must not share one destination; other destinations can appear only once
/// (`canShareOneMap`).
class OutputList {
public:
  void add(RewriterBase &rewriter, Value destination) {
    if (seen.insert(destination).second) {
      outputs.push_back(destination);
      return;
    }
    auto empty = destination.getDefiningOp<tensor::EmptyOp>();
    outputs.push_back(rewriter.clone(*empty)->getResult(0));
  }

  ArrayRef<Value> values() const { return outputs; }

  SmallVector<Type> types() const {
    return llvm::map_to_vector(outputs,
                               [](Value output) { return output.getType(); });
  }

private:
  SmallVector<Value> outputs;
  llvm::SmallDenseSet<Value> seen;
};

/// Whether every destination of `a` and then `b` can go into one map.
bool canShareOneMap(MapOp a, MapOp b) {
  llvm::SmallDenseSet<Value> seen;
  for (Value output : llvm::concat<Value>(a.getOutputs(), b.getOutputs()))
    if (!seen.insert(output).second && !output.getDefiningOp<tensor::EmptyOp>())
      return false;
  return true;
}

/// Simplifies the body of a map just built from two bodies: a value both
/// compute (an input both convert, a producer two consumers recompute) is
/// computed once, and ops whose results nothing uses are erased.
void simplifyBody(RewriterBase &rewriter, MapOp map) {
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, map);
  Block *body = map.getBodyBlock();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (isOpTriviallyDead(&op))
      rewriter.eraseOp(&op);
}

/// Makes the roundings that stand for the producer's stores (the `truncf`s
/// to f16/bf16 that end its opmath clone) survive canonicalization: arith
/// folds `truncf(sitofp x)` into a narrower `sitofp x`, which a body computes
/// in f32 without rounding (opmath), and an explicit rounding mode would
/// lower to a constrained intrinsic. Each becomes `-truncf(-v)`, the same
/// bits, since rounding to nearest even is symmetric. Returns the values the
/// consumer reads.
SmallVector<Value> protectRoundings(RewriterBase &rewriter,
                                    ArrayRef<Value> stored) {
  SmallVector<Value> protectedValues;
  for (Value value : stored) {
    auto truncation = value.getDefiningOp<arith::TruncFOp>();
    if (!truncation) {
      protectedValues.push_back(value);
      continue;
    }
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(truncation);
    Value negated = arith::NegFOp::create(rewriter, truncation.getLoc(),
                                          truncation.getIn());
    rewriter.modifyOpInPlace(
        truncation, [&] { truncation.getInMutable().assign(negated); });
    rewriter.setInsertionPointAfter(truncation);
    protectedValues.push_back(
        arith::NegFOp::create(rewriter, truncation.getLoc(), truncation));
  }
  return protectedValues;
}

/// Replaces `consumer` by a map that computes `producer` itself: its inputs
/// are the consumer's inputs other than the producer's results, then the
/// producer's inputs; its body computes the producer's values (in opmath,
/// rounded to the producer's element types as stores would round them) and
/// then the consumer's. With `absorb`, the new map also writes the
/// producer's results into the producer's destinations and replaces the
/// producer's results everywhere. Returns the new map.
MapOp fuseInto(RewriterBase &rewriter, MapOp producer, MapOp consumer,
               bool absorb) {
  InputList inputs;
  for (Value input : consumer.getInputs())
    if (input.getDefiningOp() != producer)
      inputs.add(input);
  for (Value input : producer.getInputs())
    inputs.add(input);

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(consumer);
  OutputList outputs;
  for (Value output : consumer.getOutputs())
    outputs.add(rewriter, output);
  if (absorb)
    for (Value output : producer.getOutputs())
      outputs.add(rewriter, output);

  auto fused = MapOp::create(rewriter, consumer.getLoc(), outputs.types(),
                             inputs.values(), outputs.values());
  fused->setDiscardableAttrs(consumer->getDiscardableAttrDictionary());
  Block *body = inputs.createBody(rewriter, fused);

  SmallVector<Value> producerInputs =
      llvm::map_to_vector(producer.getInputs(), [&](Value input) -> Value {
        return inputs.getArgument(body, input);
      });
  SmallVector<Value> produced =
      cloneBodyInOpMath(rewriter, producer.getLoc(), producer, producerInputs);
  produced = protectRoundings(rewriter, produced);

  IRMapping mapping;
  for (auto [input, argument] : llvm::zip_equal(
           consumer.getInputs(), consumer.getBodyBlock()->getArguments())) {
    auto result = dyn_cast<OpResult>(input);
    if (result && result.getOwner() == producer)
      mapping.map(argument, produced[result.getResultNumber()]);
    else
      mapping.map(argument, inputs.getArgument(body, input));
  }
  for (Operation &op : consumer.getBodyBlock()->without_terminator())
    rewriter.clone(op, mapping);
  auto consumerYield = cast<YieldOp>(consumer.getBodyBlock()->getTerminator());
  SmallVector<Value> yielded =
      llvm::map_to_vector(consumerYield.getValues(), [&](Value value) {
        return mapping.lookupOrDefault(value);
      });
  if (absorb)
    llvm::append_range(yielded, produced);
  YieldOp::create(rewriter, consumerYield.getLoc(), yielded);
  simplifyBody(rewriter, fused);

  unsigned consumerResults = consumer.getNumResults();
  rewriter.replaceOp(consumer, fused.getResults().take_front(consumerResults));
  if (absorb)
    rewriter.replaceOp(producer,
                       fused.getResults().drop_front(consumerResults));
  return fused;
}

/// Replaces `first` and `second` (in that order in one block) by one map at
/// `point` (one of the two) with the inputs and outputs of both.
void mergeSiblings(RewriterBase &rewriter, MapOp first, MapOp second,
                   MapOp point) {
  InputList inputs;
  for (Value input : llvm::concat<Value>(first.getInputs(), second.getInputs()))
    inputs.add(input);

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(point);
  OutputList outputs;
  for (Value output :
       llvm::concat<Value>(first.getOutputs(), second.getOutputs()))
    outputs.add(rewriter, output);

  auto merged = MapOp::create(rewriter, point.getLoc(), outputs.types(),
                              inputs.values(), outputs.values());
  merged->setDiscardableAttrs(point->getDiscardableAttrDictionary());
  Block *body = inputs.createBody(rewriter, merged);

  SmallVector<Value> yielded;
  for (MapOp map : {first, second}) {
    IRMapping mapping;
    for (auto [input, argument] :
         llvm::zip_equal(map.getInputs(), map.getBodyBlock()->getArguments()))
      mapping.map(argument, inputs.getArgument(body, input));
    for (Operation &op : map.getBodyBlock()->without_terminator())
      rewriter.clone(op, mapping);
    for (Value value :
         cast<YieldOp>(map.getBodyBlock()->getTerminator()).getValues())
      yielded.push_back(mapping.lookupOrDefault(value));
  }
  YieldOp::create(rewriter, merged.getLoc(), yielded);
  simplifyBody(rewriter, merged);

  unsigned firstResults = first.getNumResults();
  rewriter.replaceOp(first, merged.getResults().take_front(firstResults));
  rewriter.replaceOp(second, merged.getResults().drop_front(firstResults));
}

//===----------------------------------------------------------------------===//
// The rules
//===----------------------------------------------------------------------===//

class MapFuser {
public:
  MapFuser(Operation *root, unsigned maxRecomputeOps)
      : root(root), rewriter(root->getContext()),
        maxRecomputeOps(maxRecomputeOps) {}

  void run() {
    readDimsFromDestinations();
    while (fuseOneProducer() || mergeOnePair()) {
    }
  }

private:
  /// `tensor.dim` of a map result becomes `tensor.dim` of its destination, so
  /// that a producer's shape queries do not keep it alive.
  void readDimsFromDestinations() {
    root->walk([&](tensor::DimOp dim) {
      auto result = dyn_cast<OpResult>(dim.getSource());
      if (!result || !isTensorMap(result.getOwner()))
        return;
      auto map = cast<MapOp>(result.getOwner());
      rewriter.modifyOpInPlace(dim, [&] {
        dim.getSourceMutable().assign(map.getTiedOpOperand(result)->get());
      });
    });
  }

  SmallVector<MapOp> collectTensorMaps() {
    SmallVector<MapOp> maps;
    root->walk([&](MapOp map) {
      if (isTensorMap(map))
        maps.push_back(map);
    });
    return maps;
  }

  /// Applies the producer rule to the last producer it changes anything for,
  /// so that consumers absorb their producers before those are considered.
  bool fuseOneProducer() {
    SmallVector<MapOp> maps = collectTensorMaps();
    for (MapOp producer : llvm::reverse(maps))
      if (fuseProducer(producer))
        return true;
    return false;
  }

  bool fuseProducer(MapOp producer) {
    bool cheap = isCheapToRecompute(producer, maxRecomputeOps);
    llvm::SetVector<MapOp> consumers, fullShapeConsumers;
    bool everyUseFusible = true;
    for (OpOperand &use : producer->getUses()) {
      auto consumer = dyn_cast<MapOp>(use.getOwner());
      if (!consumer || !isTensorMap(consumer) || !consumer.isDpsInput(&use) ||
          !runsOncePerProducer(producer, consumer) ||
          !inputsBroadcastTo(producer, consumer)) {
        everyUseFusible = false;
        continue;
      }
      if (readsAtFullShape(consumer, use.get()))
        fullShapeConsumers.insert(consumer);
      else if (!cheap) {
        everyUseFusible = false;
        continue;
      }
      consumers.insert(consumer);
    }
    // A consumer that also uses a result as its destination is not fused.
    consumers.remove_if([&](MapOp consumer) {
      bool destination = llvm::any_of(consumer.getOutputs(), [&](Value output) {
        return output.getDefiningOp() == producer;
      });
      everyUseFusible &= !destination;
      return destination;
    });
    if (consumers.empty())
      return false;

    if (everyUseFusible) {
      for (MapOp consumer : consumers)
        fuseInto(rewriter, producer, consumer, /*absorb=*/false);
      rewriter.eraseOp(producer);
      return true;
    }

    DominanceInfo dominance(root);
    for (MapOp consumer : fullShapeConsumers) {
      if (!consumers.contains(consumer) || !canShareOneMap(consumer, producer))
        continue;
      bool othersAfter =
          llvm::all_of(producer->getUsers(), [&](Operation *user) {
            return user == consumer.getOperation() ||
                   dominance.properlyDominates(consumer, user);
          });
      if (othersAfter) {
        fuseInto(rewriter, producer, consumer, /*absorb=*/true);
        return true;
      }
    }

    if (!cheap)
      return false;
    for (MapOp consumer : consumers)
      fuseInto(rewriter, producer, consumer, /*absorb=*/false);
    return true;
  }

  /// Merges the first pair of siblings found, if any.
  bool mergeOnePair() {
    SmallVector<MapOp> maps = collectTensorMaps();
    DominanceInfo dominance(root);
    for (auto [index, first] : llvm::enumerate(maps))
      for (MapOp second : ArrayRef(maps).drop_front(index + 1))
        if (tryMerge(dominance, first, second))
          return true;
    return false;
  }

  bool tryMerge(DominanceInfo &dominance, MapOp first, MapOp second) {
    if (first->getBlock() != second->getBlock())
      return false;
    if (second->isBeforeInBlock(first))
      std::swap(first, second);
    if (!haveProvablySameShape(first.getOutputs().front(),
                               second.getOutputs().front()) ||
        !shareATensorInput(first, second) || !canShareOneMap(first, second))
      return false;
    // Either place works only if the two do not depend on each other.
    if (operandsDominate(dominance, second, first))
      mergeSiblings(rewriter, first, second, first);
    else if (usesComeAfter(dominance, first, second))
      mergeSiblings(rewriter, first, second, second);
    else
      return false;
    return true;
  }

  static bool shareATensorInput(MapOp a, MapOp b) {
    return llvm::any_of(a.getInputs(), [&](Value input) {
      return isa<RankedTensorType>(input.getType()) &&
             llvm::is_contained(b.getInputs(), input);
    });
  }

  Operation *root;
  IRRewriter rewriter;
  unsigned maxRecomputeOps;
};

struct FuseMapsPass : pointwise::impl::FuseMapsPassBase<FuseMapsPass> {
  using FuseMapsPassBase::FuseMapsPassBase;

  void runOnOperation() override {
    MapFuser(getOperation(), maxRecomputeOps).run();
  }
};

} // namespace
