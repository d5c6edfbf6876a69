//===- pw-opt.cpp - mlir-opt with the pointwise dialect and passes --------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/InitAllDialects.h"
#include "Pointwise/InitAllPasses.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  pointwise::registerAllPasses();

  mlir::DialectRegistry registry;
  pointwise::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "pointwise optimizer driver\n", registry));
}
