//===- PointwisePlugin.cpp - The pointwise plugin for mlir-opt ------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// PointwisePlugin.so: the pointwise dialect and its passes and pipelines for
// an `mlir-opt` built against the same shared libMLIR (Debian's):
//
//   mlir-opt --load-dialect-plugin=PointwisePlugin.so \
//            --load-pass-plugin=PointwisePlugin.so \
//            -p 'builtin.module(pw-cpu-pipeline)' input.mlir
//
// Plugin passes are named inside `-p`/`--pass-pipeline`: mlir-opt parses its
// `--pass-name` flags before it loads the plugin. The plugin registers only
// what pointwise adds; mlir-opt registers the upstream dialects and passes.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Conversion/Passes.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"
#include "Pointwise/InitAllDialects.h"
#include "Pointwise/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Pointwise", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            pointwise::registerPointwiseDialect(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Pointwise", LLVM_VERSION_STRING, []() {
            pointwise::registerPointwisePasses();
            pointwise::registerPointwiseConversionPasses();
            pointwise::registerPointwisePipelines();
          }};
}
