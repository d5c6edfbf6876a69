//===- Pointwise.cpp - C API of the pointwise dialect ---------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The dialect handle. Its hooks register the dialect through
// registerPointwiseDialect, not by inserting the dialect class alone, so that
// a C program gets the interfaces the dialect promises (bufferization of
// `pointwise.map`) as a C++ tool does.
//
//===----------------------------------------------------------------------===//

#include "pointwise-c/Dialect/Pointwise.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/InitAllDialects.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

namespace {

void insertPointwiseDialect(MlirDialectRegistry registry) {
  pointwise::registerPointwiseDialect(*unwrap(registry));
}

MlirDialect loadPointwiseDialect(MlirContext context) {
  mlir::DialectRegistry registry;
  pointwise::registerPointwiseDialect(registry);
  mlir::MLIRContext *ctx = unwrap(context);
  ctx->appendDialectRegistry(registry);
  return wrap(ctx->getOrLoadDialect<pointwise::PointwiseDialect>());
}

MlirStringRef getPointwiseDialectNamespace() {
  return wrap(pointwise::PointwiseDialect::getDialectNamespace());
}

} // namespace

MlirDialectHandle mlirGetDialectHandle__pointwise__(void) {
  static MlirDialectRegistrationHooks hooks = {insertPointwiseDialect,
                                               loadPointwiseDialect,
                                               getPointwiseDialectNamespace};
  return MlirDialectHandle{&hooks};
}
