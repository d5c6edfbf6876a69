//===- HostBuiltins.h - Compiler builtins host code may call ----*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Host code from our pipelines can call functions of the compiler's own
// runtime library (libgcc, compiler-rt): the 128-bit division of the magic
// dividers (docs/Performance.md, row `magic-division`). A shared library
// from pw-compile links it; a JIT resolves names in the process, where
// libgcc_s may not be loaded (a statically linked compiler). The JITs
// define these names from this table instead.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_COMPILER_HOSTBUILTINS_H
#define POINTWISE_COMPILER_HOSTBUILTINS_H

#include "llvm/ADT/ArrayRef.h"

namespace pointwise {

struct HostBuiltin {
  const char *name;
  void *address;
};

/// The builtins host code may call, with their addresses in this process.
llvm::ArrayRef<HostBuiltin> getHostBuiltins();

} // namespace pointwise

#endif // POINTWISE_COMPILER_HOSTBUILTINS_H
