//===- OpMath.cpp - Computing a map body in its opmath types --------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/Transforms/OpMath.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpDefinition.h"

using namespace mlir;
using namespace pointwise;

namespace {

bool isHalf(Type type) { return type.isF16() || type.isBF16(); }

Type getOpMathType(Type type) {
  return isHalf(type) ? Float32Type::get(type.getContext()) : type;
}

/// Tracks, for every body value, its value in the kernel: in f32 where the
/// body has f16/bf16.
class OpMathCloner {
public:
  OpMathCloner(OpBuilder &builder, Location loc) : builder(builder), loc(loc) {}

  void setInput(Value bodyValue, Value storageValue) {
    values.map(bodyValue, isHalf(storageValue.getType()) ? widen(storageValue)
                                                         : storageValue);
  }

  /// The value of `bodyValue` in its original (storage) type.
  Value getInStorageType(Value bodyValue) {
    Value value = values.lookup(bodyValue);
    if (value.getType() == bodyValue.getType())
      return value;
    return arith::TruncFOp::create(builder, loc, bodyValue.getType(), value);
  }

  void clone(Operation &op) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      if (auto attr = dyn_cast<FloatAttr>(constant.getValue());
          attr && isHalf(attr.getType())) {
        Type f32 = builder.getF32Type();
        values.map(constant.getResult(),
                   arith::ConstantOp::create(
                       builder, loc, f32,
                       builder.getFloatAttr(f32, attr.getValueAsDouble())));
        return;
      }
    if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
      // The operand is already at least f32 here.
      Value in = values.lookup(ext.getIn());
      Type target = getOpMathType(ext.getType());
      values.map(ext.getResult(),
                 in.getType() == target
                     ? in
                     : Value(arith::ExtFOp::create(builder, loc, target, in)));
      return;
    }
    if (auto trunc = dyn_cast<arith::TruncFOp>(op);
        trunc && isHalf(trunc.getType())) {
      // Keep the rounding the body asks for, then go back to f32.
      Value rounded = arith::TruncFOp::create(builder, loc, trunc.getType(),
                                              values.lookup(trunc.getIn()));
      values.map(trunc.getResult(), widen(rounded));
      return;
    }
    bool touchesHalf = llvm::any_of(op.getOperandTypes(), isHalf) ||
                       llvm::any_of(op.getResultTypes(), isHalf);
    bool promotable = op.getNumRegions() == 0 &&
                      op.hasTrait<OpTrait::Elementwise>() &&
                      !isa<arith::BitcastOp>(op);
    if (touchesHalf && promotable) {
      OperationState state(loc, op.getName());
      for (Value operand : op.getOperands())
        state.addOperands(values.lookup(operand));
      for (Type type : op.getResultTypes())
        state.addTypes(getOpMathType(type));
      state.addAttributes(op.getAttrs());
      Operation *promoted = builder.create(state);
      for (auto [old, result] :
           llvm::zip(op.getResults(), promoted->getResults()))
        values.map(old, result);
      return;
    }
    // Anything else runs in its own types: operands are rounded back to
    // their storage types first, results widened again.
    IRMapping storage;
    for (Value operand : op.getOperands())
      storage.map(operand, getInStorageType(operand));
    Operation *copy = builder.clone(op, storage);
    for (auto [old, result] : llvm::zip(op.getResults(), copy->getResults()))
      values.map(old, isHalf(result.getType()) ? widen(result) : result);
  }

private:
  Value widen(Value half) {
    return arith::ExtFOp::create(builder, loc, builder.getF32Type(), half);
  }

  OpBuilder &builder;
  Location loc;
  IRMapping values;
};

} // namespace

SmallVector<Value> pointwise::cloneBodyInOpMath(OpBuilder &builder,
                                                Location loc, MapOp map,
                                                ValueRange inputs) {
  Block *body = map.getBodyBlock();
  OpMathCloner cloner(builder, loc);
  for (auto [argument, input] : llvm::zip(body->getArguments(), inputs))
    cloner.setInput(argument, input);
  for (Operation &op : body->without_terminator())
    cloner.clone(op);
  SmallVector<Value> results;
  for (Value yielded : cast<YieldOp>(body->getTerminator()).getValues())
    results.push_back(cloner.getInStorageType(yielded));
  return results;
}
