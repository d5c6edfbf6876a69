//===- OpMath.h - Computing a map body in its opmath types --------*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// GPU kernels compute f16 and bf16 values in f32 and round once, when the
// result is stored (PyTorch's "opmath", seed 004): cheaper on the hardware
// and more accurate than rounding after every op.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_TRANSFORMS_OPMATH_H
#define POINTWISE_DIALECT_POINTWISE_TRANSFORMS_OPMATH_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace pointwise {

class MapOp;

/// Clones the body of `map` at the builder's insertion point for one element
/// whose input values are `inputs` (in their storage types). Arithmetic on
/// f16/bf16 happens in f32, inside the regions of structured control flow
/// too (whose f16/bf16 results, region arguments and yields become f32);
/// explicit `arith.truncf`/`arith.extf` in the body keep their rounding, and
/// every op keeps its attributes (rounding mode, fast-math flags,
/// predicate). `math.isinf`, `math.isnormal` and `math.isfinite` take their
/// operand rounded to its storage type, whose range decides their answer.
/// Returns the values to store, in each output's element type.
llvm::SmallVector<mlir::Value> cloneBodyInOpMath(mlir::OpBuilder &builder,
                                                 mlir::Location loc, MapOp map,
                                                 mlir::ValueRange inputs);

/// Whether the body of `map` can compute several elements at once on
/// vectors: it has only constants and elementwise ops (arith, math) on
/// integers, floats and indices, and no regions.
bool isVectorizableBody(MapOp map);

/// cloneBodyInOpMath for `lanes` elements at once: each input is a vector
/// of `lanes` values in its storage type (scalars broadcast), and so is each
/// result. `map` must satisfy isVectorizableBody. Lanes compute exactly what
/// cloneBodyInOpMath computes for each, in vector ops that LLVM can select
/// as packed instructions (two f16/bf16 lanes per instruction on NVPTX).
llvm::SmallVector<mlir::Value>
cloneBodyInOpMathOnVectors(mlir::OpBuilder &builder, mlir::Location loc,
                           MapOp map, mlir::ValueRange inputs, int64_t lanes);

} // namespace pointwise

#endif // POINTWISE_DIALECT_POINTWISE_TRANSFORMS_OPMATH_H
