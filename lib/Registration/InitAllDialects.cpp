//===- InitAllDialects.cpp - Dialects a pointwise tool registers ----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/InitAllDialects.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/Dialect/Pointwise/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void pointwise::registerPointwiseDialect(mlir::DialectRegistry &registry) {
  registry.insert<PointwiseDialect>();
  registerBufferizableOpInterfaceExternalModels(registry);
}

void pointwise::registerAllDialects(mlir::DialectRegistry &registry) {
  registerPointwiseDialect(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary and the ExecutionEngine translate to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
}
