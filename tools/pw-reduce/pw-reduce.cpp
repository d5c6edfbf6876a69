//===- pw-reduce.cpp - mlir-reduce with pointwise -------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's test-case reducer with every upstream dialect and pass and the
// pointwise dialect, passes and pipelines: it shrinks a module while a
// script still calls it interesting (`--reduction-tree`), or while a pass
// pipeline keeps it so (`--opt-reduction-pass`).
//
//===----------------------------------------------------------------------===//

#include "Pointwise/InitAllDialects.h"
#include "Pointwise/InitAllPasses.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-reduce/MlirReduceMain.h"

#include <cstdlib>

int main(int argc, char **argv) {
  pointwise::registerAllPasses();

  mlir::DialectRegistry registry;
  pointwise::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  return mlir::succeeded(mlir::mlirReduceMain(argc, argv, context))
             ? EXIT_SUCCESS
             : EXIT_FAILURE;
}
