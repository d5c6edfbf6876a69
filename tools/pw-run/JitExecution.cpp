//===- JitExecution.cpp - Calling JIT-compiled entry functions ------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "JitExecution.h"

#include "Pointwise/Compiler/HostBuiltins.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <algorithm>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace pointwise::run;

namespace {

/// LLVM lowers f64 to bf16 truncation to compiler-rt's __truncdfbf2, which
/// Debian 12's libgcc lacks: the JIT gets this one (returned in the same
/// register as a half).
_Float16 truncateDoubleToBFloat(double value) {
  llvm::APFloat converted(value);
  bool losesInfo;
  converted.convert(llvm::APFloat::BFloat(), llvm::APFloat::rmNearestTiesToEven,
                    &losesInfo);
  uint16_t bits = converted.bitcastToAPInt().getZExtValue();
  _Float16 result;
  std::memcpy(&result, &bits, sizeof(bits));
  return result;
}

/// Where JIT-compiled code that cannot go on returns to, with one of the
/// reasons below.
sigjmp_buf stoppedRunReturn;
enum StoppedRun : int { kArithmeticFault = 1, kFailedCheck = 2 };

void returnFromArithmeticFault(int) {
  siglongjmp(stoppedRunReturn, kArithmeticFault);
}

/// The JIT's `abort`: a failed `cf.assert` (generate-runtime-verification)
/// has printed its message with `puts` and calls it.
void returnFromFailedCheck() {
  std::fflush(stdout);
  siglongjmp(stoppedRunReturn, kFailedCheck);
}

#ifndef POINTWISE_RUN_C_RUNNER_UTILS
/// memrefCopy, as mlir_c_runner_utils defines it (which the lowered copies
/// of bufferization call), for builds without that library: pw-run-static
/// links MLIR statically, and Debian ships the runner utilities only as
/// shared libraries that need the shared libMLIR. Copies the elements of
/// one strided view into another of the same shape, in row-major order.
void copyMemRef(int64_t elementBytes, ::UnrankedMemRefType<char> *from,
                ::UnrankedMemRefType<char> *to) {
  int64_t rank = from->rank;
  auto *source = static_cast<int64_t *>(from->descriptor);
  auto *target = static_cast<int64_t *>(to->descriptor);
  // Descriptor words: allocated, aligned, offset, sizes..., strides...
  auto *sourceData = reinterpret_cast<char *>(source[1]);
  auto *targetData = reinterpret_cast<char *>(target[1]);
  const int64_t *sizes = source + 3;
  int64_t count = 1;
  for (int64_t dim = 0; dim < rank; ++dim)
    count *= sizes[dim];
  if (count == 0)
    return;
  std::vector<int64_t> index(rank, 0);
  for (int64_t element = 0; element < count; ++element) {
    int64_t sourceOffset = source[2], targetOffset = target[2];
    for (int64_t dim = 0; dim < rank; ++dim) {
      sourceOffset += index[dim] * source[3 + rank + dim];
      targetOffset += index[dim] * target[3 + rank + dim];
    }
    std::memcpy(targetData + targetOffset * elementBytes,
                sourceData + sourceOffset * elementBytes, elementBytes);
    for (int64_t dim = rank - 1; dim >= 0 && ++index[dim] == sizes[dim]; --dim)
      index[dim] = 0;
  }
}
#endif

} // namespace

std::string pointwise::run::getJitName(StringRef name) {
  return ("pw_run__" + name).str();
}

llvm::Expected<OwningOpRef<ModuleOp>>
pointwise::run::prepareForJit(ModuleOp module, StringRef entry) {
  OwningOpRef<ModuleOp> copy = module.clone();
  SymbolTable symbols(*copy);
  for (auto defined : llvm::to_vector(copy->getOps<func::FuncOp>()))
    if (!defined.isExternal() &&
        failed(symbols.rename(defined, getJitName(defined.getName()))))
      return llvm::createStringError("cannot rename '" + defined.getName() +
                                     "' for the JIT");
  auto function = copy->lookupSymbol<func::FuncOp>(getJitName(entry));
  function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(module.getContext()));
  return copy;
}

llvm::orc::SymbolMap
pointwise::run::getHostBuiltinSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  for (const HostBuiltin &builtin : getHostBuiltins())
    symbols[interner(builtin.name)] = {
        llvm::orc::ExecutorAddr::fromPtr(builtin.address),
        llvm::JITSymbolFlags::Exported};
  return symbols;
}

llvm::Expected<std::unique_ptr<ExecutionEngine>>
pointwise::run::createEngine(ModuleOp lowered) {
  ExecutionEngineOptions engineOptions;
  auto transformer = makeOptimizingTransformer(2, 0, nullptr);
  engineOptions.transformer = transformer;
  auto engine = ExecutionEngine::create(lowered, engineOptions);
  if (engine)
    (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
      llvm::orc::SymbolMap symbols = getHostBuiltinSymbols(interner);
      symbols[interner("__truncdfbf2")] = {
          llvm::orc::ExecutorAddr::fromPtr(&truncateDoubleToBFloat),
          llvm::JITSymbolFlags::Exported};
      // A failed run-time check becomes pw-run's error, not a SIGABRT.
      symbols[interner("abort")] = {
          llvm::orc::ExecutorAddr::fromPtr(&returnFromFailedCheck),
          llvm::JITSymbolFlags::Exported};
#ifdef POINTWISE_RUN_C_RUNNER_UTILS
      symbols[interner("memrefCopy")] = {
          llvm::orc::ExecutorAddr::fromPtr(&memrefCopy),
          llvm::JITSymbolFlags::Exported};
#else
      symbols[interner("memrefCopy")] = {
          llvm::orc::ExecutorAddr::fromPtr(&copyMemRef),
          llvm::JITSymbolFlags::Exported};
#endif
      return symbols;
    });
  return engine;
}

size_t pointwise::run::countResultWords(TypeRange resultTypes) {
  size_t words = 0;
  for (Type type : resultTypes)
    words += 3 + 2 * cast<ShapedType>(type).getRank();
  return words;
}

llvm::Error pointwise::run::callEntry(ExecutionEngine &engine, StringRef entry,
                                      ArrayRef<void *> arguments,
                                      MutableArrayRef<int64_t> resultWords,
                                      bool hasResults) {
  // The C interface of a function with results takes a pointer to them (a
  // descriptor, or a struct of descriptors) before its arguments.
  void *resultAddress = resultWords.data();
  SmallVector<void *> packed;
  if (hasResults)
    packed.push_back(&resultAddress);
  packed.append(arguments.begin(), arguments.end());
  engine.initialize();
  auto function = engine.lookupPacked("_mlir_ciface_" + getJitName(entry));
  if (!function)
    return function.takeError();
  // arith's integer division and remainder are undefined for a zero divisor
  // and for INT_MIN / -1; on x86 both trap. The handler jumps back here, out
  // of the JIT-compiled code only, so no C++ frame is skipped; so does a
  // failed run-time check.
  struct sigaction handler = {}, previous = {};
  handler.sa_handler = returnFromArithmeticFault;
  sigemptyset(&handler.sa_mask);
  sigaction(SIGFPE, &handler, &previous);
  // (sigsetjmp may only stand alone or as a selection's condition.)
  switch (sigsetjmp(stoppedRunReturn, /*savemask=*/1)) {
  case 0:
    (*function)(packed.data());
    sigaction(SIGFPE, &previous, nullptr);
    return llvm::Error::success();
  case kFailedCheck:
    sigaction(SIGFPE, &previous, nullptr);
    return llvm::createStringError(
        "'" + entry +
        "': a run-time check failed (its message is above): an op's "
        "operands break the rules the op states, which its verifier could "
        "not decide for dynamic sizes and strides; the run stopped before "
        "that op");
  default:
    break;
  }
  sigaction(SIGFPE, &previous, nullptr);
  return llvm::createStringError(
      "'" + entry +
      "': integer division by zero or overflow in the map body (SIGFPE): "
      "arith's integer division and remainder are undefined for a zero "
      "divisor and for INT_MIN / -1");
}

std::pair<int64_t, int64_t> ReturnedMemRef::getElementSpan() const {
  int64_t low = offset, high = offset;
  for (auto [size, stride] : llvm::zip(sizes, strides)) {
    if (size == 0)
      return {offset, offset};
    (stride < 0 ? low : high) += (size - 1) * stride;
  }
  return {low, high + 1};
}

std::vector<ReturnedMemRef>
pointwise::run::decodeResults(ArrayRef<int64_t> words, TypeRange resultTypes) {
  std::vector<ReturnedMemRef> results;
  size_t next = 0;
  for (Type type : resultTypes) {
    auto shaped = cast<ShapedType>(type);
    int64_t rank = shaped.getRank();
    ReturnedMemRef result;
    result.elementType = shaped.getElementType();
    result.allocated = words[next];
    result.aligned = words[next + 1];
    result.offset = words[next + 2];
    result.sizes.assign(words.begin() + next + 3,
                        words.begin() + next + 3 + rank);
    result.strides.assign(words.begin() + next + 3 + rank,
                          words.begin() + next + 3 + 2 * rank);
    next += 3 + 2 * rank;
    results.push_back(std::move(result));
  }
  return results;
}
