//===- FamilyVariants.cpp - A function's rank-specialized variants --------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Compiler/Family.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/Pipelines/Pipelines.h"
#include "Pointwise/Runtime/Runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace pointwise;

int32_t pointwise::getElementTypeCode(Type type) {
  if (type.isInteger(1))
    return PW_I1;
  if (type.isInteger(8))
    return PW_I8;
  if (type.isInteger(16))
    return PW_I16;
  if (type.isInteger(32))
    return PW_I32;
  if (type.isInteger(64))
    return PW_I64;
  if (type.isF16())
    return PW_F16;
  if (type.isBF16())
    return PW_BF16;
  if (type.isF32())
    return PW_F32;
  if (type.isF64())
    return PW_F64;
  return -1;
}

namespace {

/// The argument index of `value` in `function`, or -1.
int32_t getArgumentIndex(func::FuncOp function, Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument || argument.getOwner() != &function.getBody().front())
    return -1;
  return argument.getArgNumber();
}

/// Describes `function` (which holds `map`) as a family, or reports why it
/// cannot be one.
FailureOr<FamilySpec> describeFamily(func::FuncOp function, MapOp map) {
  FamilySpec spec;
  spec.name = function.getName().str();
  if (function.getNumResults() != 0)
    return function.emitOpError(
        "returns values; a kernel family writes its results into output "
        "memrefs and returns nothing");
  for (BlockArgument argument : function.getArguments()) {
    FamilyArgument described;
    Type type = argument.getType();
    auto memref = dyn_cast<MemRefType>(type);
    Type element = memref ? memref.getElementType() : type;
    described.elementType = getElementTypeCode(element);
    if (described.elementType < 0)
      return function.emitOpError()
             << "argument #" << argument.getArgNumber() << " has type " << type
             << "; families take memrefs and scalars of i1, i8, i16, i32, "
                "i64, f16, bf16, f32 or f64";
    if (memref) {
      described.isMemRef = true;
      described.rank = memref.getRank();
      for (int64_t size : memref.getShape())
        described.staticSizes.push_back(ShapedType::isDynamic(size) ? -1
                                                                    : size);
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(memref.getStridesAndOffset(strides, offset)))
        return function.emitOpError()
               << "argument #" << argument.getArgNumber() << " has type "
               << type << ", whose layout is not strided";
      static_assert(ShapedType::kDynamic == PW_DYNAMIC,
                    "the family table stores MLIR's dynamic strides as is");
      if (!ShapedType::isDynamic(offset) ||
          llvm::any_of(strides, [](int64_t stride) {
            return !ShapedType::isDynamic(stride);
          })) {
        described.hasStaticLayout = true;
        described.staticStrides.assign(strides.begin(), strides.end());
        described.staticOffset = offset;
      }
      for (Operation *user : argument.getUsers())
        if (user != map.getOperation())
          return function.emitOpError()
                 << "uses memref argument #" << argument.getArgNumber()
                 << " outside its pointwise.map; a family's memrefs may only "
                    "be the map's operands";
    }
    spec.arguments.push_back(std::move(described));
  }
  for (Value output : map.getOutputs()) {
    int32_t index = getArgumentIndex(function, output);
    if (index < 0)
      return map.emitOpError("has an output that is not an argument of the "
                             "function; pw-compile needs every output to be "
                             "one");
    spec.outputs.push_back(index);
  }
  for (Value input : map.getInputs()) {
    int32_t index = getArgumentIndex(function, input);
    if (index >= 0) {
      spec.inputs.push_back(index);
      continue;
    }
    if (isa<MemRefType>(input.getType()))
      return map.emitOpError("has a memref input that is not an argument of "
                             "the function; pw-compile needs every memref "
                             "operand to be one");
  }
  return spec;
}

/// The memref type of a variant's argument: `rank` dynamic sizes and
/// strides, dynamic offset, except for the strides fixed at 1 in `unitDims`.
MemRefType getVariantType(MemRefType original, int64_t rank,
                          ArrayRef<int64_t> unitDims) {
  SmallVector<int64_t> sizes(rank, ShapedType::kDynamic);
  SmallVector<int64_t> strides(rank, ShapedType::kDynamic);
  for (int64_t dim : unitDims)
    strides[dim] = 1;
  auto layout = StridedLayoutAttr::get(original.getContext(),
                                       ShapedType::kDynamic, strides);
  return MemRefType::get(sizes, original.getElementType(), layout,
                         original.getMemorySpace());
}

/// Clones `function` as variant `variant` of `spec` at the end of `module`.
void addVariant(ModuleOp module, func::FuncOp function, const FamilySpec &spec,
                const FamilyVariant &variant) {
  func::FuncOp clone = function.clone();
  clone.setName(variant.function);
  clone.setPublic();
  clone->removeAttr("llvm.emit_c_interface");
  Block &body = clone.getBody().front();
  SmallVector<Type> argumentTypes;
  for (BlockArgument argument : body.getArguments()) {
    auto memref = dyn_cast<MemRefType>(argument.getType());
    if (!memref) {
      argumentTypes.push_back(argument.getType());
      continue;
    }
    SmallVector<int64_t> unitDims;
    int32_t index = argument.getArgNumber();
    if (variant.transpose) {
      if (llvm::is_contained(spec.outputs, index))
        unitDims.push_back(variant.rank - 1);
      else if (index == variant.transposedArgument)
        unitDims.push_back(variant.rank - 2);
    }
    argument.setType(getVariantType(memref, variant.rank, unitDims));
    argumentTypes.push_back(argument.getType());
  }
  clone.setType(FunctionType::get(module.getContext(), argumentTypes, {}));
  Builder builder(module.getContext());
  clone->setAttr(PointwiseDialect::BroadcastResolvedAttrHelper::getNameStr(),
                 builder.getUnitAttr());
  clone->setAttr(
      PointwiseDialect::TileStrategyAttrHelper::getNameStr(),
      builder.getStringAttr(variant.transpose ? "transpose" : "linear"));
  clone->setAttr(PointwiseDialect::TileIndexBitwidthAttrHelper::getNameStr(),
                 builder.getI64IntegerAttr(variant.indexBitwidth));
  if (variant.narrow)
    clone->setAttr(PointwiseDialect::TileVectorBytesAttrHelper::getNameStr(),
                   builder.getI64IntegerAttr(8));
  module.push_back(clone);
}

/// The keyword of FamilyOptions::variants that selects no variant.
constexpr llvm::StringLiteral kNoVariants("none");

} // namespace

std::string pointwise::getVariantName(llvm::StringRef family,
                                      const FamilyVariant &variant) {
  return (family + "__r" + llvm::Twine(variant.rank) + "_i" +
          llvm::Twine(variant.indexBitwidth) +
          (variant.transpose
               ? "_transpose" + llvm::Twine(variant.transposedArgument)
               : llvm::Twine(variant.narrow ? "_linear_narrow" : "_linear")))
      .str();
}

std::string pointwise::checkFamilyOptions(const FamilyOptions &options) {
  for (unsigned bits : options.indexBitwidths)
    if (bits != 32 && bits != 64)
      return "index bitwidths must be 32 or 64, got " + std::to_string(bits);
  if (options.indexBitwidths.empty())
    return "no index bitwidth to build variants for";
  if (llvm::is_contained(options.variants, kNoVariants) &&
      options.variants.size() > 1)
    return "variants=none selects no variant and takes no variant names";
  // The host loops of target=cpu take no GPU option.
  if (options.target == FamilyTarget::Cuda)
    return checkGpuCodegenOptions(options);
  return "";
}

FailureOr<std::vector<FamilySpec>>
pointwise::buildFamilyVariants(ModuleOp module, const FamilyOptions &options) {
  if (std::string problem = checkFamilyOptions(options); !problem.empty())
    return module.emitError(problem);

  std::vector<FamilySpec> families;
  SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
  for (const std::string &name : options.functions)
    if (!module.lookupSymbol<func::FuncOp>(name))
      return module.emitError() << "no function named '" << name << "'";
  for (func::FuncOp function : functions) {
    if (function.isExternal())
      continue;
    // Only the functions asked for: the others are not compiled at all.
    if (!options.functions.empty() &&
        !llvm::is_contained(options.functions, function.getName())) {
      function.erase();
      continue;
    }
    SmallVector<MapOp> maps;
    function.walk([&](MapOp map) { maps.push_back(map); });
    if (maps.empty()) {
      if (!options.functions.empty())
        return function.emitOpError("holds no pointwise.map");
      continue;
    }
    if (maps.size() > 1)
      return function.emitOpError()
             << "holds " << maps.size()
             << " pointwise.map ops; a family is one map: put each map in "
                "its own function";
    FailureOr<FamilySpec> spec = describeFamily(function, maps.front());
    if (failed(spec))
      return failure();

    // The iteration rank is the outputs' rank; coalescing never raises it.
    auto outputType = cast<MemRefType>(maps.front().getOutputs()[0].getType());
    int64_t maxRank = std::max<int64_t>(1, outputType.getRank());
    // Host loops index with 64 bits and need no tiles: one variant per rank.
    bool cpu = options.target == FamilyTarget::Cpu;
    // Linear-narrow variants (8-byte vectors) where pw-tile gives ranks >= 2
    // 16-byte ones: maps of 4-byte elements only, vector width left to the
    // compiler. The dispatch picks them when an operand's rows are not
    // 16-byte aligned, where they are faster; on aligned rows they are
    // slower (docs/Performance.md, row `narrow-variants`).
    bool narrowVariants =
        !cpu && options.vectorBytes == 0 &&
        llvm::all_of(function.getArgumentTypes(), [](Type type) {
          auto memref = dyn_cast<MemRefType>(type);
          return !memref || memref.getElementTypeBitWidth() == 32;
        });
    // Each bitwidth once, in the order given (`32,32` builds one); by
    // default 32 only (docs/Performance.md, row `index-bitwidth`).
    std::vector<unsigned> bitwidths;
    static constexpr unsigned kHostBitwidth = 64;
    ArrayRef<unsigned> requested =
        cpu ? ArrayRef<unsigned>(kHostBitwidth)
            : ArrayRef<unsigned>(options.indexBitwidths);
    for (unsigned bits : requested)
      if (!llvm::is_contained(bitwidths, bits))
        bitwidths.push_back(bits);
    for (int64_t rank = 1; rank <= maxRank; ++rank) {
      for (unsigned bits : bitwidths) {
        FamilyVariant linear;
        linear.rank = rank;
        linear.indexBitwidth = bits;
        spec->variants.push_back(linear);
        if (narrowVariants && rank >= 2) {
          FamilyVariant narrow = linear;
          narrow.narrow = true;
          spec->variants.push_back(narrow);
        }
        if (cpu || !options.transposeVariants || rank < 2)
          continue;
        for (int32_t input : spec->inputs) {
          if (!spec->arguments[input].isMemRef ||
              llvm::is_contained(spec->outputs, input))
            continue;
          FamilyVariant transpose = linear;
          transpose.transpose = true;
          transpose.transposedArgument = input;
          // One variant per argument, even when it is read twice.
          if (llvm::any_of(spec->variants, [&](const FamilyVariant &other) {
                return other.transpose && other.rank == rank &&
                       other.indexBitwidth == static_cast<int32_t>(bits) &&
                       other.transposedArgument == input;
              }))
            continue;
          spec->variants.push_back(transpose);
        }
      }
    }
    for (FamilyVariant &variant : spec->variants) {
      variant.function = getVariantName(spec->name, variant);
      variant.compiled = options.variants.empty() ||
                         llvm::is_contained(options.variants, variant.function);
      if (variant.compiled)
        addVariant(module, function, *spec, variant);
    }
    function.erase();
    families.push_back(std::move(*spec));
  }
  if (families.empty())
    return module.emitError("no function holding a pointwise.map to compile");
  for (const std::string &name : options.variants) {
    if (name == kNoVariants)
      continue;
    bool known = llvm::any_of(families, [&](const FamilySpec &family) {
      return llvm::any_of(family.variants, [&](const FamilyVariant &variant) {
        return variant.function == name;
      });
    });
    if (!known)
      return module.emitError()
             << "no variant named '" << name
             << "'; variants are named <function>__r<rank>_i<bits>_linear, "
                "_linear_narrow or _transpose<argument> (pw-compile -o "
                "variants.mlir lists them)";
  }
  return families;
}

/// Runs `pm` on `module`, failing also when a pass reported an error but
/// succeeded (upstream's gpu-module-to-binary does so when the toolkit lacks
/// libdevice), so that no broken binary is written.
static LogicalResult runReportingErrors(PassManager &pm, ModuleOp module) {
  bool reportedError = false;
  ScopedDiagnosticHandler watch(module.getContext(), [&](Diagnostic &d) {
    reportedError |= d.getSeverity() == DiagnosticSeverity::Error;
    return failure(); // Not handled: the caller's handler prints it.
  });
  if (failed(pm.run(module)))
    return failure();
  return failure(reportedError);
}

void pointwise::buildFamilyPipeline(OpPassManager &pm,
                                    const FamilyOptions &options) {
  if (options.target == FamilyTarget::Cpu) {
    CpuPipelineOptions pipeline;
    // The run-time dispatch checks every call's layouts (lib/Runtime).
    pipeline.runtimeVerification = false;
    buildCpuPipeline(pm, pipeline);
    return;
  }
  // Strategy and index bitwidth come from each variant's attributes; the
  // run-time dispatch checks every call's layouts.
  buildGpuCodegenPipeline(pm, options, options.getTileOptions(),
                          /*launchOnCurrentStream=*/true,
                          /*runtimeVerification=*/false);
}

LogicalResult pointwise::lowerFamilies(ModuleOp module,
                                       const FamilyOptions &options,
                                       TimingScope *timing) {
  PassManager pm(module.getContext());
  if (timing)
    pm.enableTiming(*timing);
  // The lowered module is verified once, not after each of the pipeline's
  // passes: that takes about a tenth of a family's compile time
  // (docs/Performance.md, row `family-verification`), and the passes are
  // verified after each one where they are tested (pw-opt's lit tests).
  pm.enableVerifier(false);
  buildFamilyPipeline(pm, options);
  if (failed(runReportingErrors(pm, module)))
    return failure();
  return verify(module);
}
