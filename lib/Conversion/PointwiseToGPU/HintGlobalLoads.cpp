//===- HintGlobalLoads.cpp - pw-hint-global-loads -------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites the kernels' loads of their arguments' memory into inline PTX
// loads with an L2 evict_last cache policy (see the pass description in
// Passes.td). Stores are left as NVPTX emits them (docs/Performance.md, row
// `store-policy`).
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Conversion/Passes.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace pointwise {
#define GEN_PASS_DEF_HINTGLOBALLOADSPASS
#include "Pointwise/Conversion/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

/// The argument of its function `address` is, or derives from through a
/// getelementptr/addrspacecast chain (memory the caller passed); null for
/// other addresses.
BlockArgument getBaseArgument(Value address) {
  while (true) {
    if (auto argument = dyn_cast<BlockArgument>(address))
      return argument.getOwner()->isEntryBlock() &&
                     isa<LLVM::LLVMFuncOp>(argument.getOwner()->getParentOp())
                 ? argument
                 : BlockArgument();
    Operation *defining = address.getDefiningOp();
    if (auto gep = dyn_cast_or_null<LLVM::GEPOp>(defining))
      address = gep.getBase();
    else if (auto cast = dyn_cast_or_null<LLVM::AddrSpaceCastOp>(defining))
      address = cast.getArg();
    else
      return BlockArgument();
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

/// A load the pass rewrites.
struct HintedLoad {
  LLVM::LoadOp load;
  RegisterShape shape;
};

struct HintGlobalLoadsPass
    : public pointwise::impl::HintGlobalLoadsPassBase<HintGlobalLoadsPass> {
  using HintGlobalLoadsPassBase::HintGlobalLoadsPassBase;

  /// The parts of the policy: L1's evict_last priority, and an L2 policy
  /// of fraction 1.0 evict_last (`createpolicy`, then `.L2::cache_hint`).
  bool l1EvictLast = false;
  bool l2EvictLast = false;

  void runOnOperation() override {
    if (minBytes < 0) {
      emitError(getOperation().getLoc())
          << "pw-hint-global-loads: evict-last-min-bytes must not be "
             "negative, got "
          << static_cast<int64_t>(minBytes);
      return signalPassFailure();
    }
    switch (policy) {
    case LoadPolicy::None:
      return;
    case LoadPolicy::EvictLast:
      l1EvictLast = l2EvictLast = true;
      break;
    case LoadPolicy::L1EvictLast:
      l1EvictLast = true;
      break;
    case LoadPolicy::L2EvictLast:
      l2EvictLast = true;
      break;
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
    // The hint slows the tiled transposes of two or more inputs
    // (docs/Performance.md, row `hint-multi-buffer`).
    if (countWorkgroupBuffers(function) > 1)
      return;
    // The hint slows kernels near the issue limit (docs/Performance.md, row
    // `hint-max-instructions-per-byte`).
    if (auto work = function->getAttrOfType<FloatAttr>(
            pointwise::PointwiseDialect::InstructionsPerByteAttrHelper::
                getNameStr());
        work && work.getValueAsDouble() > maxInstructionsPerByte)
      return;
    DataLayout layout = DataLayout::closest(function);
    SmallVector<HintedLoad> loads;
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
      BlockArgument base = getBaseArgument(load.getAddr());
      if (!shape || alignment < bytes || !base)
        return;
      loads.push_back({load, *shape});
    });
    if (loads.empty())
      return;

    // One policy register per kernel, made at its entry.
    OpBuilder builder(function.getContext());
    builder.setInsertionPointToStart(&function.getBody().front());
    Value policyRegister;
    if (l2EvictLast)
      policyRegister = createPolicy(builder, function);
    for (const HintedLoad &load : loads)
      replaceLoad(load, policyRegister);
  }

  /// `createpolicy.fractional` of fraction 1.0 with `priority`.
  static Value createFractionalPolicy(OpBuilder &builder, Location loc,
                                      StringRef priority) {
    return LLVM::InlineAsmOp::create(
               builder, loc, builder.getI64Type(), ValueRange{},
               ("createpolicy.fractional.L2::" + priority + ".b64 $0, 1.0;")
                   .str(),
               "=l", /*has_side_effects=*/false, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None,
               /*asm_dialect=*/LLVM::AsmDialectAttr(),
               /*operand_attrs=*/ArrayAttr())
        .getResult(0);
  }

  /// The kernel's L2 policy, made at its entry: evict_last when the launch
  /// reads at least `minBytes` (grid size times the bytes per block that
  /// pw-lower-to-gpu recorded on the kernel), evict_normal below; always
  /// evict_last for kernels without that record (docs/Performance.md, rows
  /// `hint-policy` and `hint-min-bytes`).
  Value createPolicy(OpBuilder &builder, LLVM::LLVMFuncOp function) {
    Location loc = function.getLoc();
    Value evictLast = createFractionalPolicy(builder, loc, "evict_last");
    auto bytesPerBlock = function->getAttrOfType<IntegerAttr>(
        pointwise::PointwiseDialect::InputBytesPerBlockAttrHelper::
            getNameStr());
    if (!bytesPerBlock)
      return evictLast;
    Type i64 = builder.getI64Type();
    Value blocks = LLVM::ZExtOp::create(
        builder, loc, i64,
        NVVM::GridDimXOp::create(builder, loc, builder.getI32Type()));
    Value bytes = LLVM::MulOp::create(
        builder, loc, blocks,
        LLVM::ConstantOp::create(
            builder, loc, i64,
            builder.getI64IntegerAttr(bytesPerBlock.getInt())));
    Value large = LLVM::ICmpOp::create(
        builder, loc, LLVM::ICmpPredicate::uge, bytes,
        LLVM::ConstantOp::create(builder, loc, i64,
                                 builder.getI64IntegerAttr(minBytes)));
    return LLVM::SelectOp::create(
        builder, loc, large, evictLast,
        createFractionalPolicy(builder, loc, "evict_normal"));
  }

  void replaceLoad(const HintedLoad &hinted, Value policy) {
    LLVM::LoadOp load = hinted.load;
    RegisterShape shape = hinted.shape;
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
    // ld.global, never ld.global.nc: the hint takes the coherent path
    // (docs/Performance.md, row `hint-policy`).
    std::string text =
        std::string("ld.global") + (l1EvictLast ? ".L1::evict_last" : "") +
        (policy ? ".L2::cache_hint" : "") + vector + ".b" +
        std::to_string(shape.bits) + " " + outputs + ", [$" +
        std::to_string(shape.count) + "]" +
        (policy ? ", $" + std::to_string(shape.count + 1) : "") + ";";
    constraints += policy ? ",l,l" : ",l";
    SmallVector<Value> operands{load.getAddr()};
    if (policy)
      operands.push_back(policy);
    Type resultType = registerType;
    if (shape.count > 1)
      resultType = LLVM::LLVMStructType::getLiteral(
          builder.getContext(), SmallVector<Type>(shape.count, registerType));
    // Side effects: LLVM keeps the load in program order and does not
    // speculate it out of the branch that guards it.
    auto asmOp = LLVM::InlineAsmOp::create(
        builder, loc, resultType, operands, text, constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
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
