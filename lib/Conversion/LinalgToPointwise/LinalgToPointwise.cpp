//===- LinalgToPointwise.cpp - Elementwise linalg ops to pointwise.map ----===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// pw-convert-linalg-to-pointwise: structured ops whose loops are all parallel
// and whose indexing maps are projected permutations become pointwise.map
// ops. Inputs are presented as views aligned with the outputs' dims
// (transposes and inserted unit dims), so the map's NumPy broadcasting does
// what the indexing maps said. Whether the body is one a map may hold is
// decided by the map's own verifier.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Conversion/Passes.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace pointwise {
#define GEN_PASS_DEF_CONVERTLINALGTOPOINTWISEPASS
#include "Pointwise/Conversion/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

/// For each loop, the iteration dim of the map that it becomes: the position
/// of that loop in the outputs' (common) indexing map. Fails unless every
/// output's map is the same permutation of all loops.
FailureOr<SmallVector<unsigned>> getIterationDimOfLoops(linalg::LinalgOp op) {
  std::optional<AffineMap> outputMap;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (!map.isPermutation() || (outputMap && map != *outputMap))
      return failure();
    outputMap = map;
  }
  if (!outputMap)
    return failure();
  SmallVector<unsigned> dimOfLoop(op.getNumLoops());
  for (auto [position, result] : llvm::enumerate(outputMap->getResults()))
    dimOfLoop[cast<AffineDimExpr>(result).getPosition()] = position;
  return dimOfLoop;
}

/// How an input's dims meet the iteration space: the dims its indexing map
/// names loops with (`kept`), and the iteration dim of each.
struct InputDims {
  SmallVector<int64_t> kept;
  SmallVector<unsigned> iterationDims;
};

/// The InputDims of an input of type `type` (null for a scalar) indexed by
/// `map`, or nothing where a constant index is not a 0 into a static size-1
/// dim.
std::optional<InputDims> getInputDims(AffineMap map, ShapedType type,
                                      ArrayRef<unsigned> dimOfLoop) {
  InputDims dims;
  for (auto [position, result] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(result)) {
      dims.kept.push_back(position);
      dims.iterationDims.push_back(dimOfLoop[dim.getPosition()]);
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(result);
    if (!type || !constant || constant.getValue() != 0 ||
        type.getDimSize(position) != 1)
      return std::nullopt;
  }
  return dims;
}

/// `value` without its unit dims that are not in `kept`, by a reshape that
/// bufferizes to a view; each dropped dim joins the group of a kept one.
Value dropUnitDims(RewriterBase &rewriter, Location loc, Value value,
                   ArrayRef<int64_t> kept,
                   SmallVectorImpl<Operation *> &created) {
  auto type = cast<ShapedType>(value.getType());
  SmallVector<ReassociationIndices> groups(kept.size());
  for (int64_t dim = 0, group = 0; dim < type.getRank(); ++dim) {
    if (group + 1 < static_cast<int64_t>(kept.size()) && kept[group] < dim)
      ++group;
    if (!kept.empty())
      groups[group].push_back(dim);
  }
  Operation *collapse;
  if (isa<RankedTensorType>(type))
    collapse = tensor::CollapseShapeOp::create(rewriter, loc, value, groups);
  else
    collapse = memref::CollapseShapeOp::create(rewriter, loc, value, groups);
  created.push_back(collapse);
  return collapse->getResult(0);
}

/// `value` (a memref or tensor whose dim j is iteration dim `dims[j]`) as a
/// view whose dims follow the iteration space's order, with unit dims where
/// it broadcasts between its first dim and the last iteration dim. Fails for
/// a tensor that would need a transpose: no tensor op transposes as a view.
FailureOr<Value>
alignWithIterationSpace(RewriterBase &rewriter, Location loc, Value value,
                        ArrayRef<unsigned> dims, unsigned iterationRank,
                        SmallVectorImpl<Operation *> &created) {
  auto type = cast<ShapedType>(value.getType());
  int64_t rank = type.getRank();
  if (rank == 0)
    return value;

  // Order the dims as the iteration space does.
  SmallVector<unsigned> order = llvm::to_vector(llvm::seq<unsigned>(0, rank));
  llvm::stable_sort(order,
                    [&](unsigned a, unsigned b) { return dims[a] < dims[b]; });
  SmallVector<unsigned> sortedDims;
  for (unsigned source : order)
    sortedDims.push_back(dims[source]);
  if (!llvm::equal(order, llvm::seq<unsigned>(0, rank))) {
    if (!isa<MemRefType>(type))
      return failure();
    SmallVector<unsigned> permutation(order.begin(), order.end());
    AffineMap map =
        AffineMap::getPermutationMap(permutation, rewriter.getContext());
    auto transpose = memref::TransposeOp::create(rewriter, loc, value,
                                                 AffineMapAttr::get(map));
    created.push_back(transpose);
    value = transpose;
    type = cast<ShapedType>(value.getType());
  }

  // Unit dims for the iteration dims the value lacks after its first one;
  // each joins the group of the value's dim before it.
  unsigned first = sortedDims.front();
  unsigned expandedRank = iterationRank - first;
  if (expandedRank == static_cast<unsigned>(rank))
    return value;
  SmallVector<int64_t> shape(expandedRank, 1);
  SmallVector<ReassociationIndices> groups(rank);
  for (unsigned position = 0, source = 0; position < expandedRank; ++position) {
    if (source + 1 < static_cast<unsigned>(rank) &&
        sortedDims[source + 1] == first + position)
      ++source;
    if (sortedDims[source] == first + position)
      shape[position] = type.getDimSize(source);
    groups[source].push_back(position);
  }
  Operation *expand;
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    expand = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape, tensor.getElementType()),
        value, groups);
  } else {
    FailureOr<MemRefType> expanded = memref::ExpandShapeOp::computeExpandedType(
        cast<MemRefType>(type), shape, groups);
    if (failed(expanded))
      return failure();
    expand =
        memref::ExpandShapeOp::create(rewriter, loc, *expanded, value, groups);
  }
  created.push_back(expand);
  return expand->getResult(0);
}

/// Rewrites `op` into a pointwise.map, or leaves it (and the IR) unchanged
/// and fails.
LogicalResult convert(RewriterBase &rewriter, linalg::LinalgOp op) {
  if (op.getNumParallelLoops() != op.getNumLoops() || op.hasIndexSemantics() ||
      !(op.hasPureTensorSemantics() || op.hasPureBufferSemantics()) ||
      op->getNumRegions() != 1)
    return failure();
  FailureOr<SmallVector<unsigned>> dimOfLoop = getIterationDimOfLoops(op);
  if (failed(dimOfLoop))
    return failure();
  // Inputs may index a size-1 dim with a constant 0 (tosa-to-linalg's
  // broadcasts): such dims are dropped with a reshape before alignment.
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return failure();
  Block *body = op.getBlock();
  unsigned iterationRank = op.getNumLoops();

  // Cheap checks first; creating ops and verifying the map decides the rest.
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<ShapedType>(input->get().getType());
    if (type && !isa<MemRefType, RankedTensorType>(type))
      return failure();
    std::optional<InputDims> dims =
        getInputDims(op.getMatchingIndexingMap(input), type, *dimOfLoop);
    if (!dims || (type && isa<RankedTensorType>(type) &&
                  !llvm::is_sorted(dims->iterationDims)))
      return failure();
  }

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  // Ops created here, erased again if the map does not verify.
  SmallVector<Operation *> created;
  auto undo = [&] {
    for (Operation *createdOp : llvm::reverse(created))
      rewriter.eraseOp(createdOp);
    return failure();
  };

  SmallVector<Value> inputs;
  // The body argument of the linalg op each map input stands for.
  SmallVector<BlockArgument> bodyArguments;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    if (auto type = dyn_cast<ShapedType>(value.getType())) {
      InputDims dims =
          *getInputDims(op.getMatchingIndexingMap(input), type, *dimOfLoop);
      if (dims.kept.size() != static_cast<size_t>(type.getRank()))
        value = dropUnitDims(rewriter, loc, value, dims.kept, created);
      FailureOr<Value> aligned = alignWithIterationSpace(
          rewriter, loc, value, dims.iterationDims, iterationRank, created);
      if (failed(aligned))
        return undo();
      value = *aligned;
    }
    inputs.push_back(value);
    bodyArguments.push_back(input->getOperandNumber() < body->getNumArguments()
                                ? body->getArgument(input->getOperandNumber())
                                : BlockArgument());
  }
  // A body that reads an output reads it as an input of the map too. Ops
  // whose body has no arguments for the outputs (linalg.map) never do.
  SmallVector<Value> outputs;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    outputs.push_back(init.get());
    unsigned number = init.getOperandNumber();
    if (number < body->getNumArguments() &&
        !body->getArgument(number).use_empty()) {
      inputs.push_back(init.get());
      bodyArguments.push_back(body->getArgument(number));
    }
  }
  // Values the body uses from above (a map is isolated from above) become
  // scalar inputs; the map's canonicalization moves constants back inside.
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegion(0), captured);
  SmallVector<Value> capturedValues = captured.takeVector();

  unsigned numShapedInputs = inputs.size();
  llvm::append_range(inputs, capturedValues);
  auto map = MapOp::create(
      rewriter, loc, inputs, outputs,
      [&](OpBuilder &builder, Location bodyLoc, ValueRange arguments) {
        IRMapping mapping;
        for (auto [original, argument] : llvm::zip_equal(
                 bodyArguments, arguments.take_front(numShapedInputs)))
          if (original)
            mapping.map(original, argument);
        for (auto [original, argument] : llvm::zip_equal(
                 capturedValues, arguments.drop_front(numShapedInputs)))
          mapping.map(original, argument);
        for (Operation &nested : body->without_terminator())
          builder.clone(nested, mapping);
        SmallVector<Value> yielded;
        for (Value value : body->getTerminator()->getOperands())
          yielded.push_back(mapping.lookupOrDefault(value));
        YieldOp::create(builder, bodyLoc, yielded);
      });
  created.push_back(map);

  // The map's verifier decides what a body may hold; its diagnostics are
  // not errors here, since the linalg op stays as it is.
  bool valid;
  {
    ScopedDiagnosticHandler silence(rewriter.getContext(),
                                    [](Diagnostic &) { return success(); });
    valid = succeeded(verify(map));
  }
  if (!valid)
    return undo();
  rewriter.replaceOp(op, map.getResults());
  return success();
}

struct ConvertLinalgToPointwisePass
    : pointwise::impl::ConvertLinalgToPointwisePassBase<
          ConvertLinalgToPointwisePass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk(
        [&](linalg::LinalgOp op) { candidates.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates)
      (void)convert(rewriter, op);
  }
};

} // namespace
