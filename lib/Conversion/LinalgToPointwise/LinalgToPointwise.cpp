//===- LinalgToPointwise.cpp - pw-convert-linalg-to-pointwise -------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Elementwise linalg ops become pointwise.map ops. The loops of a linalg op
// are the map's iteration space in the order of output #0's dims; each
// operand is turned into a view whose dims line up with that space under
// NumPy broadcasting (transposes, unit dims, unit slices), so that the map
// reads and writes the same elements without copying any.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Conversion/Passes.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"

namespace pointwise {
#define GEN_PASS_DEF_CONVERTLINALGTOPOINTWISEPASS
#include "Pointwise/Conversion/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

/// The iteration position (dim of the map's iteration space) of every loop
/// of a linalg op: the position of the loop among output #0's dims.
using LoopPositions = SmallVector<unsigned>;

/// Per dim of an operand view: the iteration position the dim belongs to, or
/// nullopt for a dim of size 1 that no loop indexes (it may take the place
/// of any loop the operand does not index).
using DimPositions = SmallVector<std::optional<unsigned>>;

/// The size of `dim` of a memref or tensor: an attribute if static, a
/// `memref.dim`/`tensor.dim` otherwise.
OpFoldResult getMixedSize(OpBuilder &builder, Location loc, Value shaped,
                          unsigned dim) {
  if (isa<MemRefType>(shaped.getType()))
    return memref::getMixedSize(builder, loc, shaped, dim);
  return tensor::getMixedSize(builder, loc, shaped, dim);
}

/// Slices the dims of `operand` that `map` indexes with the constant 0 to
/// size 1 at offset 0, where they are not of size 1 already.
Value sliceConstantDims(OpBuilder &builder, Location loc, Value operand,
                        AffineMap map) {
  auto type = cast<ShapedType>(operand.getType());
  auto needsSlice = [&](unsigned dim) {
    return isa<AffineConstantExpr>(map.getResult(dim)) &&
           type.getDimSize(dim) != 1;
  };
  if (llvm::none_of(llvm::seq<unsigned>(0, type.getRank()), needsSlice))
    return operand;
  SmallVector<OpFoldResult> sizes;
  for (unsigned dim = 0; dim < type.getRank(); ++dim)
    sizes.push_back(needsSlice(dim) ? builder.getIndexAttr(1)
                                    : getMixedSize(builder, loc, operand, dim));
  SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
  if (isa<MemRefType>(type))
    return memref::SubViewOp::create(builder, loc, operand, offsets, sizes,
                                     strides);
  return tensor::ExtractSliceOp::create(builder, loc, operand, offsets, sizes,
                                        strides);
}

/// Permutes the dims of a memref view so that the dims that loops index come
/// in increasing iteration position; unit dims keep their places. Fails for
/// a tensor that needs it, since no tensor op permutes dims without a copy.
FailureOr<Value> sortDims(OpBuilder &builder, Location loc, Value view,
                          DimPositions &positions) {
  SmallVector<unsigned> indexed;
  for (auto [dim, position] : llvm::enumerate(positions))
    if (position)
      indexed.push_back(dim);
  SmallVector<unsigned> sorted = indexed;
  llvm::stable_sort(sorted, [&](unsigned lhs, unsigned rhs) {
    return *positions[lhs] < *positions[rhs];
  });
  if (sorted == indexed)
    return view;
  if (!isa<MemRefType>(view.getType()))
    return failure();

  SmallVector<unsigned> permutation =
      llvm::to_vector(llvm::seq<unsigned>(0, positions.size()));
  for (auto [slot, dim] : llvm::zip_equal(indexed, sorted))
    permutation[slot] = dim;
  DimPositions permuted;
  for (unsigned dim : permutation)
    permuted.push_back(positions[dim]);
  positions = std::move(permuted);
  AffineMap map =
      AffineMap::getPermutationMap(permutation, builder.getContext());
  return memref::TransposeOp::create(builder, loc, view,
                                     AffineMapAttr::get(map))
      .getResult();
}

/// The iteration position of every dim of a view whose indexed dims are in
/// increasing position, with unit dims placed in positions the view does not
/// index, as far right as possible; nullopt if some unit dim finds no place.
std::optional<SmallVector<unsigned>> placeDims(const DimPositions &positions,
                                               unsigned iterationRank) {
  SmallVector<unsigned> placed(positions.size());
  int64_t nextFree = static_cast<int64_t>(iterationRank) - 1;
  for (int64_t dim = static_cast<int64_t>(positions.size()) - 1; dim >= 0;
       --dim) {
    if (positions[dim]) {
      placed[dim] = *positions[dim];
      nextFree = static_cast<int64_t>(*positions[dim]) - 1;
      continue;
    }
    // The nearest indexed dim on the left bounds where a unit dim may go.
    int64_t leftBound = -1;
    for (int64_t left = dim - 1; left >= 0; --left)
      if (positions[left]) {
        leftBound = *positions[left];
        break;
      }
    if (nextFree <= leftBound)
      return std::nullopt;
    placed[dim] = nextFree--;
  }
  return placed;
}

/// Merges every unit dim of `view` that no loop indexes into a neighbouring
/// indexed dim. The view must index at least one loop.
Value collapseUnitDims(OpBuilder &builder, Location loc, Value view,
                       DimPositions &positions) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  DimPositions collapsed;
  for (auto [dim, position] : llvm::enumerate(positions)) {
    pending.push_back(dim);
    if (!position)
      continue;
    groups.push_back(std::move(pending));
    pending.clear();
    collapsed.push_back(position);
  }
  llvm::append_range(groups.back(), pending);
  positions = std::move(collapsed);
  if (isa<MemRefType>(view.getType()))
    return memref::CollapseShapeOp::create(builder, loc, view, groups);
  return tensor::CollapseShapeOp::create(builder, loc, view, groups);
}

/// Inserts unit dims into `view` at the iteration positions between
/// `placed.front()` and the last one that the view does not hold.
FailureOr<Value> expandToIterationSpace(OpBuilder &builder, Location loc,
                                        Value view, ArrayRef<unsigned> placed,
                                        unsigned iterationRank) {
  unsigned first = placed.front();
  unsigned rank = iterationRank - first;
  if (rank == placed.size())
    return view;

  auto type = cast<ShapedType>(view.getType());
  SmallVector<int64_t> shape(rank, 1);
  SmallVector<OpFoldResult> outputShape(rank, builder.getIndexAttr(1));
  SmallVector<ReassociationIndices> groups;
  for (auto [dim, position] : llvm::enumerate(placed)) {
    unsigned end = dim + 1 < placed.size() ? placed[dim + 1] : iterationRank;
    groups.push_back(
        llvm::to_vector(llvm::seq<int64_t>(position - first, end - first)));
    shape[position - first] = type.getDimSize(dim);
    outputShape[position - first] = getMixedSize(builder, loc, view, dim);
  }
  if (auto memref = dyn_cast<MemRefType>(type)) {
    FailureOr<MemRefType> expanded =
        memref::ExpandShapeOp::computeExpandedType(memref, shape, groups);
    if (failed(expanded))
      return failure();
    return memref::ExpandShapeOp::create(builder, loc, *expanded, view, groups,
                                         outputShape)
        .getResult();
  }
  auto tensor = cast<RankedTensorType>(type);
  auto expanded = RankedTensorType::get(shape, tensor.getElementType(),
                                        tensor.getEncoding());
  return tensor::ExpandShapeOp::create(builder, loc, expanded, view, groups,
                                       outputShape)
      .getResult();
}

/// A rank-0 view of the single element of a shaped value whose dims all have
/// size 1, which broadcasts to the whole iteration space. A view rather than
/// a load: under pw-gpu-pipeline the value lives in GPU memory, which the
/// host code cannot read.
Value viewSingleElement(OpBuilder &builder, Location loc, Value shaped) {
  auto type = cast<ShapedType>(shaped.getType());
  if (type.getRank() == 0)
    return shaped;
  SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
  SmallVector<OpFoldResult> ones(type.getRank(), builder.getIndexAttr(1));
  if (auto memref = dyn_cast<MemRefType>(type)) {
    MemRefType element = memref::SubViewOp::inferRankReducedResultType(
        {}, memref, offsets, ones, ones);
    return memref::SubViewOp::create(builder, loc, element, shaped, offsets,
                                     ones, ones);
  }
  auto element = RankedTensorType::get({}, type.getElementType());
  return tensor::ExtractSliceOp::create(builder, loc, element, shaped, offsets,
                                        ones, ones);
}

/// The map operand for a linalg operand indexed through `map`: a view whose
/// dims line up with the iteration space, or, for an input that holds one
/// element for every iteration, a rank-0 view of it.
FailureOr<Value> alignOperand(OpBuilder &builder, Location loc, Value operand,
                              AffineMap map, ArrayRef<unsigned> loopPositions,
                              bool isInput) {
  auto type = dyn_cast<ShapedType>(operand.getType());
  if (!type || (!isInput && type.getRank() == 0))
    return operand;
  if (auto memref = dyn_cast<MemRefType>(type); memref && !memref.isStrided())
    return failure();

  Value view = sliceConstantDims(builder, loc, operand, map);
  DimPositions positions;
  for (AffineExpr result : map.getResults()) {
    if (auto loop = dyn_cast<AffineDimExpr>(result))
      positions.push_back(loopPositions[loop.getPosition()]);
    else
      positions.push_back(std::nullopt);
  }
  if (llvm::none_of(positions, [](auto position) { return position; }))
    return viewSingleElement(builder, loc, view);

  FailureOr<Value> sorted = sortDims(builder, loc, view, positions);
  if (failed(sorted))
    return failure();
  view = *sorted;
  unsigned iterationRank = loopPositions.size();
  std::optional<SmallVector<unsigned>> placed =
      placeDims(positions, iterationRank);
  if (!placed) {
    view = collapseUnitDims(builder, loc, view, positions);
    placed = placeDims(positions, iterationRank);
  }
  return expandToIterationSpace(builder, loc, view, *placed, iterationRank);
}

/// Whether every result of `map` is a loop no other result names, or the
/// constant 0. This is a projected permutation with zeros, except that the
/// zeros may make more results than loops (`(d0) -> (0, 0, d0)`), which
/// `AffineMap::isProjectedPermutation` refuses.
bool indexesDistinctLoopsOrZero(AffineMap map) {
  if (map.getNumSymbols() != 0)
    return false;
  llvm::SmallBitVector seen(map.getNumDims());
  for (AffineExpr result : map.getResults()) {
    if (auto constant = dyn_cast<AffineConstantExpr>(result)) {
      if (constant.getValue() != 0)
        return false;
      continue;
    }
    auto loop = dyn_cast<AffineDimExpr>(result);
    if (!loop || seen.test(loop.getPosition()))
      return false;
    seen.set(loop.getPosition());
  }
  return true;
}

/// The iteration position of every loop of `op`, if the op is elementwise:
/// all loops parallel, every output indexed by a permutation of the loops
/// and every input by a projected permutation (constant 0 allowed).
std::optional<LoopPositions> getLoopPositions(linalg::LinalgOp op) {
  if (op.getNumDpsInits() == 0 || op.getNumParallelLoops() != op.getNumLoops())
    return std::nullopt;
  if (!op.hasPureTensorSemantics() && !op.hasPureBufferSemantics())
    return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands())
    if (!indexesDistinctLoopsOrZero(op.getMatchingIndexingMap(input)))
      return std::nullopt;
  for (OpOperand &output : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&output).isPermutation())
      return std::nullopt;

  AffineMap first = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  LoopPositions positions(op.getNumLoops());
  for (unsigned position = 0; position < first.getNumResults(); ++position)
    positions[first.getDimPosition(position)] = position;
  return positions;
}

/// Whether cloning the body of `op` into a map keeps its meaning: no op asks
/// for the loop indices, and values from above are scalars the map can take
/// as inputs or constants it can clone.
bool hasPortableBody(linalg::LinalgOp op, SetVector<Value> &captured) {
  if (!op.getBlock() || op.hasIndexSemantics())
    return false;
  getUsedValuesDefinedAbove(op->getRegion(0), captured);
  return llvm::none_of(
      captured, [](Value value) { return isa<ShapedType>(value.getType()); });
}

struct ConvertLinalgOp : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<LoopPositions> loopPositions = getLoopPositions(op);
    if (!loopPositions)
      return rewriter.notifyMatchFailure(op, "not elementwise");
    SetVector<Value> captured;
    if (!hasPortableBody(op, captured))
      return rewriter.notifyMatchFailure(
          op, "body uses linalg.index or captures a shaped value");

    // Everything is built in a scratch block first and reaches the IR only
    // once the map verifies; otherwise the block and its ops are discarded.
    Block scratch;
    OpBuilder builder(op.getContext());
    builder.setInsertionPointToEnd(&scratch);
    FailureOr<MapOp> map = buildMap(builder, op, *loopPositions, captured);
    if (failed(map))
      return rewriter.notifyMatchFailure(op, "an operand has no aligned view");
    {
      ScopedDiagnosticHandler silence(op.getContext(),
                                      [](Diagnostic &) { return success(); });
      for (Operation &built : scratch)
        if (failed(verify(&built)))
          return rewriter.notifyMatchFailure(
              op, "the map or a view would not verify");
    }

    rewriter.setInsertionPoint(op);
    for (Operation &built : llvm::make_early_inc_range(scratch)) {
      built.remove();
      rewriter.insert(&built);
    }
    rewriter.replaceOp(op, map->getResults());
    return success();
  }

private:
  static FailureOr<MapOp> buildMap(OpBuilder &builder, linalg::LinalgOp op,
                                   ArrayRef<unsigned> loopPositions,
                                   const SetVector<Value> &captured) {
    Location loc = op.getLoc();
    Block *body = op.getBlock();
    SmallVector<Value> inputs, outputs;
    // The body argument of the map for each linalg body argument or
    // captured value; resolved once the map's block exists.
    SmallVector<std::pair<Value, unsigned>> bodyValues;

    for (OpOperand *input : op.getDpsInputOperands()) {
      FailureOr<Value> aligned =
          alignOperand(builder, loc, input->get(),
                       op.getMatchingIndexingMap(input), loopPositions,
                       /*isInput=*/true);
      if (failed(aligned))
        return failure();
      bodyValues.emplace_back(op.getMatchingBlockArgument(input),
                              inputs.size());
      inputs.push_back(*aligned);
    }
    for (OpOperand &output : op.getDpsInitsMutable()) {
      FailureOr<Value> aligned =
          alignOperand(builder, loc, output.get(),
                       op.getMatchingIndexingMap(&output), loopPositions,
                       /*isInput=*/false);
      if (failed(aligned))
        return failure();
      outputs.push_back(*aligned);
      BlockArgument argument = op.getMatchingBlockArgument(&output);
      if (argument.use_empty())
        continue;
      bodyValues.emplace_back(argument, inputs.size());
      inputs.push_back(*aligned);
    }
    SmallVector<Operation *> constants;
    for (Value value : captured) {
      if (Operation *definition = value.getDefiningOp();
          definition && definition->hasTrait<OpTrait::ConstantLike>()) {
        constants.push_back(definition);
        continue;
      }
      bodyValues.emplace_back(value, inputs.size());
      inputs.push_back(value);
    }

    auto map = MapOp::create(
        builder, loc, inputs, outputs,
        [&](OpBuilder &bodyBuilder, Location, ValueRange arguments) {
          IRMapping mapping;
          for (auto [value, index] : bodyValues)
            mapping.map(value, arguments[index]);
          for (Operation *constant : constants)
            bodyBuilder.clone(*constant, mapping);
          for (Operation &nested : body->without_terminator())
            bodyBuilder.clone(nested, mapping);
          auto yield = cast<linalg::YieldOp>(body->getTerminator());
          SmallVector<Value> yielded =
              llvm::map_to_vector(yield.getValues(), [&](Value value) {
                return mapping.lookupOrDefault(value);
              });
          YieldOp::create(bodyBuilder, yield.getLoc(), yielded);
        });
    return map;
  }
};

struct ConvertLinalgToPointwisePass
    : public pointwise::impl::ConvertLinalgToPointwisePassBase<
          ConvertLinalgToPointwisePass> {
  void runOnOperation() override {
    // Only linalg ops are rewritten: the greedy driver would also fold and
    // erase the rest of the module.
    RewritePatternSet patterns(&getContext());
    populateLinalgToPointwisePatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void pointwise::populateLinalgToPointwisePatterns(RewritePatternSet &patterns) {
  patterns.add<ConvertLinalgOp>(patterns.getContext());
}
