//===- Passes.cpp - C API of the pointwise passes and pipelines -----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The generated pass functions (Passes.capi.cpp.inc of each pass group) and
// the registration of the pipelines.
//
//===----------------------------------------------------------------------===//

#include "pointwise-c/Dialect/Pointwise.h"

#include "Pointwise/Conversion/Passes.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"
#include "Pointwise/Pipelines/Pipelines.h"

#include "mlir/CAPI/Pass.h"

#include <mutex>

// The generated definitions name the C++ pass functions unqualified.
using namespace pointwise;

extern "C" {
#include "Pointwise/Conversion/Passes.capi.cpp.inc"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.capi.cpp.inc"
}

void mlirRegisterPointwisePipelines(void) {
  // MLIR built with assertions aborts on a second registration of a
  // pipeline name.
  static std::once_flag registered;
  std::call_once(registered, registerPointwisePipelines);
}

void mlirRegisterAllPointwisePasses(void) {
  mlirRegisterPointwisePasses();
  mlirRegisterPointwiseConversionPasses();
  mlirRegisterPointwisePipelines();
}
