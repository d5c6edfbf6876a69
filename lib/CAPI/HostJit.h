//===- HostJit.h - Host code of compiled families in an ORC JIT -*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The host half of a compiled library (family tables, packed entries, the
// launch code with its embedded GPU binaries, or the CPU loops) runs in an
// LLJIT. Its global constructors run at creation, its destructors (which
// unload GPU modules) when it is destroyed. Symbols it needs come from
// libPointwiseRuntime and the process (libm, libc).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_CAPI_HOSTJIT_H
#define POINTWISE_LIB_CAPI_HOSTJIT_H

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
namespace orc {
class LLJIT;
} // namespace orc
} // namespace llvm

namespace pointwise::capi {

/// Registers the native target with LLVM (once per process).
void initializeHostTarget();

/// Sets the host triple and data layout and runs the O2 pipeline.
bool optimizeHostModule(llvm::Module &module, std::string &error);

class HostJit {
public:
  /// Compiles `module` to machine code and runs its constructors; null with
  /// `error` set on failure.
  static std::unique_ptr<HostJit>
  create(std::unique_ptr<llvm::LLVMContext> context,
         std::unique_ptr<llvm::Module> module, std::string &error);
  ~HostJit();

  /// The address of `symbol`, or null with `error` set.
  void *lookup(const std::string &symbol, std::string &error);

private:
  HostJit() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

} // namespace pointwise::capi

#endif // POINTWISE_LIB_CAPI_HOSTJIT_H
