//===- FlatView.cpp - Addressing a strided memref by element offset -------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/Transforms/FlatView.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace pointwise;

FlatView pointwise::createFlatView(OpBuilder &builder, Location loc,
                                   Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  auto metadata =
      memref::ExtractStridedMetadataOp::create(builder, loc, memref);
  FlatView view;
  view.offset = getValueOrCreateConstantIndexOp(
      builder, loc, metadata.getConstifiedMixedOffset());
  for (OpFoldResult stride : metadata.getConstifiedMixedStrides())
    view.strides.push_back(
        getValueOrCreateConstantIndexOp(builder, loc, stride));
  auto flatType =
      MemRefType::get({kFlatViewElements}, type.getElementType(),
                      MemRefLayoutAttrInterface(), type.getMemorySpace());
  view.flat =
      memref::ReinterpretCastOp::create(builder, loc, flatType, memref,
                                        /*offset=*/0, {kFlatViewElements},
                                        /*strides=*/{1});
  return view;
}
