//===- FamilyLowering.cpp - Variants lowered in parallel ------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The variants of a family share nothing but their names' prefix: they are
// lowered (pw-gpu-pipeline down to a gpu.binary, or pw-cpu-pipeline) in a
// few modules, each holding some of them, on the context's threads, and
// their translations are linked into one host module, or each compiled to
// an object of its own on the thread that lowered it. The GPU code of a
// variant is the same however the variants are grouped: its kernel is
// compiled on its own, in one binary with the other kernels of its part.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Compiler/Family.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Threading.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"

#include <map>
#include <mutex>

using namespace mlir;
using namespace pointwise;

namespace {

/// The relative cost of compiling `variant` (docs/Performance.md, row
/// `merged-gpu-modules`): ptxas takes about three times as long for a
/// transpose kernel as for a 32-bit linear one, and twice as long for a
/// 64-bit linear one.
unsigned estimateCompileCost(const FamilyVariant &variant) {
  if (variant.transpose)
    return 3;
  return variant.indexBitwidth == 64 ? 2 : 1;
}

/// Moves the variant functions of `module` into `count` modules of their
/// own, with `module`'s attributes, the costliest first, each into the part
/// with the least estimated cost so far. Leaves `module` as one part when
/// it holds anything else (helpers the variants may share), which then
/// lowers as a whole.
SmallVector<OwningOpRef<ModuleOp>>
splitVariants(ModuleOp module, ArrayRef<FamilySpec> families, size_t count) {
  SmallVector<OwningOpRef<ModuleOp>> parts;
  llvm::StringMap<unsigned> costs;
  for (const FamilySpec &family : families)
    for (const FamilyVariant &variant : family.variants)
      costs[variant.function] = estimateCompileCost(variant);
  SmallVector<std::pair<unsigned, Operation *>> variants;
  for (Operation &op : *module.getBody()) {
    auto function = dyn_cast<func::FuncOp>(op);
    auto cost = function ? costs.find(function.getName()) : costs.end();
    if (cost == costs.end())
      return parts;
    variants.push_back({cost->second, &op});
  }
  llvm::stable_sort(
      variants, [](const auto &a, const auto &b) { return a.first > b.first; });
  count = std::min(count, variants.size());
  SmallVector<unsigned> partCosts(count, 0);
  for (size_t index = 0; index < count; ++index) {
    parts.push_back(ModuleOp::create(module.getLoc()));
    parts.back().get()->setAttrs(module->getAttrDictionary());
  }
  for (auto [cost, op] : variants) {
    size_t cheapest = llvm::min_element(partCosts) - partCosts.begin();
    partCosts[cheapest] += cost;
    op->remove();
    parts[cheapest]->getBody()->push_back(op);
  }
  return parts;
}

/// Step 2 on `module` in parts (see lowerAndTranslateFamilies), each part
/// then handed to `lowered` (may be empty) with its index, on the thread
/// that lowered it. Returns the lowered parts, which `parts` owns when the
/// module was split (otherwise the one part is `module` itself).
FailureOr<SmallVector<ModuleOp>>
lowerParts(ModuleOp module, const FamilyOptions &options,
           ArrayRef<FamilySpec> families, TimingScope *timing,
           SmallVector<OwningOpRef<ModuleOp>> &parts,
           const std::function<LogicalResult(ModuleOp, size_t)> &lowered) {
  MLIRContext *mlirContext = module.getContext();
  // A few variants per part: each part's kernels compile into one binary
  // (pw-merge-gpu-modules), so the fixed costs of a binary (NVPTX's set-up,
  // libdevice, a ptxas and a fatbinary process) are paid per part, while
  // two parts per thread keep the threads busy when variants differ in cost
  // (docs/Performance.md, row `merged-gpu-modules`).
  size_t threads =
      mlirContext->isMultithreadingEnabled() ? mlirContext->getNumThreads() : 1;
  parts = splitVariants(module, families, threads == 1 ? 1 : 2 * threads);
  SmallVector<ModuleOp> result;
  if (parts.empty()) {
    if (failed(lowerFamilies(module, options, timing)) ||
        (lowered && failed(lowered(module, 0))))
      return failure();
    result.push_back(module);
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
      result.push_back(*part);
    if (failed(failableParallelForEachN(
            mlirContext, 0, result.size(), [&](size_t index) {
              ModuleOp part = result[index];
              if (failed(lowerFamilies(part, options, timing)))
                return failure();
              return lowered ? lowered(part, index) : success();
            })))
      return failure();
  }
  return result;
}

} // namespace

std::unique_ptr<llvm::Module> pointwise::lowerAndTranslateFamilies(
    ModuleOp module, llvm::LLVMContext &context, const FamilyOptions &options,
    ArrayRef<FamilySpec> families, TimingScope *timing,
    const std::function<LogicalResult(ModuleOp)> &inspectLowered) {
  // No variant selected (FamilyOptions::variants): the host module holds the
  // family tables alone.
  if (module.getBody()->empty())
    return std::make_unique<llvm::Module>("pointwise", context);
  SmallVector<OwningOpRef<ModuleOp>> parts;
  FailureOr<SmallVector<ModuleOp>> lowered =
      lowerParts(module, options, families, timing, parts, nullptr);
  if (failed(lowered))
    return nullptr;

  TimingScope translateTime =
      timing ? timing->nest("translation to LLVM IR") : TimingScope();
  std::unique_ptr<llvm::Module> host;
  for (ModuleOp part : *lowered) {
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

FailureOr<std::vector<std::string>> pointwise::lowerFamiliesToObjects(
    ModuleOp module, const FamilyOptions &options,
    ArrayRef<FamilySpec> families, TimingScope *timing,
    const std::function<LogicalResult(ModuleOp)> &inspectLowered,
    const HostObjectEmitter &emit) {
  std::vector<std::string> objects;
  if (module.getBody()->empty())
    return objects;
  SmallVector<OwningOpRef<ModuleOp>> parts;
  // Each part's object, emitted on the thread that lowered it: its host
  // code is optimized and compiled there, beside the other parts' GPU code
  // rather than after all of it (docs/Performance.md, row
  // `parallel-host-objects`).
  std::mutex emittedMutex;
  std::map<size_t, std::string> emitted;
  FailureOr<SmallVector<ModuleOp>> lowered = lowerParts(
      module, options, families, timing, parts,
      [&](ModuleOp part, size_t index) -> LogicalResult {
        TimingScope translateTime =
            timing ? timing->nest("translation to LLVM IR") : TimingScope();
        llvm::LLVMContext context;
        std::unique_ptr<llvm::Module> translated =
            translateModuleToLLVMIR(part, context);
        translateTime.stop();
        if (!translated)
          return part.emitError("translation to LLVM IR failed");
        std::string error, object;
        if (failed(addPackedEntries(*translated, families, error)) ||
            !emit(*translated, index, timing, object, error))
          return part.emitError("compiling host code: ") << error;
        std::lock_guard<std::mutex> lock(emittedMutex);
        emitted[index] = std::move(object);
        return success();
      });
  if (failed(lowered))
    return failure();
  if (inspectLowered)
    for (ModuleOp part : *lowered)
      if (failed(inspectLowered(part)))
        return failure();
  for (auto &[index, object] : emitted)
    objects.push_back(std::move(object));
  return objects;
}
