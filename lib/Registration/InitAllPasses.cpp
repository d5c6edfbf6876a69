//===- InitAllPasses.cpp - Passes a pointwise tool registers --------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/InitAllPasses.h"

#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"
#include "mlir/InitAllPasses.h"

void pointwise::registerAllPasses() {
  registerPointwisePasses();
  registerPointwisePipelines();
  mlir::registerAllPasses();
}
