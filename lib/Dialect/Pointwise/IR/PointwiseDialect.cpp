//===- PointwiseDialect.cpp - The pointwise dialect -----------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseEnums.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace pointwise;

#include "Pointwise/Dialect/Pointwise/IR/PointwiseEnums.cpp.inc"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOpsDialect.cpp.inc"

void PointwiseDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.cpp.inc"
      >();
  // Implemented in PointwiseTransforms, attached by
  // registerBufferizableOpInterfaceExternalModels.
  declarePromisedInterface<bufferization::BufferizableOpInterface, MapOp>();
}
