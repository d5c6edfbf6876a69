//===- FamilyLowering.cpp - Variants lowered in parallel ------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The variants of a family share nothing but their names' prefix: each is
// lowered (pw-gpu-pipeline down to its gpu.binary, or pw-cpu-pipeline) in a
// module of its own, all on the context's threads, and their translations
// are linked into one host module. The GPU code of a variant is the same
// as when the variants are lowered together: every kernel lives in its own
// gpu.module either way.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Compiler/Family.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Threading.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"

using namespace mlir;
using namespace pointwise;

namespace {

/// Moves each variant function of `module` into a module of its own, with
/// `module`'s attributes. Leaves `module` as one part when it holds anything
/// else (helpers the variants may share), which then lowers as a whole.
SmallVector<OwningOpRef<ModuleOp>>
splitVariants(ModuleOp module, ArrayRef<FamilySpec> families) {
  SmallVector<OwningOpRef<ModuleOp>> parts;
  llvm::StringSet<> variants;
  for (const FamilySpec &family : families)
    for (const FamilyVariant &variant : family.variants)
      variants.insert(variant.function);
  bool onlyVariants = llvm::all_of(*module.getBody(), [&](Operation &op) {
    auto function = dyn_cast<func::FuncOp>(op);
    return function && variants.contains(function.getName());
  });
  if (!onlyVariants)
    return parts;
  for (Operation &op : llvm::make_early_inc_range(*module.getBody())) {
    OwningOpRef<ModuleOp> part = ModuleOp::create(op.getLoc());
    part.get()->setAttrs(module->getAttrDictionary());
    op.remove();
    part->getBody()->push_back(&op);
    parts.push_back(std::move(part));
  }
  return parts;
}

} // namespace

std::unique_ptr<llvm::Module> pointwise::lowerAndTranslateFamilies(
    ModuleOp module, llvm::LLVMContext &context, const FamilyOptions &options,
    ArrayRef<FamilySpec> families, TimingScope *timing,
    const std::function<LogicalResult(ModuleOp)> &inspectLowered) {
  MLIRContext *mlirContext = module.getContext();
  // No variant selected (FamilyOptions::variants): the host module holds the
  // family tables alone.
  if (module.getBody()->empty())
    return std::make_unique<llvm::Module>("pointwise", context);
  SmallVector<OwningOpRef<ModuleOp>> parts = splitVariants(module, families);
  SmallVector<ModuleOp> lowered;
  if (parts.empty()) {
    if (failed(lowerFamilies(module, options, timing)))
      return nullptr;
    lowered.push_back(module);
  } else {
    // Each run's PassManager appends its passes' dependent dialects and
    // dialect extensions (convert-to-llvm's, for one) to the context's
    // registry, and passes load the dialects they produce: neither is safe
    // from several threads at once (two threads adding one extension lose a
    // copy, which LeakSanitizer reports). Done here first, on this thread,
    // the runs find nothing left to add.
    {
      PassManager pipeline(mlirContext);
      buildFamilyPipeline(pipeline, options);
      DialectRegistry dependencies;
      pipeline.getDependentDialects(dependencies);
      mlirContext->appendDialectRegistry(dependencies);
    }
    mlirContext->loadAllAvailableDialects();
    for (OwningOpRef<ModuleOp> &part : parts)
      lowered.push_back(*part);
    if (failed(
            failableParallelForEach(mlirContext, lowered, [&](ModuleOp part) {
              return lowerFamilies(part, options, timing);
            })))
      return nullptr;
  }

  TimingScope translateTime =
      timing ? timing->nest("translation to LLVM IR") : TimingScope();
  std::unique_ptr<llvm::Module> host;
  for (ModuleOp part : lowered) {
    if (inspectLowered && failed(inspectLowered(part)))
      return nullptr;
    std::unique_ptr<llvm::Module> translated =
        translateModuleToLLVMIR(part, context);
    if (!translated) {
      part.emitError("translation to LLVM IR failed");
      return nullptr;
    }
    if (!host) {
      host = std::move(translated);
      continue;
    }
    if (llvm::Linker::linkModules(*host, std::move(translated))) {
      part.emitError("linking the variants' host code failed");
      return nullptr;
    }
  }
  return host;
}
