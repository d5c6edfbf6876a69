//===- OpMath.cpp - Computing a map body in its opmath types --------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/Transforms/OpMath.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionGraphTraits.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/PostOrderIterator.h"

using namespace mlir;
using namespace pointwise;

namespace {

/// Whether `type`, or the element type of a vector `type`, is f16 or bf16.
bool isHalf(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isF16() || element.isBF16();
}

/// `type` with f32 for f16/bf16 (elements, in a vector).
Type getOpMathType(Type type) {
  if (!isHalf(type))
    return type;
  Type f32 = Float32Type::get(type.getContext());
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(f32);
  return f32;
}

/// A constant of `type` (a scalar, or a vector of equal lanes) whose value,
/// or every lane's, is `value`, an attribute of `type`'s element type.
Value createSplatConstant(OpBuilder &builder, Location loc, Type type,
                          TypedAttr value) {
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(builder, loc, vector,
                                     SplatElementsAttr::get(vector, value));
  return arith::ConstantOp::create(builder, loc, type, value);
}

/// Whether `op` can have its f16/bf16 results, region arguments and region
/// terminator operands all computed in f32: ops that only pass values between
/// their operands, regions and results (scf.if, scf.for, scf.while, ...)
/// stay well typed when all of those are promoted alike.
bool isPromotableControlFlow(Operation &op) {
  return isa<RegionBranchOpInterface>(op);
}

/// Whether `op` asks for the float class of its operand, whose answer
/// depends on the range of the operand's type: the f32 value of an f16
/// subnormal is normal in f32, and an f32 value above f16's largest one is
/// finite in f32 but infinite once stored. Such ops see the value rounded to
/// its storage type. `math.isnan` is promoted: rounding neither makes nor
/// unmakes a NaN.
bool isRangeDependentClassTest(Operation &op) {
  return isa<math::IsFiniteOp, math::IsInfOp, math::IsNormalOp>(op);
}

/// Tracks, for every body value, its value in the kernel: in f32 where the
/// body has f16/bf16.
/// The float-to-integer conversions of a map body saturate, as LLVM's
/// fptosi.sat/fptoui.sat and NVPTX's cvt do: NaN gives 0, a value below the
/// integer type's range its minimum, a value above it its maximum. Plain
/// arith.fptosi/fptoui are poison there, which the CPU and the GPU would
/// resolve differently. Returns the saturated result of `conversion` (just
/// cloned, its result not used yet), or `conversion`'s result for other ops;
/// selects do not propagate the poison of the arm they do not choose.
Value saturateFloatToInt(OpBuilder &builder, Operation *conversion) {
  bool isSigned = isa<arith::FPToSIOp>(conversion);
  if (conversion->getNumResults() != 1)
    return {};
  Value converted = conversion->getResult(0);
  if (!isSigned && !isa<arith::FPToUIOp>(conversion))
    return converted;
  Value input = conversion->getOperand(0);
  auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(input.getType()));
  auto intType = dyn_cast<IntegerType>(getElementTypeOrSelf(converted));
  if (!floatType || !intType)
    return converted;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfter(conversion);
  Location loc = conversion->getLoc();
  unsigned width = intType.getWidth();
  const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
  auto floatConstant = [&](const llvm::APFloat &value) {
    return createSplatConstant(builder, loc, input.getType(),
                               builder.getFloatAttr(floatType, value));
  };
  auto intConstant = [&](const llvm::APInt &value) {
    return createSplatConstant(builder, loc, converted.getType(),
                               builder.getIntegerAttr(intType, value));
  };
  auto compare = [&](arith::CmpFPredicate predicate, Value bound) {
    return arith::CmpFOp::create(builder, loc, predicate, input, bound);
  };
  // Above: x >= 2^(w-1) (signed) or 2^w (unsigned), a power of two that
  // either format holds exactly or rounds to +inf (then only +inf is above).
  llvm::APFloat upper(semantics);
  llvm::APInt upperInt =
      llvm::APInt::getOneBitSet(width + 1, isSigned ? width - 1 : width);
  upper.convertFromAPInt(upperInt, /*IsSigned=*/false,
                         llvm::APFloat::rmNearestTiesToEven);
  Value above = compare(arith::CmpFPredicate::OGE, floatConstant(upper));
  // Below: x < -2^(w-1) (signed; -inf where the format cannot hold it) or
  // x <= -1 (unsigned: (-1, 0) truncates to 0).
  Value below;
  if (isSigned) {
    llvm::APFloat lower(semantics);
    lower.convertFromAPInt(llvm::APInt::getSignedMinValue(width),
                           /*IsSigned=*/true,
                           llvm::APFloat::rmNearestTiesToEven);
    below = compare(lower.isInfinity() ? arith::CmpFPredicate::OLE
                                       : arith::CmpFPredicate::OLT,
                    floatConstant(lower));
  } else {
    below = compare(arith::CmpFPredicate::OLE,
                    floatConstant(llvm::APFloat(semantics, "-1")));
  }
  Value isNan = compare(arith::CmpFPredicate::UNO, input);
  Value result = arith::SelectOp::create(
      builder, loc, above,
      intConstant(isSigned ? llvm::APInt::getSignedMaxValue(width)
                           : llvm::APInt::getMaxValue(width)),
      converted);
  result = arith::SelectOp::create(
      builder, loc, below,
      intConstant(isSigned ? llvm::APInt::getSignedMinValue(width)
                           : llvm::APInt::getZero(width)),
      result);
  return arith::SelectOp::create(
      builder, loc, isNan, intConstant(llvm::APInt::getZero(width)), result);
}

class OpMathCloner {
public:
  /// With `lanes`, every body value becomes a vector of that many lanes:
  /// the inputs are vectors, and each op computes all lanes at once.
  OpMathCloner(OpBuilder &builder, Location loc,
               std::optional<int64_t> lanes = std::nullopt)
      : builder(builder), loc(loc), lanes(lanes) {}

  void setInput(Value bodyValue, Value storageValue) {
    values.map(bodyValue, isHalf(storageValue.getType()) ? widen(storageValue)
                                                         : storageValue);
  }

  /// The value of `bodyValue` in its original (storage) type.
  Value getInStorageType(Value bodyValue) {
    Value value = values.lookup(bodyValue);
    Type storage = lift(bodyValue.getType());
    if (value.getType() == storage)
      return value;
    return arith::TruncFOp::create(builder, loc, storage, value);
  }

  void clone(Operation &op) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      TypedAttr value = constant.getValue();
      if (auto attr = dyn_cast<FloatAttr>(value);
          attr && isHalf(attr.getType()))
        value =
            builder.getFloatAttr(builder.getF32Type(), attr.getValueAsDouble());
      if (lanes || value != constant.getValue()) {
        values.map(constant.getResult(),
                   createSplatConstant(builder, op.getLoc(),
                                       lift(value.getType()), value));
        return;
      }
    }
    if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
      // The operand is already at least f32 here.
      Value in = values.lookup(ext.getIn());
      Type target = getOpMathType(lift(ext.getType()));
      values.map(ext.getResult(),
                 in.getType() == target
                     ? in
                     : Value(arith::ExtFOp::create(builder, op.getLoc(), target,
                                                   in, ext.getFastmathAttr())));
      return;
    }
    if (auto trunc = dyn_cast<arith::TruncFOp>(op);
        trunc && isHalf(trunc.getType())) {
      // Keep the rounding the body asks for, in its rounding mode, then go
      // back to f32. From f32 to bf16 an explicit to_nearest_even (the only
      // mode the verifier lets a body name, and the default) is written
      // without the attribute, which the CPU pipeline's integer bf16
      // rounding (arith-expand-ops) does not accept.
      Value in = values.lookup(trunc.getIn());
      arith::RoundingModeAttr mode = trunc.getRoundingmodeAttr();
      if (mode && mode.getValue() == arith::RoundingMode::to_nearest_even &&
          getElementTypeOrSelf(trunc.getType()).isBF16() &&
          getElementTypeOrSelf(in.getType()).isF32())
        mode = nullptr;
      Value rounded =
          arith::TruncFOp::create(builder, op.getLoc(), lift(trunc.getType()),
                                  in, mode, trunc.getFastmathAttr());
      values.map(trunc.getResult(), widen(rounded));
      return;
    }
    // Terminators reach here only from the regions of promotable control
    // flow, whose region arguments and results are promoted with them.
    if (isPromotableControlFlow(op) || op.hasTrait<OpTrait::IsTerminator>()) {
      clonePromoted(op);
      return;
    }
    bool touchesHalf = llvm::any_of(op.getOperandTypes(), isHalf) ||
                       llvm::any_of(op.getResultTypes(), isHalf);
    bool promotable =
        op.getNumRegions() == 0 && op.hasTrait<OpTrait::Elementwise>() &&
        !isa<arith::BitcastOp>(op) && !isRangeDependentClassTest(op);
    if (touchesHalf && promotable) {
      clonePromoted(op);
      return;
    }
    cloneInStorageTypes(op);
  }

private:
  Value widen(Value half) {
    return arith::ExtFOp::create(builder, loc, getOpMathType(half.getType()),
                                 half);
  }

  /// `type` as the cloner computes it: a vector of `lanes` of it, or itself.
  Type lift(Type type) const {
    return lanes ? VectorType::get({*lanes}, type) : type;
  }

  /// Clones `op` with its operands' opmath values, f16/bf16 results in f32,
  /// and the blocks of its regions cloned op by op with f16/bf16 arguments in
  /// f32.
  void clonePromoted(Operation &op) {
    SmallVector<Value> operands =
        llvm::map_to_vector(op.getOperands(), [&](Value operand) {
          return values.lookup(operand);
        });
    SmallVector<Type> resultTypes =
        llvm::map_to_vector(op.getResultTypes(), [&](Type type) {
          return getOpMathType(lift(type));
        });
    SmallVector<Block *> successors = llvm::map_to_vector(
        op.getSuccessors(), [&](Block *block) { return values.lookup(block); });
    Operation *copy = Operation::create(
        op.getLoc(), op.getName(), resultTypes, operands,
        NamedAttrList(op.getDiscardableAttrDictionary()),
        op.getPropertiesStorage(), successors, op.getNumRegions());
    builder.insert(copy);
    for (auto [region, copyRegion] :
         llvm::zip(op.getRegions(), copy->getRegions()))
      cloneRegion(region, copyRegion);
    if (Value saturated = saturateFloatToInt(builder, copy);
        saturated && saturated != copy->getResult(0)) {
      values.map(op.getResult(0), saturated);
      return;
    }
    for (auto [old, result] : llvm::zip(op.getResults(), copy->getResults()))
      values.map(old, result);
  }

  /// Clones the blocks of `region` reachable from its entry into `copy`, in
  /// reverse post-order so that every value is cloned before its uses.
  void cloneRegion(Region &region, Region &copy) {
    if (region.empty())
      return;
    OpBuilder::InsertionGuard guard(builder);
    llvm::ReversePostOrderTraversal<Block *> blocks(&region.front());
    for (Block *block : blocks) {
      SmallVector<Type> types =
          llvm::map_to_vector(block->getArgumentTypes(), getOpMathType);
      SmallVector<Location> locs = llvm::map_to_vector(
          block->getArguments(),
          [](BlockArgument argument) { return argument.getLoc(); });
      Block *copyBlock = builder.createBlock(&copy, copy.end(), types, locs);
      values.map(block, copyBlock);
      values.map(block->getArguments(), copyBlock->getArguments());
    }
    for (Block *block : blocks) {
      builder.setInsertionPointToEnd(values.lookup(block));
      for (Operation &op : *block)
        clone(op);
    }
  }

  /// Clones `op` in its own types: operands, and the values from above that
  /// its regions use (the verifier lets no such op with regions into a body,
  /// but the clone must not keep uses of the body either way), are rounded
  /// back to their storage types first; results are widened again.
  void cloneInStorageTypes(Operation &op) {
    IRMapping storage;
    for (Value operand : op.getOperands())
      storage.map(operand, getInStorageType(operand));
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(op.getRegions(), captured);
    for (Value value : captured)
      storage.map(value, getInStorageType(value));
    Operation *copy;
    if (lanes) {
      // Bodies computed on vectors have no regions (isVectorizableBody).
      SmallVector<Value> operands =
          llvm::map_to_vector(op.getOperands(), [&](Value operand) {
            return storage.lookup(operand);
          });
      SmallVector<Type> resultTypes = llvm::map_to_vector(
          op.getResultTypes(), [&](Type type) { return lift(type); });
      copy = Operation::create(op.getLoc(), op.getName(), resultTypes, operands,
                               NamedAttrList(op.getDiscardableAttrDictionary()),
                               op.getPropertiesStorage(), {}, 0);
      builder.insert(copy);
    } else {
      copy = builder.clone(op, storage);
    }
    if (Value saturated = saturateFloatToInt(builder, copy);
        saturated && saturated != copy->getResult(0)) {
      values.map(op.getResult(0), saturated);
      return;
    }
    for (auto [old, result] : llvm::zip(op.getResults(), copy->getResults()))
      values.map(old, isHalf(result.getType()) ? widen(result) : result);
  }

  OpBuilder &builder;
  Location loc;
  std::optional<int64_t> lanes;
  IRMapping values;
};

/// Shared by both entry points: clones the body with `cloner`.
SmallVector<Value> cloneBody(OpMathCloner &cloner, MapOp map,
                             ValueRange inputs) {
  Block *body = map.getBodyBlock();
  for (auto [argument, input] : llvm::zip(body->getArguments(), inputs))
    cloner.setInput(argument, input);
  for (Operation &op : body->without_terminator())
    cloner.clone(op);
  SmallVector<Value> results;
  for (Value yielded : cast<YieldOp>(body->getTerminator()).getValues())
    results.push_back(cloner.getInStorageType(yielded));
  return results;
}

} // namespace

SmallVector<Value> pointwise::cloneBodyInOpMath(OpBuilder &builder,
                                                Location loc, MapOp map,
                                                ValueRange inputs) {
  OpMathCloner cloner(builder, loc);
  return cloneBody(cloner, map, inputs);
}

bool pointwise::isVectorizableBody(MapOp map) {
  auto isElementType = [](Type type) {
    return isa<IntegerType, FloatType, IndexType>(type);
  };
  for (Operation &op : map.getBodyBlock()->without_terminator()) {
    if (op.getNumRegions() != 0 || op.getNumSuccessors() != 0)
      return false;
    if (!isa<arith::ConstantOp>(op) && !op.hasTrait<OpTrait::Elementwise>())
      return false;
    if (!llvm::all_of(op.getOperandTypes(), isElementType) ||
        !llvm::all_of(op.getResultTypes(), isElementType))
      return false;
  }
  return true;
}

SmallVector<Value> pointwise::cloneBodyInOpMathOnVectors(OpBuilder &builder,
                                                         Location loc,
                                                         MapOp map,
                                                         ValueRange inputs,
                                                         int64_t lanes) {
  OpMathCloner cloner(builder, loc, lanes);
  return cloneBody(cloner, map, inputs);
}
