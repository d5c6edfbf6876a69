//===- Family.h - Kernel families compiled per rank -------------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// A function holding one `pointwise.map` becomes a *family*: variants of the
// function with every memref at one coalesced rank, with fully dynamic sizes,
// strides and offsets, per index bitwidth and tiling strategy. The runtime
// (`pwFamilyLaunch`, docs/Runtime.md) picks one per call from the actual
// layout. Nothing is compiled per shape or per stride value.
//
// The three steps, used by `pw-compile` (to an object or shared library) and
// `pw-run --target=cuda` (in the JIT):
//   1. buildFamilyVariants: MLIR -> MLIR, replaces each function by its
//      variants and describes the family;
//   2. lowerFamilies: pw-gpu-pipeline with launches on the current stream,
//      a few variants per module, in parallel (lowerAndTranslateFamilies);
//   3. addFamilyEntries: on the translated LLVM IR, adds a packed entry per
//      variant, the `pw_family_<name>` table (a `pwFamily` of
//      include/Pointwise/Runtime/Runtime.h) and the C entry point `<name>`.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_COMPILER_FAMILY_H
#define POINTWISE_COMPILER_FAMILY_H

#include "Pointwise/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/Timing.h"

#include <functional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace pointwise {

/// Where a family's variants run.
enum class FamilyTarget {
  /// GPU kernels launched through the runtime (pw-gpu-pipeline).
  Cuda,
  /// Loops on the host (pw-cpu-pipeline), dispatched by the same
  /// pwFamilyLaunch with linear 64-bit variants only.
  Cpu,
};

/// The options of a family compilation: the GPU code generation options
/// (GpuCodegenOptions, with their definitions) and the family's own. The C
/// API's option string (`pwcCompile`) and pw-compile's flags are parsed by
/// this one struct. The family chooses each variant's strategy and index
/// bitwidth itself, launches on the runtime's current stream and leaves the
/// layout checks to the run-time dispatch.
struct FamilyOptions : public mlir::PassPipelineOptions<FamilyOptions>,
                       public GpuCodegenOptions {
  FamilyOptions()
      : GpuCodegenOptions(static_cast<mlir::detail::PassOptions &>(*this)) {}

  Option<FamilyTarget> target{
      *this, "target",
      llvm::cl::desc("cuda (GPU kernels, default) or cpu (host loops "
                     "dispatched by the same runtime; no GPU option applies)"),
      llvm::cl::init(FamilyTarget::Cuda),
      llvm::cl::values(clEnumValN(FamilyTarget::Cuda, "cuda", ""),
                       clEnumValN(FamilyTarget::Cpu, "cpu", ""))};
  ListOption<unsigned> indexBitwidths{
      *this, "index-bitwidths",
      llvm::cl::desc("Index bitwidths to build variants for: 32 and/or 64 "
                     "(default 32: the runtime runs a layout past 32-bit "
                     "offsets in 32-bit chunks; 64 adds variants that run it "
                     "in one launch)"),
      llvm::cl::list_init<unsigned>({32})};
  Option<bool> transposeVariants{
      *this, "transpose",
      llvm::cl::desc("Also build transpose variants (shared-memory tiles) "
                     "for each memref input at ranks >= 2"),
      llvm::cl::init(true)};
  ListOption<std::string> functions{
      *this, "function",
      llvm::cl::desc("Compile only these functions (default: every function "
                     "holding a map)")};
  ListOption<std::string> variants{
      *this, "variants",
      llvm::cl::desc("Compile only these variants, by name "
                     "(<function>__r<rank>_i<bits>_<strategy>), or none: the "
                     "family tables keep every variant's row, with a null "
                     "entry for those not compiled, which the runtime's "
                     "variant loader fills (pwSetVariantLoader) or reports "
                     "(default: every variant)")};
};

/// What is wrong with `options` (index bitwidths other than 32 and 64, or
/// none; for target=cuda, checkGpuCodegenOptions'), or "" when nothing is.
std::string checkFamilyOptions(const FamilyOptions &options);

/// One argument of a family's function.
struct FamilyArgument {
  bool isMemRef = false;
  /// pwElementType code.
  int32_t elementType = 0;
  /// Memrefs: declared rank and sizes (-1 dynamic).
  int32_t rank = 0;
  std::vector<int64_t> staticSizes;
  /// Memrefs whose type has a static stride or offset: the type's strides
  /// (PW_DYNAMIC where dynamic) and offset, as pwFamilyArgument carries them.
  bool hasStaticLayout = false;
  std::vector<int64_t> staticStrides;
  int64_t staticOffset = 0;
};

struct FamilyVariant {
  int32_t rank = 1;
  int32_t indexBitwidth = 64;
  bool transpose = false;
  int32_t transposedArgument = -1;
  /// A linear variant with 8-byte vectors (PW_STRATEGY_LINEAR_NARROW).
  bool narrow = false;
  /// The variant's function in the module.
  std::string function;
  /// Whether the variant is compiled (FamilyOptions::variants); a variant
  /// that is not keeps its row in the family table, with a null entry.
  bool compiled = true;
};

struct FamilySpec {
  std::string name;
  std::vector<FamilyArgument> arguments;
  /// The map's outputs and (argument) inputs as argument indices.
  std::vector<int32_t> outputs, inputs;
  std::vector<FamilyVariant> variants;
};

/// The pwElementType code of `type`, or -1 when a family cannot pass it.
int32_t getElementTypeCode(mlir::Type type);

/// The name of `variant` of family `family`:
/// `<family>__r<rank>_i<bits>_{linear,linear_narrow,transpose<argument>}`.
std::string getVariantName(llvm::StringRef family,
                           const FamilyVariant &variant);

/// Step 1. Fails with diagnostics on functions that cannot be a family (no
/// results, exactly one map, memref arguments used only by the map) and on
/// names in `options.variants` that name no variant. Only the variants
/// selected by `options.variants` become functions of `module`.
mlir::FailureOr<std::vector<FamilySpec>>
buildFamilyVariants(mlir::ModuleOp module, const FamilyOptions &options);

/// The passes of step 2 for `options.target`, added to `pm`.
void buildFamilyPipeline(mlir::OpPassManager &pm, const FamilyOptions &options);

/// Step 2: down to the LLVM dialect (and gpu.binary ops for "cuda"),
/// verifying the lowered module once. The passes report their times under
/// `timing` (may be null).
mlir::LogicalResult lowerFamilies(mlir::ModuleOp module,
                                  const FamilyOptions &options,
                                  mlir::TimingScope *timing = nullptr);

/// Step 2 and the translation to LLVM IR of `families` (built in `module`
/// by step 1): the variants lower in 2 x threads modules (one on a single
/// thread), balanced by estimated cost, in parallel on the context's
/// threads, each module's kernels in one GPU binary; the translations are
/// linked into one host module. `inspectLowered` (may be empty) sees each
/// lowered module.
std::unique_ptr<llvm::Module> lowerAndTranslateFamilies(
    mlir::ModuleOp module, llvm::LLVMContext &context,
    const FamilyOptions &options, llvm::ArrayRef<FamilySpec> families,
    mlir::TimingScope *timing,
    const std::function<mlir::LogicalResult(mlir::ModuleOp)> &inspectLowered);

/// Compiles `module`, already optimized, to a relocatable object for the
/// target of `machine`; false with `error` set when the target cannot.
bool emitObject(llvm::Module &module, llvm::TargetMachine &machine,
                std::string &object, std::string &error);

/// Optimizes host module `module` (O2) for the target of `machine`, whose
/// triple and data layout it takes: the host code of every family
/// compilation (pw-compile's objects and LLVM IR, the C API's JIT objects).
/// `timing` (may be null) gets a "host optimization" scope.
bool optimizeHostModule(llvm::Module &module, llvm::TargetMachine &machine,
                        std::string &error,
                        mlir::TimingScope *timing = nullptr);

/// optimizeHostModule, then emitObject (a "host object" scope of `timing`).
bool compileHostModule(llvm::Module &module, llvm::TargetMachine &machine,
                       std::string &object, std::string &error,
                       mlir::TimingScope *timing = nullptr);

/// Compiles the host module of one part (index `index`; the family tables
/// come last) to a relocatable object, on the thread that calls it; false
/// with `error` set on failure. Steps may report their times under
/// `timing` (may be null).
using HostObjectEmitter = std::function<bool(
    llvm::Module &module, size_t index, mlir::TimingScope *timing,
    std::string &object, std::string &error)>;

/// Step 2 and the translation, as lowerAndTranslateFamilies, but each
/// lowered part's translation, with the packed entries of its variants
/// (addPackedEntries), goes to `emit` on the thread that lowered it. Returns
/// the parts' objects in order (none when no variant is compiled);
/// addFamilyEntries on an empty module then makes the tables that refer to
/// their entries.
mlir::FailureOr<std::vector<std::string>> lowerFamiliesToObjects(
    mlir::ModuleOp module, const FamilyOptions &options,
    llvm::ArrayRef<FamilySpec> families, mlir::TimingScope *timing,
    const std::function<mlir::LogicalResult(mlir::ModuleOp)> &inspectLowered,
    const HostObjectEmitter &emit);

/// The packed entry of each compiled variant that `module` defines, hidden
/// and external, for family tables in another object.
mlir::LogicalResult addPackedEntries(llvm::Module &module,
                                     llvm::ArrayRef<FamilySpec> families,
                                     std::string &error);

/// Step 3, on the translation of the lowered module: packed entries (of the
/// variant functions `module` holds; the others' are declared, from
/// addPackedEntries in other objects), family tables and C entry points.
mlir::LogicalResult addFamilyEntries(llvm::Module &module,
                                     llvm::ArrayRef<FamilySpec> families,
                                     std::string &error);

/// The section holding one pointer per family table of an object that
/// addFamilyIndex made: the linker concatenates them, and brackets them
/// with `__start_pw_families` and `__stop_pw_families`.
inline constexpr const char *kFamilyIndexSection = "pw_families";

/// Adds the index of `families` (whose tables are in `module`) that
/// pw-compile's objects and shared libraries carry: a pointer to each table
/// in section kFamilyIndexSection, and `pw_library_families`
/// (include/Pointwise/Runtime/Runtime.h), which returns all of them of the
/// library or executable the object is linked into. For files only: a JIT
/// looks families up by name.
void addFamilyIndex(llvm::Module &module, llvm::ArrayRef<FamilySpec> families);

/// Steps 1-3 and the translation: the host LLVM module with families and
/// embedded GPU binaries. `progress` (may be empty) receives one line per
/// step; each step and pass reports its time under `timing` (may be null);
/// `inspectLowered` (may be empty) sees each lowered module before its
/// translation and may fail the compilation.
std::unique_ptr<llvm::Module> compileFamilies(
    mlir::ModuleOp module, llvm::LLVMContext &context,
    const FamilyOptions &options, std::vector<FamilySpec> &families,
    const std::function<void(llvm::StringRef)> &progress,
    mlir::TimingScope *timing = nullptr,
    const std::function<mlir::LogicalResult(mlir::ModuleOp)> &inspectLowered =
        nullptr);

/// Steps 1-3 as compileFamilies, with the host code of the lowered parts
/// compiled by `emit` on the threads that lowered them (their objects in
/// `objects`); returns the module of the family tables and C entry points
/// (in `context`), which refers to the parts' packed entries and which the
/// caller compiles into the last object. With one variant to compile or one
/// thread there is one part, whose host code the returned module holds
/// besides the tables (`objects` empty).
std::unique_ptr<llvm::Module> compileFamiliesToObjects(
    mlir::ModuleOp module, llvm::LLVMContext &context,
    const FamilyOptions &options, std::vector<FamilySpec> &families,
    const std::function<void(llvm::StringRef)> &progress,
    mlir::TimingScope *timing,
    const std::function<mlir::LogicalResult(mlir::ModuleOp)> &inspectLowered,
    const HostObjectEmitter &emit, std::vector<std::string> &objects);

} // namespace pointwise

#endif // POINTWISE_COMPILER_FAMILY_H
