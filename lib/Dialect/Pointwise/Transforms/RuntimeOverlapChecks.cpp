//===- RuntimeOverlapChecks.cpp - Overlap checks of computed views --------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Before every pointwise.map whose operands' addresses decide whether it is
// well defined (two or more memref operands, or an output whose layout is
// not static), a call of the runtime's pwCheckMapOverlap with the operands'
// descriptors packed into a stack array, and a cf.assert on its answer. The
// rule itself is the layout library's checkOutputOverlap, which the kernel
// families' dispatch applies to every launch: this pass only hands it the
// views a program computes (subviews, casts, allocations), which nothing
// sees before the program runs.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

namespace pointwise {
#define GEN_PASS_DEF_RUNTIMEOVERLAPCHECKSPASS
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

/// The runtime function (include/Pointwise/Runtime/Runtime.h).
constexpr llvm::StringLiteral kCheckName = "pwCheckMapOverlap";

/// The memref operands in the runtime's order: outputs, then memref inputs.
SmallVector<Value> checkedOperands(MapOp map) {
  return llvm::map_to_vector(map.getMemRefOperandsOutputsFirst(),
                             [](OpOperand *operand) { return operand->get(); });
}

/// Whether only the run-time addresses or layouts can tell that `map` is
/// well defined: two memref operands may overlap wherever they live, unless
/// an input is the very value of an output (the same view: in place); a
/// single output overlaps itself or not by its sizes and strides, which the
/// verifier has checked where they are static.
bool needsCheck(MapOp map, ArrayRef<Value> operands) {
  ValueRange outputs = map.getOutputs();
  if (outputs.size() >= 2 ||
      llvm::any_of(operands.drop_front(outputs.size()), [&](Value input) {
        return !llvm::is_contained(outputs, input);
      }))
    return true;
  auto type = cast<MemRefType>(outputs.front().getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return !type.hasStaticShape() ||
         failed(type.getStridesAndOffset(strides, offset)) ||
         llvm::any_of(strides, ShapedType::isDynamic);
}

int64_t packetWords(ArrayRef<Value> operands) {
  int64_t words = 2;
  for (Value operand : operands)
    words += 4 + 2 * cast<MemRefType>(operand.getType()).getRank();
  return words;
}

/// Builds the packet of pwCheckMapOverlap before `map` and asserts on the
/// call's answer, in an alloca scope (maps in loops do not grow the stack).
void emitCheck(MapOp map, ArrayRef<Value> operands, func::FuncOp callee) {
  OpBuilder builder(map);
  Location loc = map.getLoc();
  auto scope = memref::AllocaScopeOp::create(builder, loc, TypeRange{});
  builder.createBlock(&scope.getBodyRegion());
  Type i64 = builder.getI64Type();
  int64_t words = packetWords(operands);
  Value packet =
      memref::AllocaOp::create(builder, loc, MemRefType::get({words}, i64));
  int64_t position = 0;
  auto store = [&](Value word) {
    if (word.getType().isIndex())
      word = arith::IndexCastOp::create(builder, loc, i64, word);
    Value at = arith::ConstantIndexOp::create(builder, loc, position++);
    memref::StoreOp::create(builder, loc, word, packet, at);
  };
  auto storeConstant = [&](int64_t value) {
    store(arith::ConstantIntOp::create(builder, loc, value, 64));
  };
  storeConstant(map.getNumOutputs());
  storeConstant(operands.size());
  for (Value operand : operands) {
    auto type = cast<MemRefType>(operand.getType());
    store(
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, operand));
    storeConstant(llvm::divideCeil(type.getElementTypeBitWidth(), 8));
    storeConstant(type.getRank());
    auto metadata =
        memref::ExtractStridedMetadataOp::create(builder, loc, operand);
    store(metadata.getOffset());
    for (Value size : metadata.getSizes())
      store(size);
    for (Value stride : metadata.getStrides())
      store(stride);
  }
  assert(position == words && "the packet's size and contents disagree");
  Value dynamic = memref::CastOp::create(
      builder, loc, MemRefType::get({ShapedType::kDynamic}, i64), packet);
  Value answer =
      func::CallOp::create(builder, loc, callee, dynamic).getResult(0);
  Value zero = arith::ConstantIntOp::create(builder, loc, 0, 32);
  Value holds = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                      answer, zero);
  std::string where;
  llvm::raw_string_ostream(where) << loc;
  // Laid out like upstream's run-time verification messages.
  cf::AssertOp::create(
      builder, loc, holds,
      "ERROR: Runtime op verification failed\npointwise.map: an output "
      "overlaps itself or another output, or partially overlaps an input "
      "(operands numbered outputs first, then memref inputs; "
      "pwCheckMapOverlap printed which to stderr)\nLocation: " +
          where);
  memref::AllocaScopeReturnOp::create(builder, loc);
}

struct RuntimeOverlapChecksPass
    : public pointwise::impl::RuntimeOverlapChecksPassBase<
          RuntimeOverlapChecksPass> {
  void runOnOperation() override {
    // Host code only: a map is checked in the builtin.module that holds it
    // (nested ones included), which gets its own declaration; maps under
    // another symbol table (a gpu.module's device code) are left alone.
    SmallVector<std::pair<MapOp, SmallVector<Value>>> checked;
    getOperation().walk([&](MapOp map) {
      // Tensors do not overlap; their buffers are checked once bufferized.
      if (!map.hasPureBufferSemantics())
        return;
      SmallVector<Value> operands = checkedOperands(map);
      if (isa<ModuleOp>(SymbolTable::getNearestSymbolTable(map)) &&
          needsCheck(map, operands))
        checked.emplace_back(map, std::move(operands));
    });
    llvm::DenseMap<Operation *, func::FuncOp> callees;
    for (auto &[map, operands] : checked) {
      auto module = cast<ModuleOp>(SymbolTable::getNearestSymbolTable(map));
      func::FuncOp &callee = callees[module];
      if (!callee && failed(declareCheck(module, callee)))
        return signalPassFailure();
      emitCheck(map, operands, callee);
    }
  }

  /// Finds or adds `module`'s declaration of pwCheckMapOverlap.
  LogicalResult declareCheck(ModuleOp module, func::FuncOp &callee) {
    MLIRContext *context = &getContext();
    Type i64 = IntegerType::get(context, 64);
    auto calleeType = FunctionType::get(
        context, {MemRefType::get({ShapedType::kDynamic}, i64)},
        {IntegerType::get(context, 32)});
    Operation *existing = module.lookupSymbol(kCheckName);
    if (!existing) {
      OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
      callee = func::FuncOp::create(builder, module.getLoc(), kCheckName,
                                    calleeType);
      callee.setPrivate();
      return success();
    }
    callee = dyn_cast<func::FuncOp>(existing);
    if (!callee || !callee.isExternal())
      return existing->emitOpError("is named like the runtime's ")
             << kCheckName << ", which pw-runtime-overlap-checks calls";
    if (callee.getFunctionType() != calleeType)
      return callee.emitOpError("has type ")
             << callee.getFunctionType() << "; the runtime's " << kCheckName
             << " is " << calleeType;
    return success();
  }
};

} // namespace
