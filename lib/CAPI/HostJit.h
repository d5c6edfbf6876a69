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
#include <vector>

namespace llvm {
class Module;
namespace orc {
class JITDylib;
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

  /// Links another `object` (from compileHostObject) in a JITDylib of its
  /// own, whose symbols resolve in it first and then as the first object's
  /// do, and runs its constructors: a library's variants that arrive later
  /// cost no JIT of their own. Null with `error` set on failure.
  llvm::orc::JITDylib *addObject(llvm::StringRef object, std::string &error);

  /// Runs the destructors of an object addObject added and removes it.
  void removeObject(llvm::orc::JITDylib *dylib);

  /// The address of `symbol` (of the first object, or of `dylib`), or null
  /// with `error` set.
  void *lookup(const std::string &symbol, std::string &error);
  void *lookup(llvm::orc::JITDylib &dylib, const std::string &symbol,
               std::string &error);

private:
  HostJit() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  /// What addObject added, whose destructors run first, last added first.
  std::vector<llvm::orc::JITDylib *> added;
};

} // namespace pointwise::capi

#endif // POINTWISE_LIB_CAPI_HOSTJIT_H
