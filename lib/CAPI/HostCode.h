//===- HostCode.h - Host code of compiled families, as objects -*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The host half of a compiled library (family tables, packed entries, the
// launch code with its embedded GPU binaries, or the CPU loops) is compiled
// once to a relocatable object, which the runtime links (pwLibraryLink) and
// pwcSave keeps: loading links machine code and compiles nothing. The
// object's global constructors and destructors are gathered into two
// functions that the runtime calls when it links the library (loading
// nothing yet: GPU modules load on first launch) and when it closes it
// (unloading the GPU modules).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_CAPI_HOSTCODE_H
#define POINTWISE_LIB_CAPI_HOSTCODE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace pointwise::capi {

/// Registers the native target with LLVM (once per process).
void initializeHostTarget();

/// The machine code that compileHostObject produces here: the host's
/// triple, CPU and CPU features. An object compiled for another may use
/// instructions this CPU lacks.
const std::string &getHostTargetName();

/// Optimizes `module` (O2, for the host) and compiles it to a relocatable
/// object for pwLibraryLink, the object `index` of its library, its
/// constructors and destructors gathered into the functions that the
/// runtime calls for that index; false with `error` set on failure. Safe to
/// call on several threads at once.
bool compileHostObject(llvm::Module &module, size_t index, std::string &object,
                       std::string &error);

} // namespace pointwise::capi

#endif // POINTWISE_LIB_CAPI_HOSTCODE_H
