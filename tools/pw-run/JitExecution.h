//===- JitExecution.h - Calling JIT-compiled entry functions ----*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// What the CPU target and the GPU pipeline path share: a module's functions
// renamed for the JIT, an execution engine that resolves pw-run's own
// symbols, the call of an entry through its C interface with failed
// run-time checks and arithmetic faults turned into errors, and the
// descriptors of the memrefs it returns.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_TOOLS_PWRUN_JITEXECUTION_H
#define POINTWISE_TOOLS_PWRUN_JITEXECUTION_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ExecutionEngine/Orc/CoreContainers.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace pointwise::run {

/// The JIT's name for function `name` of the module. The JIT exports every
/// function, and the libcalls of the map bodies (exp, sinf, memcpy...) bind
/// to exported functions first: a function named `exp` whose body calls
/// exp() would call itself. No C library function starts with this prefix,
/// and it is a valid PTX identifier: the kernels outlined from a function
/// are named after it.
std::string getJitName(llvm::StringRef name);

/// A copy of `module` whose defined functions carry their JIT names, with a
/// C interface on `entry`'s.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
prepareForJit(mlir::ModuleOp module, llvm::StringRef entry);

/// The compiler builtins host code may call (HostBuiltins.h), for a JIT.
llvm::orc::SymbolMap
getHostBuiltinSymbols(llvm::orc::MangleAndInterner interner);

/// JIT-compiles a module in the LLVM dialect (O2), resolving the symbols
/// pw-run provides to JIT-compiled code (see JitExecution.cpp) and the
/// process's.
llvm::Expected<std::unique_ptr<mlir::ExecutionEngine>>
createEngine(mlir::ModuleOp lowered);

/// The number of 64-bit words of the descriptors of `resultTypes`.
size_t countResultWords(mlir::TypeRange resultTypes);

/// Calls `entry` (its source name) through its C interface with
/// `arguments` (pointers to each argument: a descriptor, or a scalar), its
/// returned descriptors written to `resultWords` (countResultWords). A
/// failed run-time check and integer division by zero (SIGFPE) end the call
/// with an error.
llvm::Error callEntry(mlir::ExecutionEngine &engine, llvm::StringRef entry,
                      llvm::ArrayRef<void *> arguments,
                      llvm::MutableArrayRef<int64_t> resultWords,
                      bool hasResults);

/// A returned memref descriptor, read from the words callEntry wrote.
struct ReturnedMemRef {
  mlir::Type elementType;
  int64_t allocated = 0;
  int64_t aligned = 0;
  int64_t offset = 0;
  llvm::SmallVector<int64_t> sizes;
  llvm::SmallVector<int64_t> strides;

  /// The least and one past the greatest element offset the view reaches
  /// from `aligned`, or an empty range for a view without elements.
  std::pair<int64_t, int64_t> getElementSpan() const;
};
std::vector<ReturnedMemRef> decodeResults(llvm::ArrayRef<int64_t> words,
                                          mlir::TypeRange resultTypes);

} // namespace pointwise::run

#endif // POINTWISE_TOOLS_PWRUN_JITEXECUTION_H
