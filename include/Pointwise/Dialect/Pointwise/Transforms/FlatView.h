//===- FlatView.h - Addressing a strided memref by element offset -*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Every lowering of pointwise.map addresses memrefs the same way: a flat,
// static, identity-layout view of the buffer from its aligned pointer, read
// and written at `offset + sum(index * stride)` computed with plain integer
// arithmetic. The element offset is never negative, whatever the strides'
// signs; addressing through memref.load on a view with negative strides
// would go through upstream's memref-to-LLVM lowering, whose `nuw`/`nsw`
// flags make negative strides poison in MLIR 22.1.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_TRANSFORMS_FLATVIEW_H
#define POINTWISE_DIALECT_POINTWISE_TRANSFORMS_FLATVIEW_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace pointwise {

/// The size flat views claim: larger than any buffer a layout reaches (the
/// views are only ever accessed at elements the layout addresses).
constexpr int64_t kFlatViewElements = int64_t(1) << 40;

struct FlatView {
  /// memref<kFlatViewElements x T> from the aligned pointer.
  mlir::Value flat;
  /// The view's offset and strides, in elements, as index values (constants
  /// where the type knows them).
  mlir::Value offset;
  llvm::SmallVector<mlir::Value> strides;
};

/// Creates the flat view of `memref` at the builder's insertion point.
FlatView createFlatView(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value memref);

} // namespace pointwise

#endif // POINTWISE_DIALECT_POINTWISE_TRANSFORMS_FLATVIEW_H
