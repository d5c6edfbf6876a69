//===- WorkEstimate.cpp - Instructions per byte of a map -----------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/Transforms/WorkEstimate.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace pointwise;

namespace {

/// Instructions of one math op on f32, as CUDA 13's libdevice implements it
/// on the common path (PTX that NVPTX emits, counted without the rarely
/// taken branches such as sine's large-argument reduction). Ops that are
/// one PTX instruction (fma, absf, copysign, floor, ...) count 1; `sqrt`
/// counts what ptxas expands `sqrt.rn.f32` to (docs/Performance.md, row
/// `work-estimate`). A bf16 tanh that pw-bf16-math-to-nvvm replaces counts
/// its sequence.
double getMathCost(Operation *op) {
  // pw-bf16-math-to-nvvm's sequence (mul, ex2, add, rcp, fma, setp, selp)
  // where the kernel will have it: a bf16 tanh of a bf16 input whose result
  // is stored. Elsewhere op math keeps operand or result in f32 and the
  // tanh stays libdevice's.
  if (isa<math::TanhOp>(op) && op->getResult(0).getType().isBF16() &&
      isa<BlockArgument>(op->getOperand(0)) &&
      llvm::all_of(op->getUsers(), [](Operation *user) {
        return user->hasTrait<OpTrait::IsTerminator>();
      }))
    return 7;
  return llvm::StringSwitch<double>(op->getName().stripDialect())
      .Case("tanh", 17)
      .Case("exp", 12)
      .Case("exp2", 4)
      .Cases({"expm1", "log", "log10"}, 27)
      .Cases({"log2", "log1p", "sinh"}, 28)
      .Cases({"sin", "cos"}, 25)
      .Case("sincos", 40)
      .Case("tan", 35)
      .Cases({"atan", "asin"}, 24)
      .Case("acos", 27)
      .Case("atan2", 30)
      .Case("cosh", 19)
      .Case("erf", 25)
      .Case("erfc", 30)
      .Case("cbrt", 16)
      .Case("sqrt", 8)
      .Case("rsqrt", 2)
      .Cases({"powf", "fpowi"}, 40)
      .Case("ipowi", 10)
      .Default(1);
}

/// Instructions of one body op on one element (docs/Performance.md, row
/// `work-estimate`).
double getOpCost(Operation *op) {
  if (isa<arith::ConstantOp, YieldOp>(op))
    return 0;
  if (op->getDialect() && op->getDialect()->getNamespace() == "math")
    return getMathCost(op);
  if (isa<arith::DivFOp>(op))
    return 8;
  if (isa<arith::RemFOp, arith::DivSIOp, arith::DivUIOp, arith::RemSIOp,
          arith::RemUIOp, arith::CeilDivSIOp, arith::CeilDivUIOp,
          arith::FloorDivSIOp>(op))
    return 20;
  return 1;
}

} // namespace

int64_t pointwise::getElementByteWidth(Type type) {
  if (!type.isIntOrFloat())
    return 8; // index
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits < 8 ? 1 : bits / 8;
}

double pointwise::estimateInstructionsPerByte(MapOp map) {
  double instructions = 0;
  int64_t bytes = 0;
  for (Value operand : llvm::concat<Value>(map.getInputs(), map.getOutputs())) {
    auto memref = dyn_cast<MemRefType>(operand.getType());
    if (!memref)
      continue;
    Type element = memref.getElementType();
    bytes += getElementByteWidth(element);
    instructions += 2;
    if (element.isF16() || element.isBF16())
      instructions += 1;
  }
  map.getBodyBlock()->walk(
      [&](Operation *op) { instructions += getOpCost(op); });
  return bytes ? instructions / bytes : 0;
}
