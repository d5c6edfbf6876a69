//===- HostJit.h - Host code of compiled families in an ORC JIT -*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The host half of a compiled library (family tables, packed entries, the
// launch code with its embedded GPU binaries, or the CPU loops) is compiled
// once to a relocatable object, which is what pwcSave writes and pwcLoad
// reads: loading links machine code and compiles nothing. The object's
// global constructors and destructors are gathered into two functions that
// the HostJit calls at creation (loading nothing yet: GPU modules load on
// first launch) and at destruction (unloading the GPU modules). Symbols it
// needs come from libPointwiseRuntime and the process (libm, libc).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_CAPI_HOSTJIT_H
#define POINTWISE_LIB_CAPI_HOSTJIT_H

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace llvm {
class Module;
namespace orc {
class LLJIT;
} // namespace orc
} // namespace llvm

namespace pointwise::capi {

/// Registers the native target with LLVM (once per process).
void initializeHostTarget();

/// The machine code that compileHostObject produces here: the host's
/// triple, CPU and CPU features. An object compiled for another may use
/// instructions this CPU lacks.
const std::string &getHostTargetName();

/// Optimizes `module` (O2, for the host) and compiles it to a relocatable
/// object for HostJit::create, its constructors and destructors gathered
/// into the functions that HostJit calls; false with `error` set on failure.
bool compileHostObject(llvm::Module &module, std::string &object,
                       std::string &error);

class HostJit {
public:
  /// Links `object` (from compileHostObject) and runs its constructors; null
  /// with `error` set on failure.
  static std::unique_ptr<HostJit> create(llvm::StringRef object,
                                         std::string &error);
  ~HostJit();

  /// The address of `symbol`, or null with `error` set.
  void *lookup(const std::string &symbol, std::string &error);

private:
  HostJit() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

} // namespace pointwise::capi

#endif // POINTWISE_LIB_CAPI_HOSTJIT_H
