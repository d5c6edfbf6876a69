//===- HostJit.cpp - Host code of compiled families in an ORC JIT ---------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "HostJit.h"

#include "Pointwise/Compiler/Family.h"
#include "Pointwise/Compiler/HostBuiltins.h"
#include "Pointwise/Runtime/Runtime.h"

#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <dlfcn.h>
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
  return "__pwc_library_init_" + std::to_string(index);
}
std::string getFiniFunction(size_t index) {
  return "__pwc_library_fini_" + std::to_string(index);
}

/// Replaces `module`'s llvm.global_ctors (or _dtors) by the function `name`
/// calling them by priority (destructors in the reverse order), so that the
/// object needs no platform support for init sections in the JIT.
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

/// What the JIT and the host compiler take of the host, detected once per
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
    // Position-independent code: the JIT places the object anywhere.
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

std::unique_ptr<HostJit> HostJit::create(llvm::ArrayRef<std::string> objects,
                                         std::string &error) {
  const HostDescription &host = getHostDescription();
  if (!host.builder) {
    error = host.error;
    return nullptr;
  }
  // The JIT links objects compiled already (compileHostObject): it compiles
  // no IR, so its compiler makes a target machine only if asked to, and it
  // needs no platform support (the objects' constructors and destructors
  // are functions of their own, gatherInitializers). The process's symbols
  // come from the generators below.
  auto built =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(*host.builder)
          .setDataLayout(*host.dataLayout)
          .setCompileFunctionCreator(
              [](llvm::orc::JITTargetMachineBuilder builder)
                  -> llvm::Expected<
                      std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                return std::make_unique<llvm::orc::ConcurrentIRCompiler>(
                    std::move(builder));
              })
          .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
          .setLinkProcessSymbolsByDefault(false)
          .create();
  if (!built) {
    error = llvm::toString(built.takeError());
    return nullptr;
  }
  std::unique_ptr<HostJit> result(new HostJit());
  result->jit = std::move(*built);
  llvm::orc::LLJIT &jit = *result->jit;
  llvm::orc::JITDylib &dylib = jit.getMainJITDylib();
  char prefix = jit.getDataLayout().getGlobalPrefix();

  // The runtime this library was linked with, by its path: a process that
  // loaded it privately (ctypes' RTLD_LOCAL) hides it from the process-wide
  // search below.
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&pwFamilyLaunch), &info) &&
      info.dli_fname) {
    auto runtime =
        llvm::orc::DynamicLibrarySearchGenerator::Load(info.dli_fname, prefix);
    if (!runtime) {
      error = llvm::toString(runtime.takeError());
      return nullptr;
    }
    dylib.addGenerator(std::move(*runtime));
  }
  llvm::orc::SymbolMap builtins;
  for (const pointwise::HostBuiltin &builtin : pointwise::getHostBuiltins())
    builtins[jit.mangleAndIntern(builtin.name)] = {
        llvm::orc::ExecutorAddr::fromPtr(builtin.address),
        llvm::JITSymbolFlags::Exported};
  if (llvm::Error err = dylib.define(llvm::orc::absoluteSymbols(builtins))) {
    error = llvm::toString(std::move(err));
    return nullptr;
  }
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process) {
    error = llvm::toString(process.takeError());
    return nullptr;
  }
  dylib.addGenerator(std::move(*process));

  if (!result->link(dylib, objects, error))
    return nullptr;
  return result;
}

bool HostJit::link(llvm::orc::JITDylib &dylib,
                   llvm::ArrayRef<std::string> objects, std::string &error) {
  // The linker may keep pointers into the buffers: it gets its own copies.
  for (const std::string &object : objects)
    if (llvm::Error err = jit->addObjectFile(
            dylib,
            llvm::MemoryBuffer::getMemBufferCopy(object, "pointwise-host.o"))) {
      error = llvm::toString(std::move(err));
      return false;
    }
  for (size_t index = 0; index < objects.size(); ++index) {
    void *init = lookup(dylib, getInitFunction(index), error);
    if (!init) {
      // The destructors of the objects already initialized still run.
      objectCounts.emplace_back(&dylib, index);
      return false;
    }
    reinterpret_cast<void (*)()>(init)();
  }
  objectCounts.emplace_back(&dylib, objects.size());
  return true;
}

void HostJit::finish(llvm::orc::JITDylib &dylib) {
  auto count = llvm::find_if(
      objectCounts, [&](const auto &entry) { return entry.first == &dylib; });
  if (count == objectCounts.end())
    return;
  std::string error;
  for (size_t index = count->second; index-- > 0;)
    if (void *fini = lookup(dylib, getFiniFunction(index), error))
      reinterpret_cast<void (*)()>(fini)();
  objectCounts.erase(count);
}

HostJit::~HostJit() {
  for (llvm::orc::JITDylib *dylib : llvm::reverse(added))
    finish(*dylib);
  if (jit)
    finish(jit->getMainJITDylib());
}

llvm::orc::JITDylib *HostJit::addObjects(llvm::ArrayRef<std::string> objects,
                                         std::string &error) {
  auto dylib =
      jit->createJITDylib("pointwise-host-" + std::to_string(added.size()));
  if (!dylib) {
    error = llvm::toString(dylib.takeError());
    return nullptr;
  }
  // The runtime and the process, through the first object's generators;
  // the symbols the object defines itself (its family tables, entry points,
  // constructors) resolve in its own JITDylib first.
  dylib->addToLinkOrder(jit->getMainJITDylib());
  auto remove = [&] {
    llvm::consumeError(jit->getExecutionSession().removeJITDylib(*dylib));
  };
  if (!link(*dylib, objects, error)) {
    finish(*dylib);
    remove();
    return nullptr;
  }
  added.push_back(&*dylib);
  return &*dylib;
}

void HostJit::removeObjects(llvm::orc::JITDylib *dylib) {
  finish(*dylib);
  llvm::erase(added, dylib);
  llvm::consumeError(jit->getExecutionSession().removeJITDylib(*dylib));
}

void *HostJit::lookup(const std::string &symbol, std::string &error) {
  return lookup(jit->getMainJITDylib(), symbol, error);
}

void *HostJit::lookup(llvm::orc::JITDylib &dylib, const std::string &symbol,
                      std::string &error) {
  auto address = jit->lookup(dylib, symbol);
  if (!address) {
    error = llvm::toString(address.takeError());
    return nullptr;
  }
  return address->toPtr<void *>();
}
