//===- MergeGpuModules.cpp - pw-merge-gpu-modules -------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Moves the kernels of a module's gpu.modules into one, so that they compile
// into one binary (see the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace pointwise {
#define GEN_PASS_DEF_MERGEGPUMODULESPASS
#include "Pointwise/Conversion/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

/// Moves the symbols and other ops of `from` into `into`, whose symbol
/// table is `symbols`, and records in `renamed` the symbols of `from` that
/// got a new name. Returns failure when a symbol could not be renamed.
LogicalResult moveContents(gpu::GPUModuleOp from, gpu::GPUModuleOp into,
                           SymbolTable &symbols,
                           llvm::DenseMap<StringAttr, StringAttr> &renamed) {
  SymbolTable fromSymbols(from);
  for (Operation &op : llvm::make_early_inc_range(*from.getBody())) {
    auto symbol = dyn_cast<SymbolOpInterface>(&op);
    if (symbol) {
      if (Operation *existing = symbols.lookup(symbol.getNameAttr())) {
        if (OperationEquivalence::isEquivalentTo(
                existing, &op, OperationEquivalence::IgnoreLocations)) {
          op.erase();
          continue;
        }
        // Renamed, with its uses in `from`, to a name neither module holds;
        // the caller redirects the uses from outside.
        StringAttr old = symbol.getNameAttr();
        FailureOr<StringAttr> name =
            fromSymbols.renameToUnique(&op, {&symbols});
        if (failed(name))
          return failure();
        renamed[old] = *name;
      }
    }
    op.moveBefore(into.getBody(), into.getBody()->end());
    if (symbol)
      symbols.insert(&op);
  }
  return success();
}

/// Where the references to a merged gpu.module go: the module it merged
/// into, and its symbols that got a new name there.
struct Redirect {
  StringAttr into;
  llvm::DenseMap<StringAttr, StringAttr> renamed;
};

/// Points every reference of the host code in `module` (outside the
/// gpu.modules, whose own references are local) into a merged module
/// (@from::@symbol, as gpu.launch_func holds) at the module it merged into,
/// under the symbol's new name if it has one.
void redirectReferences(ModuleOp module,
                        const llvm::DenseMap<StringAttr, Redirect> &redirects) {
  AttrTypeReplacer replacer;
  // References are taken whole: neither a replacement nor the nested part
  // of another reference is visited again, since a kernel may have the
  // name of a module (@k_0::@k): its nested @k is no reference to @k.
  replacer.addReplacement(
      [&](SymbolRefAttr reference)
          -> std::optional<std::pair<Attribute, WalkResult>> {
        auto redirect = redirects.find(reference.getRootReference());
        if (redirect == redirects.end())
          return std::make_pair(reference, WalkResult::skip());
        SmallVector<FlatSymbolRefAttr> nested(reference.getNestedReferences());
        if (!nested.empty())
          if (auto name =
                  redirect->second.renamed.find(nested.front().getAttr());
              name != redirect->second.renamed.end())
            nested.front() = FlatSymbolRefAttr::get(name->second);
        return std::make_pair(SymbolRefAttr::get(redirect->second.into, nested),
                              WalkResult::skip());
      });
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    replacer.replaceElementsIn(op, /*replaceAttrs=*/true,
                               /*replaceLocs=*/false, /*replaceTypes=*/false);
    return WalkResult::advance();
  });
}

struct MergeGpuModulesPass
    : public pointwise::impl::MergeGpuModulesPassBase<MergeGpuModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Modules that can share a binary: the same targets, offloading handler
    // and other attributes but their name.
    llvm::MapVector<DictionaryAttr, SmallVector<gpu::GPUModuleOp>> groups;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      NamedAttrList attributes(gpuModule->getAttrDictionary());
      attributes.erase(SymbolTable::getSymbolAttrName());
      groups[attributes.getDictionary(&getContext())].push_back(gpuModule);
    }
    llvm::DenseMap<StringAttr, Redirect> redirects;
    for (auto &group : groups) {
      ArrayRef<gpu::GPUModuleOp> members = group.second;
      if (members.size() < 2)
        continue;
      gpu::GPUModuleOp into = members.front();
      SymbolTable symbols(into);
      for (gpu::GPUModuleOp from : members.drop_front()) {
        Redirect &redirect = redirects[from.getNameAttr()];
        redirect.into = into.getNameAttr();
        if (failed(moveContents(from, into, symbols, redirect.renamed))) {
          from.emitError("cannot merge into ") << into.getNameAttr();
          return signalPassFailure();
        }
        from.erase();
      }
    }
    if (!redirects.empty())
      redirectReferences(module, redirects);
  }
};

} // namespace
