//===- HostObject.cpp - Host modules compiled to relocatable objects ------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The last step of every host module a family compilation makes (pw-compile's
// objects, the C API's JIT objects): machine code in memory, for whichever
// target machine the caller made.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Compiler/Family.h"

#include "mlir/ExecutionEngine/OptUtils.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

bool pointwise::emitObject(llvm::Module &module, llvm::TargetMachine &machine,
                           std::string &object, std::string &error) {
  llvm::SmallString<0> emitted;
  llvm::raw_svector_ostream stream(emitted);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, stream, nullptr,
                                  llvm::CodeGenFileType::ObjectFile)) {
    error = "the host target cannot emit object files";
    return false;
  }
  passes.run(module);
  object.assign(emitted.begin(), emitted.end());
  return true;
}

bool pointwise::optimizeHostModule(llvm::Module &module,
                                   llvm::TargetMachine &machine,
                                   std::string &error,
                                   mlir::TimingScope *timing) {
  mlir::TimingScope scope =
      timing ? timing->nest("host optimization") : mlir::TimingScope();
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
  auto optimize = mlir::makeOptimizingTransformer(2, 0, &machine);
  if (llvm::Error failure = optimize(&module)) {
    error = "optimizing host code: " + llvm::toString(std::move(failure));
    return false;
  }
  return true;
}

bool pointwise::compileHostModule(llvm::Module &module,
                                  llvm::TargetMachine &machine,
                                  std::string &object, std::string &error,
                                  mlir::TimingScope *timing) {
  if (!optimizeHostModule(module, machine, error, timing))
    return false;
  mlir::TimingScope scope =
      timing ? timing->nest("host object") : mlir::TimingScope();
  return emitObject(module, machine, object, error);
}
