//===- HostBuiltins.cpp - Compiler builtins host code may call ------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Compiler/HostBuiltins.h"

// libgcc's and compiler-rt's unsigned 128-bit division, which LLVM calls for
// `udiv i128` on x86-64.
extern "C" unsigned __int128 __udivti3(unsigned __int128, unsigned __int128);

llvm::ArrayRef<pointwise::HostBuiltin> pointwise::getHostBuiltins() {
  static const HostBuiltin builtins[] = {
      {"__udivti3", reinterpret_cast<void *>(&__udivti3)},
  };
  return builtins;
}
