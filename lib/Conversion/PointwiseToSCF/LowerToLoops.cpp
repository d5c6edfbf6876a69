//===- LowerToLoops.cpp - pw-lower-to-loops -------------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The CPU lowering of pointwise.map, and the reference lowering every other
// path is checked against: one scf.for per dim, loads, the body, stores.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Conversion/Passes.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/Dialect/Pointwise/Transforms/FlatView.h"
#include "Pointwise/Dialect/Pointwise/Transforms/OpMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace pointwise {
#define GEN_PASS_DEF_LOWERTOLOOPSPASS
#include "Pointwise/Conversion/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

/// How one memref input turns the iteration space's induction variables
/// into its own indices, under NumPy broadcasting.
struct InputIndexing {
  /// Iteration dims before the input's first dim (missing leading dims).
  unsigned leading = 0;
  /// Per input dim: null to use the induction variable as is, the constant 0
  /// for a static size-1 dim that broadcasts, or an i1 "size is 1" flag for
  /// a dynamic size that may broadcast at run time.
  SmallVector<Value> broadcastFlags;
  SmallVector<bool> alwaysZero;
};

InputIndexing planIndexing(OpBuilder &builder, Location loc, Value input,
                           ArrayRef<int64_t> iterationShape) {
  auto type = cast<MemRefType>(input.getType());
  InputIndexing indexing;
  indexing.leading = iterationShape.size() - type.getRank();
  for (auto [dim, size] : llvm::enumerate(type.getShape())) {
    int64_t iterationSize = iterationShape[indexing.leading + dim];
    bool staticBroadcast = size == 1 && iterationSize != 1;
    indexing.alwaysZero.push_back(staticBroadcast);
    if (!ShapedType::isDynamic(size) || iterationSize == 1) {
      indexing.broadcastFlags.push_back(Value());
      continue;
    }
    Value actual = memref::DimOp::create(builder, loc, input, dim);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    indexing.broadcastFlags.push_back(arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, actual, one));
  }
  return indexing;
}

SmallVector<Value> getInputIndices(OpBuilder &builder, Location loc,
                                   const InputIndexing &indexing,
                                   ValueRange inductionVars, Value zero) {
  SmallVector<Value> indices;
  for (auto [dim, flag] : llvm::enumerate(indexing.broadcastFlags)) {
    Value iv = inductionVars[indexing.leading + dim];
    if (indexing.alwaysZero[dim])
      indices.push_back(zero);
    else if (flag)
      indices.push_back(arith::SelectOp::create(builder, loc, flag, zero, iv));
    else
      indices.push_back(iv);
  }
  return indices;
}

void lowerToLoops(IRRewriter &rewriter, MapOp map) {
  Location loc = map.getLoc();
  rewriter.setInsertionPoint(map);
  SmallVector<int64_t> iterationShape = map.getIterationShape();
  Value output = map.getOutputs()[0];

  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<Value> lowerBounds(iterationShape.size(), zero);
  SmallVector<Value> steps(iterationShape.size(), one);
  SmallVector<Value> upperBounds;
  for (auto [dim, size] : llvm::enumerate(iterationShape))
    upperBounds.push_back(
        ShapedType::isDynamic(size)
            ? Value(memref::DimOp::create(rewriter, loc, output, dim))
            : Value(arith::ConstantIndexOp::create(rewriter, loc, size)));

  SmallVector<std::optional<InputIndexing>> indexings;
  SmallVector<std::optional<FlatView>> inputViews;
  for (Value input : map.getInputs()) {
    if (!isa<MemRefType>(input.getType())) {
      indexings.push_back(std::nullopt);
      inputViews.push_back(std::nullopt);
      continue;
    }
    indexings.push_back(planIndexing(rewriter, loc, input, iterationShape));
    inputViews.push_back(createFlatView(rewriter, loc, input));
  }
  SmallVector<FlatView> outputViews;
  for (Value out : map.getOutputs())
    outputViews.push_back(createFlatView(rewriter, loc, out));

  // offset + sum(index * stride), without overflow flags: negative strides
  // are fine.
  auto elementOffset = [](OpBuilder &builder, Location at, const FlatView &view,
                          ValueRange indices) {
    Value offset = view.offset;
    for (auto [index, stride] : llvm::zip(indices, view.strides))
      offset = arith::AddIOp::create(
          builder, at, offset,
          arith::MulIOp::create(builder, at, index, stride));
    return offset;
  };

  scf::buildLoopNest(
      rewriter, loc, lowerBounds, upperBounds, steps,
      [&](OpBuilder &builder, Location nestedLoc, ValueRange inductionVars) {
        SmallVector<Value> values;
        for (auto [input, indexing, view] :
             llvm::zip(map.getInputs(), indexings, inputViews)) {
          if (!indexing) {
            values.push_back(input);
            continue;
          }
          SmallVector<Value> indices = getInputIndices(
              builder, nestedLoc, *indexing, inductionVars, zero);
          values.push_back(memref::LoadOp::create(
              builder, nestedLoc, view->flat,
              elementOffset(builder, nestedLoc, *view, indices)));
        }
        SmallVector<Value> results =
            cloneBodyInOpMath(builder, nestedLoc, map, values);
        for (auto [value, view] : llvm::zip(results, outputViews))
          memref::StoreOp::create(
              builder, nestedLoc, value, view.flat,
              elementOffset(builder, nestedLoc, view, inductionVars));
      });
  rewriter.eraseOp(map);
}

struct LowerToLoopsPass
    : public pointwise::impl::LowerToLoopsPassBase<LowerToLoopsPass> {
  void runOnOperation() override {
    SmallVector<MapOp> maps;
    getOperation()->walk([&](MapOp map) { maps.push_back(map); });
    for (MapOp map : maps)
      if (!map.hasPureBufferSemantics()) {
        map.emitNotBufferizedError(getArgument());
        return signalPassFailure();
      }
    IRRewriter rewriter(&getContext());
    for (MapOp map : maps)
      lowerToLoops(rewriter, map);
  }
};

} // namespace
