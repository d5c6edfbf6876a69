//===- pw-lsp-server.cpp - MLIR language server with pointwise ------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's MLIR language server (diagnostics, hover, go-to-definition,
// completion for .mlir files) with every upstream dialect and `pointwise`.
// An editor runs it in place of `mlir-lsp-server`.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/InitAllDialects.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

#include <cstdlib>

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  pointwise::registerAllDialects(registry);
  return mlir::succeeded(mlir::MlirLspServerMain(argc, argv, registry))
             ? EXIT_SUCCESS
             : EXIT_FAILURE;
}
