//===- Bf16Function.h - f32 computations of one bf16 number -----*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// A kernel's f32 computation of values that depend on one bf16 number alone
// and are rounded back to bf16: the body of a map on one bf16 operand in op
// math (a tanh-GELU, say). Such a computation has 65,536 inputs, so whether
// one of its ops may be computed another way without changing any rounded
// result is decided by trying every input, with bounds on what each way of
// computing that op can give (pw-bf16-math-to-nvvm).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_CONVERSION_POINTWISETOGPU_BF16FUNCTION_H
#define POINTWISE_LIB_CONVERSION_POINTWISETOGPU_BF16FUNCTION_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace pointwise {

/// Bounds on an f32 value, held as doubles: every value the GPU can compute
/// lies in [low, high]. NaN bounds stand for a NaN.
struct F32Bounds {
  double low;
  double high;

  bool isNaN() const;
};

/// The largest f32 value at most `value`, and the smallest at least it.
double roundDownToF32(double value);
double roundUpToF32(double value);

/// Bounds on libdevice's `tanhf` of a value within `operand`: the float64
/// tanh of its ends, 2 ulp out (the error CUDA documents for `tanhf`).
F32Bounds boundTanhf(F32Bounds operand);

/// The f32 ops between one bf16 number and the bf16 roundings that one op
/// of them reaches.
struct Bf16Function {
  /// The bf16 number in f32: the result of an `arith.extf` from bf16.
  mlir::Value input;
  /// The ops that compute the rounded values from `input`, in program
  /// order, all in one block: constants, elementwise arithmetic, and the
  /// `arith.truncf` roundings.
  llvm::SmallVector<mlir::Operation *> ops;
  /// The `arith.truncf` ops to bf16 among `ops` that `op`'s result reaches.
  llvm::SmallVector<mlir::Operation *> outputs;
};

/// The function `op` (an elementwise f32 op) belongs to: its operands are
/// computed from one bf16 number and constants by `arith.addf`, `subf`,
/// `mulf`, `divf`, `negf`, `math.absf`, `math.fma` and `math.tanh` on f32
/// scalars or vectors, and every use of its result, transitively, is one of
/// those ops whose other operands are computed likewise, or a rounding to
/// bf16 to nearest even. std::nullopt where that is not so.
std::optional<Bf16Function> findBf16Function(mlir::Operation *op);

/// Bounds on an op's f32 result from bounds on its operands.
using BoundsRule =
    llvm::function_ref<F32Bounds(llvm::ArrayRef<F32Bounds> operands)>;

/// Whether `function` rounds to the same bf16 values on each of its 65,536
/// inputs when its op `op` is computed within `reference` bounds and when
/// it is computed within `replacement` bounds: for every input, all four
/// bounds of every output round to one bf16 value (or all are NaN). An
/// input on which `computesAlike(operand bounds)` holds, where both ways
/// give the same bits, needs no bounds. Every other op is bounded as IEEE
/// f32 arithmetic rounded to nearest, or not rounded at all (a multiply
/// contracted into an fma, where an op has the `contract` flag), and
/// `math.tanh` by `boundTanhf`; an op with any other fast-math flag makes
/// the answer false. The answer is
/// remembered for the process by the function's form (its ops, constants
/// and outputs) and `rules`, a name for the three rules.
bool roundsAlikeOnEveryInput(
    const Bf16Function &function, mlir::Operation *op, llvm::StringRef rules,
    BoundsRule reference, BoundsRule replacement,
    llvm::function_ref<bool(llvm::ArrayRef<F32Bounds> operands)> computesAlike);

} // namespace pointwise

#endif // POINTWISE_LIB_CONVERSION_POINTWISETOGPU_BF16FUNCTION_H
