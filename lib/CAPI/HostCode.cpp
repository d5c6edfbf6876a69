//===- HostCode.cpp - Host code of compiled families, as objects ----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "HostCode.h"

#include "Pointwise/Compiler/Family.h"
#include "Pointwise/Runtime/Runtime.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>
#include <optional>

using namespace pointwise::capi;

void pointwise::capi::initializeHostTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

namespace {

/// The functions that run the constructors and destructors of a library's
/// object `index`. Family entry points never start with "__"
/// (checkEntryName).
std::string getInitFunction(size_t index) {
  return PW_LIBRARY_INIT_PREFIX + std::to_string(index);
}
std::string getFiniFunction(size_t index) {
  return PW_LIBRARY_FINI_PREFIX + std::to_string(index);
}

/// Replaces `module`'s llvm.global_ctors (or _dtors) by the function `name`
/// calling them by priority (destructors in the reverse order), so that the
/// object needs no platform support for init sections where it is linked
/// (pwLibraryLink).
void gatherInitializers(llvm::Module &module, bool constructors,
                        llvm::StringRef name) {
  llvm::SmallVector<llvm::orc::CtorDtorIterator::Element> elements;
  for (auto element : constructors ? llvm::orc::getConstructors(module)
                                   : llvm::orc::getDestructors(module))
    if (element.Func)
      elements.push_back(element);
  llvm::stable_sort(elements, [](const auto &a, const auto &b) {
    return a.Priority < b.Priority;
  });
  if (!constructors)
    std::reverse(elements.begin(), elements.end());
  if (llvm::GlobalVariable *list = module.getNamedGlobal(
          constructors ? "llvm.global_ctors" : "llvm.global_dtors"))
    list->eraseFromParent();
  llvm::LLVMContext &context = module.getContext();
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
  auto *function = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, name, module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "", function));
  for (const auto &element : elements)
    builder.CreateCall(element.Func->getFunctionType(), element.Func);
  builder.CreateRetVoid();
}

} // namespace

namespace {

/// What the host compiler takes of the host, detected once per
/// process: detectHost asks the CPU for its name and features (cpuid, slow
/// under a hypervisor), and a target machine made from them spends most of
/// its construction closing the feature set, which the data layout needs
/// too.
struct HostDescription {
  std::optional<llvm::orc::JITTargetMachineBuilder> builder;
  std::optional<llvm::DataLayout> dataLayout;
  std::string name;
  std::string error;
};

const HostDescription &getHostDescription() {
  static const HostDescription host = [] {
    initializeHostTarget();
    HostDescription description;
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!builder) {
      description.error = llvm::toString(builder.takeError());
      description.name = "unknown host";
      return description;
    }
    // Position-independent code: the runtime places the object anywhere.
    builder->setRelocationModel(llvm::Reloc::PIC_);
    builder->setCodeModel(llvm::CodeModel::Small);
    description.name = builder->getTargetTriple().str() + " " +
                       builder->getCPU() + " " +
                       builder->getFeatures().getString();
    auto dataLayout = builder->getDefaultDataLayoutForTarget();
    if (!dataLayout) {
      description.error = llvm::toString(dataLayout.takeError());
      return description;
    }
    description.dataLayout = std::move(*dataLayout);
    description.builder = std::move(*builder);
    return description;
  }();
  return host;
}

} // namespace

const std::string &pointwise::capi::getHostTargetName() {
  return getHostDescription().name;
}

bool pointwise::capi::compileHostObject(llvm::Module &module, size_t index,
                                        std::string &object,
                                        std::string &error) {
  const HostDescription &host = getHostDescription();
  if (!host.builder) {
    error = host.error;
    return false;
  }
  llvm::orc::JITTargetMachineBuilder builder = *host.builder;
  auto machine = builder.createTargetMachine();
  if (!machine) {
    error = llvm::toString(machine.takeError());
    return false;
  }
  gatherInitializers(module, /*constructors=*/true, getInitFunction(index));
  gatherInitializers(module, /*constructors=*/false, getFiniFunction(index));
  return pointwise::compileHostModule(module, **machine, object, error);
}
