//===- PointwiseDialect.h - The pointwise dialect --------------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_IR_POINTWISEDIALECT_H
#define POINTWISE_DIALECT_POINTWISE_IR_POINTWISEDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOpsDialect.h.inc"

#endif // POINTWISE_DIALECT_POINTWISE_IR_POINTWISEDIALECT_H
