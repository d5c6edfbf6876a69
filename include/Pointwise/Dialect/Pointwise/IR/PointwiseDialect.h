//===- PointwiseDialect.h - The pointwise dialect -----------------*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_IR_POINTWISEDIALECT_H
#define POINTWISE_DIALECT_POINTWISE_IR_POINTWISEDIALECT_H

#include "mlir/IR/Dialect.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOpsDialect.h.inc"

#endif // POINTWISE_DIALECT_POINTWISE_IR_POINTWISEDIALECT_H
