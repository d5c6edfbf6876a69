//===- WorkEstimate.h - Instructions per byte of a map --------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// How much a GPU thread computes for each byte a map moves: a static
// estimate of the instructions one element of the map executes, divided by
// the bytes of its operands' elements. A memory-bound kernel on an H100
// can issue about 10 instructions per byte of DRAM traffic before issue
// becomes its limit (132 SMs x 4 schedulers x 32 lanes x 1.76 GHz against
// 3.0 TB/s); pw-hint-global-loads uses the estimate to leave kernels close
// to that limit without the L2 hint.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_TRANSFORMS_WORKESTIMATE_H
#define POINTWISE_DIALECT_POINTWISE_TRANSFORMS_WORKESTIMATE_H

#include <cstdint>

namespace mlir {
class Type;
} // namespace mlir

namespace pointwise {

class MapOp;

/// Bytes an element of `type` occupies in memory: i1 (and other types
/// under 8 bits) as a byte, index as 8.
int64_t getElementByteWidth(mlir::Type type);

/// Instructions per byte of `map`: per element, the cost of each body op
/// (arithmetic 1, `divf` and `sqrt` 8, integer division, remainders and
/// `remf` 20, the libdevice functions their instruction count on the common
/// path, see WorkEstimate.cpp), one conversion per f16/bf16 operand (the
/// body runs in f32) and two per operand for its address and access;
/// divided by the bytes of one element of every input and output.
/// Broadcast inputs count as if read per element (strides are known only at
/// run time). The costs are docs/Performance.md's row `work-estimate`.
double estimateInstructionsPerByte(MapOp map);

} // namespace pointwise

#endif // POINTWISE_DIALECT_POINTWISE_TRANSFORMS_WORKESTIMATE_H
