//===- Tiling.cpp - pw-tile -----------------------------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Chooses how a pointwise.map runs on the GPU and writes that choice out as
// loops mapped to blocks and threads, with the exact memory accesses of each
// thread. pw-lower-to-gpu then only has to move the loops into a kernel.
//
//===----------------------------------------------------------------------===//

#include "TilingInternal.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/Dialect/Pointwise/Transforms/BroadcastCanonicalization.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace pointwise {
#define GEN_PASS_DEF_TILEPASS
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;
using namespace pointwise::tiling;

namespace {

/// The nearest enclosing overrides of `strategy`, `indexBitwidth` and
/// `vectorBytes`, checked like the options.
LogicalResult applyOverrides(MapOp map, TileStrategy &strategy,
                             unsigned &indexBitwidth, int64_t &vectorBytes) {
  for (Operation *owner = map->getParentOp(); owner;
       owner = owner->getParentOp()) {
    if (Attribute attr = owner->getAttr(
            PointwiseDialect::TileStrategyAttrHelper::getNameStr())) {
      auto name = dyn_cast<StringAttr>(attr);
      std::optional<TileStrategy> named =
          name ? symbolizeTileStrategy(name.getValue()) : std::nullopt;
      if (!named)
        return owner->emitOpError()
               << PointwiseDialect::TileStrategyAttrHelper::getNameStr()
               << " must be \"auto\", \"linear\", \"transpose\" or "
                  "\"general\"";
      strategy = *named;
      break;
    }
  }
  for (Operation *owner = map->getParentOp(); owner;
       owner = owner->getParentOp()) {
    if (Attribute attr = owner->getAttr(
            PointwiseDialect::TileIndexBitwidthAttrHelper::getNameStr())) {
      auto bits = dyn_cast<IntegerAttr>(attr);
      if (!bits ||
          !llvm::is_contained(ArrayRef<int64_t>{0, 32, 64}, bits.getInt()))
        return owner->emitOpError()
               << PointwiseDialect::TileIndexBitwidthAttrHelper::getNameStr()
               << " must be the integer 0, 32 or 64";
      indexBitwidth = bits.getInt();
      break;
    }
  }
  for (Operation *owner = map->getParentOp(); owner;
       owner = owner->getParentOp()) {
    if (Attribute attr = owner->getAttr(
            PointwiseDialect::TileVectorBytesAttrHelper::getNameStr())) {
      auto bytes = dyn_cast<IntegerAttr>(attr);
      if (!bytes || bytes.getInt() < 0 || bytes.getInt() > kMaxVectorBytes ||
          (bytes.getInt() != 0 && !llvm::isPowerOf2_64(bytes.getInt())))
        return owner->emitOpError()
               << PointwiseDialect::TileVectorBytesAttrHelper::getNameStr()
               << " must be an integer power of two up to " << kMaxVectorBytes
               << ", or 0";
      vectorBytes = bytes.getInt();
      break;
    }
  }
  return success();
}

struct TilePass : public pointwise::impl::TilePassBase<TilePass> {
  using TilePassBase::TilePassBase;

  void runOnOperation() override {
    // Option errors concern no op: report them at the module's location
    // without printing the module.
    Location loc = getOperation()->getLoc();
    if (indexBitwidth != 0 && indexBitwidth != 32 && indexBitwidth != 64) {
      emitError(loc) << "pw-tile: index-bitwidth must be 0, 32 or 64, got "
                     << static_cast<unsigned>(indexBitwidth);
      return signalPassFailure();
    }
    if (!llvm::is_contained(ArrayRef<int64_t>{16, 32, 64},
                            tileEdge.getValue())) {
      emitError(loc) << "pw-tile: tile-edge must be 16, 32 or 64, got "
                     << tileEdge.getValue();
      return signalPassFailure();
    }
    if (blockSize < 0 || blockSize > kMaxBlockSize) {
      emitError(loc) << "pw-tile: block-size must be 1 to " << kMaxBlockSize
                     << " (threads per block), or 0 to decide per map, got "
                     << blockSize.getValue();
      return signalPassFailure();
    }
    if (vectorBytes < 0 || vectorBytes > kMaxVectorBytes ||
        (vectorBytes != 0 && !llvm::isPowerOf2_64(vectorBytes))) {
      emitError(loc) << "pw-tile: vector-bytes must be a power of two up to "
                     << kMaxVectorBytes << ", or 0 to decide per map, got "
                     << vectorBytes.getValue();
      return signalPassFailure();
    }
    if (unroll < 0 || unroll > kMaxUnroll) {
      emitError(loc) << "pw-tile: unroll must be 1 to " << kMaxUnroll
                     << ", or 0 to decide per map, got " << unroll.getValue();
      return signalPassFailure();
    }
    SmallVector<MapOp> maps;
    getOperation()->walk([&](MapOp map) { maps.push_back(map); });
    for (MapOp map : maps)
      if (!map.hasPureBufferSemantics()) {
        map.emitNotBufferizedError(getArgument());
        return signalPassFailure();
      }
    IRRewriter rewriter(&getContext());
    for (MapOp map : maps) {
      // Inputs that broadcast are addressed with their strides: they must
      // be in pw-canonicalize-broadcast's form (a no-op on maps that went
      // through it, as in the pipelines).
      canonicalizeBroadcastInputs(rewriter, map);
      TileStrategy strategy = this->strategy;
      unsigned indexBitwidth = this->indexBitwidth;
      int64_t vectorBytes = this->vectorBytes;
      if (failed(applyOverrides(map, strategy, indexBitwidth, vectorBytes)))
        return signalPassFailure();
      Strategy chosen = chooseStrategy(map);
      if (strategy == TileStrategy::General) {
        chosen = Strategy::General;
      } else if (strategy == TileStrategy::Linear &&
                 chosen != Strategy::Linear) {
        map.emitOpError("the linear strategy needs stride 1 or 0 along "
                        "the last dim of every memref operand");
        return signalPassFailure();
      } else if (strategy == TileStrategy::Transpose &&
                 chosen != Strategy::Transpose) {
        map.emitOpError("the transpose strategy needs outputs contiguous "
                        "along the last dim and an input contiguous along "
                        "another dim");
        return signalPassFailure();
      }
      // A forced 32 on a static layout that needs 64 would truncate its
      // offsets (dynamic layouts are the runtime's to check at dispatch).
      if (indexBitwidth == 32 && decideIndexBitwidthStatically(map) == 64u) {
        map.emitOpError("index-bitwidth=32 cannot address this map's "
                        "operands: their static sizes, strides and offsets "
                        "reach element offsets beyond 32 bits");
        return signalPassFailure();
      }
      unsigned bits = indexBitwidth ? indexBitwidth : chooseIndexBitwidth(map);
      Type indexType = bits == 32 ? Type(rewriter.getI32Type())
                                  : Type(rewriter.getIndexType());
      rewriter.setInsertionPoint(map);
      KernelEmitter emitter(rewriter, map, indexType);
      LinearShape shape = chooseLinearShape(map, chosen);
      if (blockSize)
        shape.blockSize = blockSize;
      if (vectorBytes)
        shape.vectorBytes = vectorBytes;
      if (failed(emitter.prepare(chosen, shape.vectorBytes)))
        return signalPassFailure();
      // At most 16 elements in flight per thread: wider vectors (f16, i8)
      // take fewer steps, which keeps the registers of the body in check
      // (docs/Performance.md, row `elements-in-flight`).
      int64_t requested =
          unroll ? unroll : chooseUnroll(map, chosen, shape.vectorBytes);
      int64_t steps = std::max<int64_t>(
          1, std::min<int64_t>(requested,
                               kElementsInFlight / emitter.getVectorWidth()));
      if (chosen == Strategy::Transpose) {
        int64_t transposedDim = *findTransposedDim(map);
        emitter.emitTranspose(transposedDim,
                              fitTileEdge(map, transposedDim, tileEdge));
      } else
        emitter.emit(chosen, shape.blockSize,
                     chosen == Strategy::Linear ? steps : requested);
      rewriter.eraseOp(map);
    }
  }
};

} // namespace
