//===- embed-run.cpp - Compile a linalg function and run it ---------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// What a compiler embedding pointwise does with a function: parse it,
// lower it with its pipeline (EmbedPipeline.h), JIT-compile it and call it
// on its own buffers. The function is `@bias_gelu(tensor<?x?xf32>,
// tensor<?xf32>) -> tensor<?x?xf32>` (bias_gelu.mlir); its matrix argument
// is a transposed view, which the compiled code reads through its strides.
//
//   embed-run bias_gelu.mlir [--mlir-print-ir-after-all ...]
//
//===----------------------------------------------------------------------===//

#include "EmbedPipeline.h"

#include "Pointwise/InitAllDialects.h"
#include "Pointwise/Runtime/Runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::desc("<input.mlir>"),
                                            llvm::cl::Required);

/// The entry function, if `module` has it with the signature this program
/// passes buffers for.
static func::FuncOp lookUpEntry(ModuleOp module) {
  auto entry = module.lookupSymbol<func::FuncOp>("bias_gelu");
  if (!entry) {
    module.emitError("no function @bias_gelu");
    return {};
  }
  Builder b(module.getContext());
  Type f32 = b.getF32Type();
  int64_t dynamic = ShapedType::kDynamic;
  auto matrix = RankedTensorType::get({dynamic, dynamic}, f32);
  auto row = RankedTensorType::get({dynamic}, f32);
  if (entry.getFunctionType() != b.getFunctionType({matrix, row}, {matrix})) {
    entry.emitError("expected @bias_gelu to be (")
        << matrix << ", " << row << ") -> " << matrix;
    return {};
  }
  return entry;
}

static void print(const char *name, const StridedMemRefType<float, 2> &m) {
  llvm::outs() << name << " (" << m.sizes[0] << "x" << m.sizes[1]
               << ", strides " << m.strides[0] << ", " << m.strides[1]
               << "):\n";
  for (int64_t i = 0; i < m.sizes[0]; ++i) {
    for (int64_t j = 0; j < m.sizes[1]; ++j)
      llvm::outs() << llvm::format(
          " %8.4f", m.data[m.offset + i * m.strides[0] + j * m.strides[1]]);
    llvm::outs() << "\n";
  }
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "compiles @bias_gelu with the embedding pipeline and runs it");
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  DialectRegistry registry;
  pointwise::registerAllDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(inputFile, &context);
  if (!module)
    return EXIT_FAILURE;
  func::FuncOp entry = lookUpEntry(*module);
  if (!entry)
    return EXIT_FAILURE;
  // A C-callable wrapper that takes memref descriptors by pointer.
  entry->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                 UnitAttr::get(&context));

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return EXIT_FAILURE;
  embed::buildPipeline(pm);
  if (failed(pm.run(*module)))
    return EXIT_FAILURE;

  ExecutionEngineOptions engineOptions;
  auto optimize = makeOptimizingTransformer(/*optLevel=*/2, /*sizeLevel=*/0,
                                            /*targetMachine=*/nullptr);
  engineOptions.transformer = optimize;
  auto engine = ExecutionEngine::create(*module, engineOptions);
  if (!engine) {
    llvm::errs() << "error: " << llvm::toString(engine.takeError()) << "\n";
    return EXIT_FAILURE;
  }
  // The pipeline's run-time checks call the runtime's overlap rule.
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("pwCheckMapOverlap")] = {
        llvm::orc::ExecutorAddr::fromPtr(&pwCheckMapOverlap),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });

  // x is the transpose of a row-major 4x2 matrix: a 2x4 view with strides
  // (1, 2) over the same storage.
  float xStorage[] = {-2.0f, 2.0f, -1.0f, 3.0f, 0.0f, -0.5f, 1.0f, 0.5f};
  float biasStorage[] = {0.25f, -0.5f, 1.0f, -2.0f};
  StridedMemRefType<float, 2> x{xStorage, xStorage, 0, {2, 4}, {1, 2}};
  StridedMemRefType<float, 1> bias{biasStorage, biasStorage, 0, {4}, {1}};
  StridedMemRefType<float, 2> y{};
  // The C wrapper's arguments: the result descriptor to fill, then the
  // arguments' descriptors.
  auto *yArgument = &y;
  auto *xArgument = &x;
  auto *biasArgument = &bias;
  if (llvm::Error error =
          (*engine)->invoke("bias_gelu", yArgument, xArgument, biasArgument)) {
    llvm::errs() << "error: " << llvm::toString(std::move(error)) << "\n";
    return EXIT_FAILURE;
  }

  print("x", x);
  llvm::outs() << "bias:";
  for (float value : biasStorage)
    llvm::outs() << llvm::format(" %8.4f", value);
  llvm::outs() << "\n";
  print("bias_gelu(x, bias)", y);
  // The returned buffer belongs to the caller.
  free(y.basePtr);
  return EXIT_SUCCESS;
}
