//===- EmbedPipeline.h - The embedding compiler's pipeline ------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The pipeline of a compiler that embeds pointwise: elementwise linalg ops
// on tensors become `pointwise.map` ops, which the CPU pipeline bufferizes
// and lowers to the LLVM dialect.
//
//===----------------------------------------------------------------------===//

#ifndef EMBEDDING_EMBEDPIPELINE_H
#define EMBEDDING_EMBEDPIPELINE_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace embed {

/// Adds the pipeline to `pm`, which runs on a `builtin.module`.
void buildPipeline(mlir::OpPassManager &pm);

/// Registers the pipeline as `embed-pipeline`.
void registerPipeline();

} // namespace embed

#endif // EMBEDDING_EMBEDPIPELINE_H
