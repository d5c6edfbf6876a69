//===- embed-opt.cpp - mlir-opt of the embedding compiler -----------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Every upstream dialect and pass, pointwise's dialect, passes and pipelines,
// and this compiler's `embed-pipeline`.
//
//===----------------------------------------------------------------------===//

#include "EmbedPipeline.h"

#include "Pointwise/InitAllDialects.h"
#include "Pointwise/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  pointwise::registerAllPasses();
  embed::registerPipeline();

  mlir::DialectRegistry registry;
  pointwise::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "optimizer driver of the embedding example\n", registry));
}
