//===- pw-opt-fuzzer.cpp - Fuzz target over parse, verify and passes ------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// A libFuzzer target: the input is MLIR text. Whatever parses and verifies
// is printed and parsed again (the printer and parser must agree), then run
// through every pointwise pass and through both pipelines, each on its own
// copy with the verifier after every pass. Diagnostics are expected; a
// crash, a sanitizer report or a printed module that does not parse back is
// a finding. docs/Testing.md says how to run it.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/InitAllDialects.h"
#include "Pointwise/InitAllPasses.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;

// Each entry runs on a fresh copy of the input module. The pipelines cover
// both CPU lowerings pw-run checks against each other and the GPU path
// down to PTX (format=isa needs no CUDA toolkit).
static const char *const kPipelines[] = {
    "pw-canonicalize-broadcast",
    "pw-coalesce-dims",
    "pw-bufferize",
    "pw-fuse-maps",
    "pw-tile",
    "pw-expand-float-classes",
    "pw-convert-linalg-to-pointwise",
    "pw-lower-to-loops",
    "pw-lower-to-gpu",
    "pw-cpu-pipeline",
    "pw-cpu-pipeline{reference=1}",
    "pw-cpu-pipeline{tiled=1 runtime-verification=1}",
    "pw-gpu-pipeline{format=isa}",
};

static MLIRContext &getContext() {
  static MLIRContext *context = [] {
    pointwise::registerAllPasses();
    DialectRegistry registry;
    pointwise::registerAllDialects(registry);
    auto *context = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    // Diagnostics are the expected answer to most inputs; only crashes
    // count.
    context->getDiagEngine().registerHandler([](Diagnostic &) {});
    return context;
  }();
  return *context;
}

static std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

static void runPipeline(ModuleOp module, StringRef pipeline) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext(), ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  if (failed(parsePassPipeline(pipeline, pm, llvm::nulls())))
    llvm::report_fatal_error(llvm::Twine("pw-opt-fuzzer: unknown pipeline ") +
                             pipeline);
  (void)pm.run(*copy);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = getContext();
  StringRef source(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, ParserConfig(&context));
  if (!module || failed(verify(*module)))
    return 0;

  std::string printed = print(*module);
  OwningOpRef<ModuleOp> reparsed =
      parseSourceString<ModuleOp>(printed, ParserConfig(&context));
  if (!reparsed || failed(verify(*reparsed))) {
    llvm::errs() << "pw-opt-fuzzer: the printed module does not parse back "
                    "or verify:\n"
                 << printed;
    abort();
  }

  for (const char *pipeline : kPipelines)
    runPipeline(*module, pipeline);
  return 0;
}
