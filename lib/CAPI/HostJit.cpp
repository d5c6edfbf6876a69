//===- HostJit.cpp - Host code of compiled families in an ORC JIT ---------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "HostJit.h"

#include "Pointwise/Runtime/Runtime.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <dlfcn.h>
#include <mutex>

using namespace pointwise::capi;

void pointwise::capi::initializeHostTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

bool pointwise::capi::optimizeHostModule(llvm::Module &module,
                                         std::string &error) {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) {
    error = llvm::toString(builder.takeError());
    return false;
  }
  auto machine = builder->createTargetMachine();
  if (!machine) {
    error = llvm::toString(machine.takeError());
    return false;
  }
  module.setTargetTriple((*machine)->getTargetTriple());
  module.setDataLayout((*machine)->createDataLayout());
  auto optimize = mlir::makeOptimizingTransformer(2, 0, machine->get());
  if (llvm::Error err = optimize(&module)) {
    error = llvm::toString(std::move(err));
    return false;
  }
  return true;
}

std::unique_ptr<HostJit>
HostJit::create(std::unique_ptr<llvm::LLVMContext> context,
                std::unique_ptr<llvm::Module> module, std::string &error) {
  auto built = llvm::orc::LLJITBuilder().create();
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
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process) {
    error = llvm::toString(process.takeError());
    return nullptr;
  }
  dylib.addGenerator(std::move(*process));

  module->setDataLayout(jit.getDataLayout());
  if (llvm::Error err = jit.addIRModule(llvm::orc::ThreadSafeModule(
          std::move(module),
          llvm::orc::ThreadSafeContext(std::move(context))))) {
    error = llvm::toString(std::move(err));
    return nullptr;
  }
  if (llvm::Error err = jit.initialize(dylib)) {
    error = llvm::toString(std::move(err));
    return nullptr;
  }
  return result;
}

HostJit::~HostJit() {
  if (jit)
    llvm::consumeError(jit->deinitialize(jit->getMainJITDylib()));
}

void *HostJit::lookup(const std::string &symbol, std::string &error) {
  auto address = jit->lookup(symbol);
  if (!address) {
    error = llvm::toString(address.takeError());
    return nullptr;
  }
  return address->toPtr<void *>();
}
