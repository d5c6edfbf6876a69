//===- InitAllPasses.cpp - Passes a pointwise tool registers --------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/InitAllPasses.h"

#include "Pointwise/Conversion/Passes.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"
#include "Pointwise/Pipelines/Pipelines.h"
#include "mlir/InitAllPasses.h"

void pointwise::registerAllPasses() {
  registerPointwisePasses();
  registerPointwiseConversionPasses();
  registerPointwisePipelines();
  mlir::registerAllPasses();
}
