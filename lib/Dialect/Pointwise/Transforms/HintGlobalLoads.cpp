//===- HintGlobalLoads.cpp - pw-hint-global-loads -------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites the kernels' loads of their arguments' memory into inline PTX
// loads with an L2 evict_last cache policy (see the pass description in
// Passes.td for why).
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace pointwise {
#define GEN_PASS_DEF_HINTGLOBALLOADSPASS
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"
} // namespace pointwise

using namespace mlir;

namespace {

/// Whether `address` is an argument of its function, or a
/// getelementptr/addrspacecast chain from one: memory the caller passed.
bool derivesFromArgument(Value address) {
  while (true) {
    if (auto argument = dyn_cast<BlockArgument>(address))
      return argument.getOwner()->isEntryBlock() &&
             isa<LLVM::LLVMFuncOp>(argument.getOwner()->getParentOp());
    Operation *defining = address.getDefiningOp();
    if (auto gep = dyn_cast_or_null<LLVM::GEPOp>(defining))
      address = gep.getBase();
    else if (auto cast = dyn_cast_or_null<LLVM::AddrSpaceCastOp>(defining))
      address = cast.getArg();
    else
      return false;
  }
}

/// How a load of `bytes` bytes is split into PTX registers: `count`
/// registers of `bits` bits and their inline-assembly constraint letter.
struct RegisterShape {
  unsigned count;
  unsigned bits;
  char constraint;
};

std::optional<RegisterShape> getRegisterShape(uint64_t bytes) {
  switch (bytes) {
  case 2:
    return RegisterShape{1, 16, 'h'};
  case 4:
    return RegisterShape{1, 32, 'r'};
  case 8:
    return RegisterShape{1, 64, 'l'};
  case 16:
    return RegisterShape{4, 32, 'r'};
  default:
    return std::nullopt;
  }
}

struct HintGlobalLoadsPass
    : public pointwise::impl::HintGlobalLoadsPassBase<HintGlobalLoadsPass> {
  using HintGlobalLoadsPassBase::HintGlobalLoadsPassBase;

  void runOnOperation() override {
    if (policy == "none")
      return;
    if (policy != "evict-last") {
      emitError(getOperation().getLoc())
          << "pw-hint-global-loads: unknown policy '" << policy
          << "'; expected evict-last or none";
      return signalPassFailure();
    }
    getOperation().walk([&](LLVM::LLVMFuncOp function) {
      if (!function.isExternal())
        hintLoads(function);
    });
  }

  /// The workgroup-memory buffers `function` addresses: the shared-memory
  /// tiles of pw-tile's transpose strategy, one per staged input.
  static unsigned countWorkgroupBuffers(LLVM::LLVMFuncOp function) {
    llvm::SmallDenseSet<StringRef> buffers;
    function.walk([&](LLVM::AddressOfOp address) {
      if (cast<LLVM::LLVMPointerType>(address.getType()).getAddressSpace() == 3)
        buffers.insert(address.getGlobalName());
    });
    return buffers.size();
  }

  void hintLoads(LLVM::LLVMFuncOp function) {
    // Measured on an H100 (benchmarks/NOTES.md, sixth session): the hint
    // gained a point on the transpose of one input, and cost the tiled
    // transposes of two inputs 0.5 to 11 points.
    if (countWorkgroupBuffers(function) > 1)
      return;
    DataLayout layout = DataLayout::closest(function);
    SmallVector<std::pair<LLVM::LoadOp, RegisterShape>> loads;
    function.walk([&](LLVM::LoadOp load) {
      auto pointer = cast<LLVM::LLVMPointerType>(load.getAddr().getType());
      if (pointer.getAddressSpace() != 0 && pointer.getAddressSpace() != 1)
        return;
      if (load.getVolatile_() ||
          load.getOrdering() != LLVM::AtomicOrdering::not_atomic)
        return;
      uint64_t bytes = layout.getTypeSize(load.getType());
      std::optional<RegisterShape> shape = getRegisterShape(bytes);
      // Without an alignment, a scalar is aligned to its size (the runtime
      // checks every operand's element alignment); a vector only to its
      // elements'.
      uint64_t alignment = load.getAlignment().value_or(
          isa<VectorType>(load.getType()) ? 1 : bytes);
      if (!shape || alignment < bytes || !derivesFromArgument(load.getAddr()))
        return;
      loads.emplace_back(load, *shape);
    });
    if (loads.empty())
      return;

    // One policy register per kernel, made at its entry.
    OpBuilder builder(function.getContext());
    builder.setInsertionPointToStart(&function.getBody().front());
    Type i64 = builder.getI64Type();
    Value policyRegister =
        LLVM::InlineAsmOp::create(
            builder, function.getLoc(), i64, ValueRange{},
            "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;", "=l",
            /*has_side_effects=*/false, /*is_align_stack=*/false,
            LLVM::tailcallkind::TailCallKind::None,
            /*asm_dialect=*/LLVM::AsmDialectAttr(),
            /*operand_attrs=*/ArrayAttr())
            .getResult(0);

    for (auto [load, shape] : loads)
      replaceLoad(load, shape, policyRegister);
  }

  void replaceLoad(LLVM::LoadOp load, RegisterShape shape, Value policy) {
    OpBuilder builder(load);
    Location loc = load.getLoc();
    Type registerType = builder.getIntegerType(shape.bits);
    std::string outputs, constraints;
    for (unsigned i = 0; i < shape.count; ++i) {
      outputs += (i ? ", $" : "$") + std::to_string(i);
      constraints += std::string(i ? ",=" : "=") + shape.constraint;
    }
    if (shape.count > 1)
      outputs = "{" + outputs + "}";
    std::string vector =
        shape.count > 1 ? ".v" + std::to_string(shape.count) : "";
    std::string text = "ld.global.L1::evict_last.L2::cache_hint" + vector +
                       ".b" + std::to_string(shape.bits) + " " + outputs +
                       ", [$" + std::to_string(shape.count) + "], $" +
                       std::to_string(shape.count + 1) + ";";
    constraints += ",l,l";
    Type resultType = registerType;
    if (shape.count > 1)
      resultType = LLVM::LLVMStructType::getLiteral(
          builder.getContext(), SmallVector<Type>(shape.count, registerType));
    // Side effects: LLVM keeps the load in program order and does not
    // speculate it out of the branch that guards it.
    auto asmOp = LLVM::InlineAsmOp::create(
        builder, loc, resultType, ValueRange{load.getAddr(), policy}, text,
        constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        /*asm_dialect=*/LLVM::AsmDialectAttr(), /*operand_attrs=*/ArrayAttr());
    Value bits = asmOp.getResult(0);
    if (shape.count > 1) {
      // Registers to one vector of them, then to the loaded type.
      auto vectorType = VectorType::get({shape.count}, registerType);
      Value packed = LLVM::PoisonOp::create(builder, loc, vectorType);
      for (unsigned i = 0; i < shape.count; ++i) {
        Value lane = LLVM::ExtractValueOp::create(builder, loc, bits, i);
        Value index = LLVM::ConstantOp::create(
            builder, loc, builder.getI32Type(), builder.getI32IntegerAttr(i));
        packed =
            LLVM::InsertElementOp::create(builder, loc, packed, lane, index);
      }
      bits = packed;
    }
    Value result = bits;
    if (load.getType() != bits.getType()) {
      if (isa<LLVM::LLVMPointerType>(load.getType()))
        result = LLVM::IntToPtrOp::create(builder, loc, load.getType(), bits);
      else
        result = LLVM::BitcastOp::create(builder, loc, load.getType(), bits);
    }
    load.getResult().replaceAllUsesWith(result);
    load.erase();
  }
};

} // namespace
