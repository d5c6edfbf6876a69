/*===- Pointwise.h - C API of the pointwise dialect and passes ----*- C -*-===*\
|*                                                                            *|
|* Part of the pointwise project.                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The pointwise dialect, its passes and its pipelines for programs that
 * drive MLIR through its C API (mlir-c/IR.h, mlir-c/Pass.h), in the manner
 * of upstream's mlir-c/Dialect headers:
 *
 *   MlirContext ctx = mlirContextCreate();
 *   MlirDialectHandle pw = mlirGetDialectHandle__pointwise__();
 *   mlirDialectHandleRegisterDialect(pw, ctx);
 *   mlirRegisterAllPointwisePasses();
 *   MlirPassManager pm = mlirPassManagerCreate(ctx);
 *   mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
 *       mlirStringRefCreateFromCString("builtin.module(pw-cpu-pipeline)"),
 *       callback, userData);
 *
 * The functions are defined in libPointwiseCAPI (CMake: Pointwise::CAPI),
 * which links the shared libMLIR. The mlir-c functions themselves (context,
 * parser, pass manager) come from upstream's C API libraries, which the
 * executable links: see lib/CAPI/CMakeLists.txt.
 */
#ifndef POINTWISE_C_DIALECT_POINTWISE_H
#define POINTWISE_C_DIALECT_POINTWISE_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__pointwise__: the handle of the pointwise dialect.
 * Inserting it into a registry or a context also registers what the dialect
 * promises, the bufferization of `pointwise.map` on tensors. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Pointwise, pointwise);

/* Registers the pipelines `pw-cpu-pipeline` and `pw-gpu-pipeline` with the
 * global pass registry, so that mlirParsePassPipeline and
 * mlirOpPassManagerAddPipeline accept them with their options, e.g.
 * "builtin.module(pw-gpu-pipeline{chip=sm_80 format=isa})". Calling it
 * again has no effect. */
MLIR_CAPI_EXPORTED void mlirRegisterPointwisePipelines(void);

/* Registers every pass of the project with the global pass registry: the
 * passes on `pointwise.map` (mlirRegisterPointwisePasses), the conversions
 * out of the dialect (mlirRegisterPointwiseConversionPasses) and the
 * pipelines (mlirRegisterPointwisePipelines). Upstream's passes are
 * registered separately (mlir-c/RegisterEverything.h:
 * mlirRegisterAllPasses). Calling it again has no effect. */
MLIR_CAPI_EXPORTED void mlirRegisterAllPointwisePasses(void);

#ifdef __cplusplus
}
#endif

/* The passes, generated from their TableGen definitions:
 *
 *   mlirRegisterPointwisePasses()          the passes on `pointwise.map`
 *                                          (pw-canonicalize-broadcast,
 *                                          pw-coalesce-dims, pw-tile, ...)
 *   mlirRegisterPointwiseConversionPasses() the conversions out of the
 *                                          dialect (pw-lower-to-loops,
 *                                          pw-lower-to-gpu, ...)
 *   mlirCreatePointwise<Name>()            a new pass of that group with
 *   mlirCreatePointwiseConversion<Name>()  default options, owned by the
 *                                          caller until added to a pass
 *                                          manager (<Name> is the pass's
 *                                          TableGen record, e.g.
 *                                          CoalesceDimsPass,
 *                                          LowerToLoopsPass)
 *   mlirRegisterPointwise<Name>()          registers that one pass
 *   mlirRegisterPointwiseConversion<Name>()
 *
 * Options are given through pass pipeline text (mlirParsePassPipeline,
 * mlirOpPassManagerAddPipeline), e.g. "pw-tile{strategy=linear}". */
#include "Pointwise/Conversion/Passes.capi.h.inc"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.capi.h.inc"

#endif /* POINTWISE_C_DIALECT_POINTWISE_H */
