//===- PointwiseOps.h - pointwise.map and pointwise.yield ---------*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_IR_POINTWISEOPS_H
#define POINTWISE_DIALECT_POINTWISE_IR_POINTWISEOPS_H

#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace pointwise {
// Names that upstream interfaces' generated declarations use unqualified
// (RuntimeVerifiableOpInterface's generateRuntimeVerification).
using ::mlir::function_ref;
using ::mlir::Operation;
using ::mlir::StringRef;
} // namespace pointwise

#define GET_OP_CLASSES
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h.inc"

#endif // POINTWISE_DIALECT_POINTWISE_IR_POINTWISEOPS_H
