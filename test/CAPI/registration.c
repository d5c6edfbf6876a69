/*===- registration.c - Registration through the pointwise C API ----------===*\
|*                                                                            *|
|* Part of the pointwise project.                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * Checks what pointwise-c/Dialect/Pointwise.h registers, printing one line
 * per check for registration.test to match and exiting with 1 when a check
 * fails:
 *   - the dialect handle, by every way of using it: loading the dialect
 *     (twice), registering it with a context, inserting it into a registry;
 *     each way brings the bufferization of tensor maps with it, which
 *     pw-cpu-pipeline needs;
 *   - registering the passes and pipelines more than once;
 *   - pass pipeline text naming the pipelines and passes with options, and
 *     its errors;
 *   - the pass objects of every generated mlirCreate... function, by the
 *     names they print.
 */

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"
#include "pointwise-c/Dialect/Pointwise.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void check(bool condition, const char *what) {
  printf("%s: %s\n", what, condition ? "ok" : "FAILED");
  if (!condition)
    ++failures;
}

static bool stringRefEquals(MlirStringRef ref, const char *text) {
  return ref.length == strlen(text) && memcmp(ref.data, text, ref.length) == 0;
}

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

/* A context with the upstream dialects registered and diagnostics printed
 * to stdout; the pointwise dialect is left to the caller. */
static MlirContext createContextWithUpstreamDialects(void) {
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  return context;
}

static MlirWalkResult countMaps(MlirOperation op, void *count) {
  if (stringRefEquals(mlirIdentifierStr(mlirOperationGetName(op)),
                      "pointwise.map"))
    ++*(int *)count;
  return MlirWalkResultAdvance;
}

/* Bufferizes and lowers a map on tensors with pw-cpu-pipeline: true if the
 * pipeline succeeds and leaves no map. */
static bool lowerTensorMap(MlirContext context) {
  const char *source =
      "func.func @scale(%a: tensor<?xf32>, %s: f32) -> tensor<?xf32> {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %n = tensor.dim %a, %c0 : tensor<?xf32>\n"
      "  %init = tensor.empty(%n) : tensor<?xf32>\n"
      "  %r = pointwise.map ins(%a, %s : tensor<?xf32>, f32)\n"
      "                     outs(%init : tensor<?xf32>) {\n"
      "  ^bb0(%x: f32, %y: f32):\n"
      "    %0 = arith.mulf %x, %y : f32\n"
      "    pointwise.yield %0 : f32\n"
      "  } -> tensor<?xf32>\n"
      "  return %r : tensor<?xf32>\n"
      "}\n";
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module))
    return false;
  MlirPassManager pm = mlirPassManagerCreate(context);
  bool ok = mlirLogicalResultIsSuccess(mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString("builtin.module(pw-cpu-pipeline)"),
      printToStdout, NULL));
  MlirOperation op = mlirModuleGetOperation(module);
  ok = ok && mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, op)) &&
       mlirOperationVerify(op);
  int maps = 0;
  mlirOperationWalk(op, countMaps, &maps, MlirWalkPreOrder);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  return ok && maps == 0;
}

static void checkDialectHandle(void) {
  MlirDialectHandle handle = mlirGetDialectHandle__pointwise__();
  check(stringRefEquals(mlirDialectHandleGetNamespace(handle), "pointwise"),
        "handle namespace is pointwise");

  MlirContext context = createContextWithUpstreamDialects();
  MlirDialect loaded = mlirDialectHandleLoadDialect(handle, context);
  check(!mlirDialectIsNull(loaded) &&
            stringRefEquals(mlirDialectGetNamespace(loaded), "pointwise"),
        "load: dialect loaded");
  check(mlirDialectEqual(loaded, mlirDialectHandleLoadDialect(handle, context)),
        "load: loading again gives the same dialect");
  check(lowerTensorMap(context), "load: tensor map lowered");
  mlirContextDestroy(context);

  context = createContextWithUpstreamDialects();
  mlirDialectHandleRegisterDialect(handle, context);
  check(lowerTensorMap(context), "register: tensor map lowered");
  mlirContextDestroy(context);

  context = createContextWithUpstreamDialects();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirDialectHandleInsertDialect(handle, registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  check(lowerTensorMap(context), "insert: tensor map lowered");
  mlirContextDestroy(context);
}

/* Collects the chunks of a pipeline error message. */
typedef struct {
  char text[4096];
  size_t length;
} Message;

static void appendToMessage(MlirStringRef chunk, void *userData) {
  Message *message = (Message *)userData;
  size_t room = sizeof(message->text) - 1 - message->length;
  size_t length = chunk.length < room ? chunk.length : room;
  memcpy(message->text + message->length, chunk.data, length);
  message->length += length;
  message->text[message->length] = '\0';
}

/* Parses `pipeline` and checks that it parses if and only if `valid`,
 * printing the parser's message for an invalid one. */
static void checkPipelineText(MlirContext context, const char *pipeline,
                              bool valid) {
  MlirPassManager pm = mlirPassManagerCreate(context);
  Message message = {"", 0};
  bool parsed = mlirLogicalResultIsSuccess(mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), appendToMessage, &message));
  mlirPassManagerDestroy(pm);
  printf("pipeline %s: %s%s%s\n", pipeline, parsed ? "parsed" : "rejected",
         message.length ? ": " : "", message.text);
  check(parsed == valid && (valid || message.length > 0),
        valid ? "pipeline parsed" : "pipeline rejected with a message");
}

static void checkPipelines(void) {
  MlirContext context = createContextWithUpstreamDialects();
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__pointwise__(),
                                   context);
  checkPipelineText(context, "builtin.module(pw-cpu-pipeline)", true);
  checkPipelineText(context,
                    "builtin.module(pw-cpu-pipeline{tiled=1 strategy=linear})",
                    true);
  checkPipelineText(
      context, "builtin.module(pw-gpu-pipeline{chip=sm_80 format=isa})", true);
  checkPipelineText(context,
                    "builtin.module(pw-canonicalize-broadcast,"
                    "pw-coalesce-dims,pw-tile{strategy=transpose},"
                    "pw-lower-to-gpu)",
                    true);
  checkPipelineText(context, "builtin.module(pw-tile{strategy=diagonal})",
                    false);
  checkPipelineText(context, "builtin.module(pw-no-such-pipeline)", false);
  mlirContextDestroy(context);
}

/* The generated mlirCreate... functions make the passes they are named
 * after: a pass manager holding one of each prints their names. */
static void checkPassObjects(void) {
  MlirContext context = mlirContextCreate();
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirPass modulePasses[] = {
      mlirCreatePointwiseBufferizePass(),
      mlirCreatePointwiseCanonicalizeBroadcastPass(),
      mlirCreatePointwiseCoalesceDimsPass(),
      mlirCreatePointwiseExpandFloatClassesPass(),
      mlirCreatePointwiseRuntimeOverlapChecksPass(),
      mlirCreatePointwiseTilePass(),
      mlirCreatePointwiseConversionConvertLinalgToPointwisePass(),
      mlirCreatePointwiseConversionLowerToLoopsPass(),
      mlirCreatePointwiseConversionLowerToGpuPass(),
      mlirCreatePointwiseConversionLaunchOnCurrentStreamPass(),
  };
  bool allCreated = true;
  for (size_t i = 0; i < sizeof(modulePasses) / sizeof(modulePasses[0]); ++i) {
    allCreated = allCreated && modulePasses[i].ptr != NULL;
    mlirPassManagerAddOwnedPass(pm, modulePasses[i]);
  }
  MlirPass hints = mlirCreatePointwiseConversionHintGlobalLoadsPass();
  allCreated = allCreated && hints.ptr != NULL;
  mlirOpPassManagerAddOwnedPass(
      mlirPassManagerGetNestedUnder(
          pm, mlirStringRefCreateFromCString("gpu.module")),
      hints);
  check(allCreated, "pass objects created");
  printf("pass objects: ");
  mlirPrintPassPipeline(mlirPassManagerGetAsOpPassManager(pm), printToStdout,
                        NULL);
  printf("\n");
  mlirPassManagerDestroy(pm);
  mlirContextDestroy(context);
}

int main(void) {
  /* Registrations after the first are ignored. */
  mlirRegisterAllPointwisePasses();
  mlirRegisterAllPointwisePasses();
  mlirRegisterPointwisePipelines();
  mlirRegisterPointwisePasses();
  mlirRegisterPointwiseConversionPasses();

  checkDialectHandle();
  checkPipelines();
  checkPassObjects();
  printf("%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
