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

#include "llvm/ADT/ArrayRef.h"
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
/// object for HostJit::create, the object `index` of its library, its
/// constructors and destructors gathered into the functions that HostJit
/// calls for that index; false with `error` set on failure. Safe to call
/// on several threads at once.
bool compileHostObject(llvm::Module &module, size_t index, std::string &object,
                       std::string &error);

class HostJit {
public:
  /// Links `objects` (from compileHostObject, in their order) and runs their
  /// constructors; null with `error` set on failure.
  static std::unique_ptr<HostJit> create(llvm::ArrayRef<std::string> objects,
                                         std::string &error);
  ~HostJit();

  /// Links the `objects` of another library (from compileHostObject) in a
  /// JITDylib of their own, whose symbols resolve in it first and then as
  /// the first library's do, and runs their constructors: a library's
  /// variants that arrive later cost no JIT of their own. Null with `error`
  /// set on failure.
  llvm::orc::JITDylib *addObjects(llvm::ArrayRef<std::string> objects,
                                  std::string &error);

  /// Runs the destructors of the objects addObjects added and removes them.
  void removeObjects(llvm::orc::JITDylib *dylib);

  /// The address of `symbol` (of the first object, or of `dylib`), or null
  /// with `error` set.
  void *lookup(const std::string &symbol, std::string &error);
  void *lookup(llvm::orc::JITDylib &dylib, const std::string &symbol,
               std::string &error);

private:
  HostJit() = default;
  /// Links `objects` into `dylib` and runs their constructors.
  bool link(llvm::orc::JITDylib &dylib, llvm::ArrayRef<std::string> objects,
            std::string &error);
  /// Runs the destructors of the objects of `dylib`, last object first.
  void finish(llvm::orc::JITDylib &dylib);

  std::unique_ptr<llvm::orc::LLJIT> jit;
  /// The number of objects in each JITDylib.
  std::vector<std::pair<llvm::orc::JITDylib *, size_t>> objectCounts;
  /// What addObjects added, whose destructors run first, last added first.
  std::vector<llvm::orc::JITDylib *> added;
};

} // namespace pointwise::capi

#endif // POINTWISE_LIB_CAPI_HOSTJIT_H
