//===- BroadcastCanonicalization.cpp - pw-canonicalize-broadcast ----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Gives every memref input of a pointwise.map the iteration shape, with
// broadcasting spelled out as stride-0 dims, so that nothing after this pass
// needs to know NumPy's broadcasting rules.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/Transforms/BroadcastCanonicalization.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace pointwise {
#define GEN_PASS_DEF_CANONICALIZEBROADCASTPASS
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

/// The sizes of the iteration space as the rewrite needs them: static sizes
/// as attributes, dynamic ones as `memref.dim` of output #0, created once.
class IterationSizes {
public:
  explicit IterationSizes(MapOp map)
      : map(map), staticSizes(map.getIterationShape()),
        dynamicSizes(staticSizes.size()) {}

  int64_t getStatic(unsigned dim) const { return staticSizes[dim]; }
  unsigned rank() const { return staticSizes.size(); }

  OpFoldResult get(OpBuilder &builder, unsigned dim) {
    if (!ShapedType::isDynamic(staticSizes[dim]))
      return builder.getIndexAttr(staticSizes[dim]);
    if (!dynamicSizes[dim])
      dynamicSizes[dim] = memref::DimOp::create(builder, map.getLoc(),
                                                map.getOutputs()[0], dim);
    return dynamicSizes[dim];
  }

  /// Whether `size` is known to be the size of iteration dim `dim`: equal
  /// constants, or `memref.dim` of an output in that dim (what an earlier run
  /// of this pass produced).
  bool isKnownEqual(OpFoldResult size, unsigned dim) const {
    if (!size)
      return false;
    if (std::optional<int64_t> constant = getConstantIntValue(size))
      return *constant == staticSizes[dim];
    auto dimOp = cast<Value>(size).getDefiningOp<memref::DimOp>();
    if (!dimOp)
      return false;
    std::optional<int64_t> index = dimOp.getConstantIndex();
    return index && *index == static_cast<int64_t>(dim) &&
           llvm::is_contained(map.getOutputs(), dimOp.getSource());
  }

private:
  // Op handles are cheap value types whose accessors are not const.
  mutable MapOp map;
  SmallVector<int64_t> staticSizes;
  SmallVector<Value> dynamicSizes;
};

/// The sizes of `memref` as far as the IR knows them without creating ops:
/// static sizes, and the operands of a `memref.reinterpret_cast` producing
/// it; null where only a new `memref.dim` could tell.
SmallVector<OpFoldResult> getKnownSizes(Value memref) {
  if (auto cast = memref.getDefiningOp<memref::ReinterpretCastOp>())
    return cast.getMixedSizes();
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : type.getShape())
    sizes.push_back(ShapedType::isDynamic(size)
                        ? OpFoldResult()
                        : OpFoldResult(IntegerAttr::get(
                              IndexType::get(memref.getContext()), size)));
  return sizes;
}

/// What an input dim becomes in the canonical form.
enum class DimRewrite {
  Keep,               // already the iteration size
  Broadcast,          // missing leading dim, or static size 1: stride 0
  BroadcastIfSizeOne, // dynamic size: stride 0 when it is 1 at run time
};

/// `resolved`: the caller guarantees that dynamic sizes equal the iteration
/// sizes (see `PointwiseDialect::BroadcastResolvedAttrHelper::getNameStr()`).
SmallVector<DimRewrite> planRewrite(MemRefType type,
                                    ArrayRef<OpFoldResult> knownSizes,
                                    const IterationSizes &iteration,
                                    bool resolved) {
  unsigned leading = iteration.rank() - type.getRank();
  SmallVector<DimRewrite> plan(leading, DimRewrite::Broadcast);
  for (auto [dim, size] : llvm::enumerate(type.getShape())) {
    unsigned iterationDim = leading + dim;
    int64_t iterationSize = iteration.getStatic(iterationDim);
    if (!ShapedType::isDynamic(size)) {
      // A static size other than 1 must be the iteration size (the verifier
      // saw to it where that is static).
      plan.push_back(size == 1 && iterationSize != 1 ? DimRewrite::Broadcast
                                                     : DimRewrite::Keep);
      continue;
    }
    plan.push_back(resolved ||
                           iteration.isKnownEqual(knownSizes[dim], iterationDim)
                       ? DimRewrite::Keep
                       : DimRewrite::BroadcastIfSizeOne);
  }
  return plan;
}

/// The offset, sizes and strides of a memref: static ones from its type,
/// dynamic ones from one `memref.extract_strided_metadata`, created on first
/// need so that static layouts produce no dead ops.
class StridedMetadata {
public:
  StridedMetadata(OpBuilder &builder, Location loc, Value memref)
      : builder(builder), loc(loc), memref(memref),
        type(cast<MemRefType>(memref.getType())) {
    std::tie(staticStrides, staticOffset) = type.getStridesAndOffset();
  }

  OpFoldResult size(unsigned dim) {
    int64_t size = type.getDimSize(dim);
    if (!ShapedType::isDynamic(size))
      return builder.getIndexAttr(size);
    return get().getSizes()[dim];
  }
  OpFoldResult stride(unsigned dim) {
    if (!ShapedType::isDynamic(staticStrides[dim]))
      return builder.getIndexAttr(staticStrides[dim]);
    return get().getStrides()[dim];
  }
  OpFoldResult offset() {
    if (!ShapedType::isDynamic(staticOffset))
      return builder.getIndexAttr(staticOffset);
    return get().getOffset();
  }

private:
  memref::ExtractStridedMetadataOp get() {
    if (!metadata)
      metadata = memref::ExtractStridedMetadataOp::create(builder, loc, memref);
    return metadata;
  }

  OpBuilder &builder;
  Location loc;
  Value memref;
  MemRefType type;
  SmallVector<int64_t> staticStrides;
  int64_t staticOffset;
  memref::ExtractStridedMetadataOp metadata;
};

/// Reinterprets `input` with the iteration shape following `plan`.
Value materializeCanonicalInput(OpBuilder &builder, Location loc, Value input,
                                ArrayRef<DimRewrite> plan,
                                ArrayRef<OpFoldResult> knownSizes,
                                IterationSizes &iteration) {
  StridedMetadata metadata(builder, loc, input);
  unsigned leading = plan.size() - knownSizes.size();
  OpFoldResult zero = builder.getIndexAttr(0);

  SmallVector<OpFoldResult> newSizes, newStrides;
  for (auto [iterationDim, rewrite] : llvm::enumerate(plan)) {
    if (rewrite == DimRewrite::Broadcast) {
      newSizes.push_back(iteration.get(builder, iterationDim));
      newStrides.push_back(zero);
      continue;
    }
    unsigned dim = iterationDim - leading;
    OpFoldResult stride = metadata.stride(dim);
    if (rewrite == DimRewrite::Keep) {
      OpFoldResult known = knownSizes[dim];
      newSizes.push_back(known ? known : metadata.size(dim));
      newStrides.push_back(stride);
      continue;
    }
    newSizes.push_back(iteration.get(builder, iterationDim));
    if (isZeroInteger(stride)) {
      newStrides.push_back(zero);
      continue;
    }
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    Value isOne = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq,
        getValueOrCreateConstantIndexOp(builder, loc, metadata.size(dim)), one);
    Value select = arith::SelectOp::create(
        builder, loc, isOne, arith::ConstantIndexOp::create(builder, loc, 0),
        getValueOrCreateConstantIndexOp(builder, loc, stride));
    newStrides.push_back(select);
  }
  return memref::ReinterpretCastOp::create(
      builder, loc, input, metadata.offset(), newSizes, newStrides);
}

struct CanonicalizeBroadcastPass
    : public pointwise::impl::CanonicalizeBroadcastPassBase<
          CanonicalizeBroadcastPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Tensor maps have no strides to rewrite until they are bufferized.
    getOperation()->walk([&](MapOp map) {
      if (map.hasPureBufferSemantics())
        canonicalizeBroadcastInputs(rewriter, map);
    });
  }
};

} // namespace

void pointwise::canonicalizeBroadcastInputs(RewriterBase &rewriter, MapOp map) {
  IterationSizes iteration(map);
  bool resolved = false;
  for (Operation *owner = map->getParentOp(); owner && !resolved;
       owner = owner->getParentOp())
    resolved = owner->hasAttr(
        PointwiseDialect::BroadcastResolvedAttrHelper::getNameStr());
  OpBuilder::InsertionGuard insertion(rewriter);
  rewriter.setInsertionPoint(map);
  for (OpOperand &operand : map.getInputsMutable()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    // An input that is also an output (in place) has the iteration shape.
    if (llvm::is_contained(map.getOutputs(), operand.get()))
      continue;
    SmallVector<OpFoldResult> knownSizes = getKnownSizes(operand.get());
    SmallVector<DimRewrite> plan =
        planRewrite(type, knownSizes, iteration, resolved);
    if (llvm::all_of(plan, [](DimRewrite r) { return r == DimRewrite::Keep; }))
      continue;
    Value canonical = materializeCanonicalInput(
        rewriter, map.getLoc(), operand.get(), plan, knownSizes, iteration);
    rewriter.modifyOpInPlace(map, [&] { operand.set(canonical); });
  }
}
