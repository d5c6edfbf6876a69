/*===- pointwise_capi_example.c - The pointwise dialect from C ------------===*\
|*                                                                            *|
|* Part of the pointwise project.                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * A C99 program that embeds the pointwise compiler through MLIR's C API:
 *
 *   1. registers the upstream dialects, the pointwise dialect and the
 *      pointwise passes and pipelines, and routes diagnostics to a handler;
 *   2. parses a map that cannot broadcast, which the parser rejects with a
 *      diagnostic;
 *   3. parses and verifies an axpy written as a `pointwise.map` on memrefs;
 *   4. lowers a copy of it to loops with pass objects made by the generated
 *      mlirCreatePointwise... functions;
 *   5. lowers it to the LLVM dialect with `builtin.module(pw-cpu-pipeline)`,
 *      parsed from text, and verifies the result.
 *
 * Each step prints one line; the program exits with 1 if any step fails.
 * `--print-ir` also prints the module the pipeline produced.
 */

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"
#include "pointwise-c/Dialect/Pointwise.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* c = a + b * alpha: `a` any strided 2-D view, `b` a row broadcast over the
 * rows of `a`, `alpha` a scalar. */
static const char *const kAxpy =
    "func.func @axpy(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>,\n"
    "                %b: memref<?xf32>, %alpha: f32, %c: memref<?x?xf32>) {\n"
    "  pointwise.map ins(%a, %b, %alpha : memref<?x?xf32, strided<[?, ?],\n"
    "                                    offset: ?>>, memref<?xf32>, f32)\n"
    "                outs(%c : memref<?x?xf32>) {\n"
    "  ^bb0(%x: f32, %y: f32, %s: f32):\n"
    "    %0 = arith.mulf %y, %s : f32\n"
    "    %1 = arith.addf %x, %0 : f32\n"
    "    pointwise.yield %1 : f32\n"
    "  }\n"
    "  return\n"
    "}\n";

/* A row of 4 elements cannot broadcast over rows of 5. */
static const char *const kNonBroadcastingMap =
    "func.func @bad(%a: memref<3x5xf32>, %b: memref<4xf32>,\n"
    "               %c: memref<3x5xf32>) {\n"
    "  pointwise.map ins(%a, %b : memref<3x5xf32>, memref<4xf32>)\n"
    "                outs(%c : memref<3x5xf32>) {\n"
    "  ^bb0(%x: f32, %y: f32):\n"
    "    %0 = arith.addf %x, %y : f32\n"
    "    pointwise.yield %0 : f32\n"
    "  }\n"
    "  return\n"
    "}\n";

static void printToFile(MlirStringRef text, void *file) {
  fwrite(text.data, 1, text.length, (FILE *)file);
}

static const char *getSeverityName(MlirDiagnosticSeverity severity) {
  switch (severity) {
  case MlirDiagnosticError:
    return "error";
  case MlirDiagnosticWarning:
    return "warning";
  case MlirDiagnosticNote:
    return "note";
  case MlirDiagnosticRemark:
    return "remark";
  }
  return "diagnostic";
}

static void printDiagnostic(MlirDiagnostic diagnostic) {
  printf("  %s: ", getSeverityName(mlirDiagnosticGetSeverity(diagnostic)));
  mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), printToFile, stdout);
  printf(": ");
  mlirDiagnosticPrint(diagnostic, printToFile, stdout);
  printf("\n");
  for (intptr_t i = 0, e = mlirDiagnosticGetNumNotes(diagnostic); i < e; ++i)
    printDiagnostic(mlirDiagnosticGetNote(diagnostic, i));
}

/* Prints every diagnostic of the context and counts the errors, so that a
 * failing step can tell what MLIR reported. */
static MlirLogicalResult handleDiagnostic(MlirDiagnostic diagnostic,
                                          void *errorCount) {
  if (mlirDiagnosticGetSeverity(diagnostic) == MlirDiagnosticError)
    ++*(int *)errorCount;
  printDiagnostic(diagnostic);
  return mlirLogicalResultSuccess();
}

static void printPipelineError(MlirStringRef message, void *userData) {
  (void)userData;
  printf("  pipeline error: %.*s\n", (int)message.length, message.data);
}

/* What a module holds: `named` operations called `name`, `outsideLLVM`
 * operations of dialects other than llvm and builtin, and whether it has an
 * llvm.func @axpy. */
typedef struct {
  const char *name;
  int named;
  int outsideLLVM;
  bool hasLLVMFuncAxpy;
} OpCensus;

static bool stringRefEquals(MlirStringRef ref, const char *text) {
  return ref.length == strlen(text) && memcmp(ref.data, text, ref.length) == 0;
}

static MlirWalkResult countOperation(MlirOperation op, void *userData) {
  OpCensus *census = (OpCensus *)userData;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (census->name && stringRefEquals(name, census->name))
    ++census->named;
  bool inLLVM = name.length > 5 && memcmp(name.data, "llvm.", 5) == 0;
  if (!inLLVM && !stringRefEquals(name, "builtin.module"))
    ++census->outsideLLVM;
  if (stringRefEquals(name, "llvm.func")) {
    MlirAttribute symbol = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(symbol) && mlirAttributeIsAString(symbol) &&
        stringRefEquals(mlirStringAttrGetValue(symbol), "axpy"))
      census->hasLLVMFuncAxpy = true;
  }
  return MlirWalkResultAdvance;
}

static OpCensus takeCensus(MlirOperation root, const char *name) {
  OpCensus census = {name, 0, 0, false};
  mlirOperationWalk(root, countOperation, &census, MlirWalkPreOrder);
  return census;
}

/* Step 2: the parser rejects the map and reports why through the handler. */
static bool rejectNonBroadcastingMap(MlirContext context, int *errorCount) {
  int errorsBefore = *errorCount;
  MlirModule module = mlirModuleCreateParse(
      context, mlirStringRefCreateFromCString(kNonBroadcastingMap));
  int errors = *errorCount - errorsBefore;
  if (!mlirModuleIsNull(module)) {
    printf("invalid map: parsed, but must be rejected\n");
    mlirModuleDestroy(module);
    return false;
  }
  printf("invalid map: rejected with %d error diagnostic(s)\n", errors);
  return errors > 0;
}

/* Step 4: canonical broadcasts, coalesced dimensions and loops, from pass
 * objects, on a copy of the module. */
static bool lowerToLoops(MlirContext context, MlirOperation module) {
  MlirOperation copy = mlirOperationClone(module);
  MlirPassManager pm = mlirPassManagerCreate(context);
  mlirPassManagerAddOwnedPass(pm,
                              mlirCreatePointwiseCanonicalizeBroadcastPass());
  mlirPassManagerAddOwnedPass(pm, mlirCreatePointwiseCoalesceDimsPass());
  mlirPassManagerAddOwnedPass(pm,
                              mlirCreatePointwiseConversionLowerToLoopsPass());
  bool ran = mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, copy));
  mlirPassManagerDestroy(pm);
  OpCensus maps = takeCensus(copy, "pointwise.map");
  OpCensus loops = takeCensus(copy, "scf.for");
  bool ok =
      ran && mlirOperationVerify(copy) && maps.named == 0 && loops.named > 0;
  printf("loops from pass objects: %s, %d pointwise.map, %d scf.for\n",
         ran ? "ran" : "failed", maps.named, loops.named);
  mlirOperationDestroy(copy);
  return ok;
}

/* Step 5: the whole CPU path, named in pipeline text. */
static bool lowerToLLVM(MlirContext context, MlirOperation module,
                        bool printIR) {
  const char *pipeline = "builtin.module(pw-cpu-pipeline)";
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), printPipelineError, NULL);
  if (mlirLogicalResultIsFailure(parsed)) {
    printf("%s: not parsed\n", pipeline);
    mlirPassManagerDestroy(pm);
    return false;
  }
  bool ran = mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, module));
  mlirPassManagerDestroy(pm);
  bool verified = ran && mlirOperationVerify(module);
  OpCensus census = takeCensus(module, "pointwise.map");
  printf("%s: %s, %s, %d pointwise.map, %s llvm.func @axpy, %d ops outside "
         "the llvm dialect\n",
         pipeline, ran ? "ran" : "failed",
         verified ? "verified" : "not verified", census.named,
         census.hasLLVMFuncAxpy ? "an" : "no", census.outsideLLVM);
  if (printIR) {
    mlirOperationPrint(module, printToFile, stdout);
    printf("\n");
  }
  return verified && census.named == 0 && census.hasLLVMFuncAxpy &&
         census.outsideLLVM == 0;
}

int main(int argc, char **argv) {
  bool printIR = argc > 1 && strcmp(argv[1], "--print-ir") == 0;

  /* Step 1. */
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__pointwise__(), registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllPointwisePasses();
  int errorCount = 0;
  mlirContextAttachDiagnosticHandler(context, handleDiagnostic, &errorCount,
                                     NULL);

  bool ok = rejectNonBroadcastingMap(context, &errorCount);

  /* Step 3. */
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kAxpy));
  if (mlirModuleIsNull(module)) {
    printf("axpy: not parsed\n");
    mlirContextDestroy(context);
    return 1;
  }
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  bool verified = mlirOperationVerify(moduleOp);
  printf("axpy: parsed, %s, %d pointwise.map\n",
         verified ? "verified" : "not verified",
         takeCensus(moduleOp, "pointwise.map").named);
  ok = ok && verified;

  ok = lowerToLoops(context, moduleOp) && ok;
  ok = lowerToLLVM(context, moduleOp, printIR) && ok;

  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
