//===- BufferizableOpInterfaceImpl.h - Bufferization of maps ------*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define POINTWISE_DIALECT_POINTWISE_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace pointwise {

/// Attaches `BufferizableOpInterface` to `pointwise.map`, the interface the
/// dialect promises: one-shot bufferization turns a tensor map into the
/// memref form, in place into a destination's buffer where the analysis
/// allows.
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

} // namespace pointwise

#endif // POINTWISE_DIALECT_POINTWISE_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
