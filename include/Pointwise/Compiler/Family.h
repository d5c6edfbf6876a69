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
//   2. lowerFamilies: pw-gpu-pipeline with launches on the current stream;
//   3. addFamilyEntries: on the translated LLVM IR, adds a packed entry per
//      variant, the `pw_family_<name>` table (a `pwFamily` of
//      include/Pointwise/Runtime/Runtime.h) and the C entry point `<name>`.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_COMPILER_FAMILY_H
#define POINTWISE_COMPILER_FAMILY_H

#include "Pointwise/Dialect/Pointwise/Transforms/WorkEstimate.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace pointwise {

struct FamilyOptions {
  /// "cuda": GPU kernels launched through the runtime (pw-gpu-pipeline);
  /// "cpu": loops on the host (pw-cpu-pipeline), dispatched by the same
  /// pwFamilyLaunch with linear 64-bit variants only.
  std::string target = "cuda";
  /// GPU code generation (see pw-gpu-pipeline's options).
  std::string chip = "sm_90";
  std::string format = "fatbin";
  std::string cudaPath;
  int optLevel = 3;
  int64_t blockSize = 0;   // 0: pw-tile decides per map
  int64_t vectorBytes = 0; // 0: pw-tile decides per map
  int64_t unroll = 0;      // 0: pw-tile decides per map
  int64_t tileEdge = 64;
  /// Cache policy of the kernels' global loads (pw-hint-global-loads):
  /// "evict-last", "l1-evict-last", "l2-evict-last" or "none".
  std::string loadPolicy = "evict-last";
  /// Bytes of input a launch must read for the L2 evict_last load policy
  /// (pw-hint-global-loads); smaller launches load with evict_normal.
  int64_t hintMinBytes = kDefaultHintMinBytes;
  /// Kernels estimated to compute more instructions per byte moved than
  /// this keep plain loads (pw-hint-global-loads).
  double hintMaxInstructionsPerByte = kDefaultHintMaxInstructionsPerByte;
  /// Resident blocks per multiprocessor of the transpose variants
  /// (pw-lower-to-gpu's transpose-blocks-per-sm; 0: no cap).
  int64_t transposeBlocksPerSM = kDefaultTransposeBlocksPerSM;
  /// Index bitwidths to build variants for (32 and/or 64; 64 covers every
  /// layout).
  std::vector<unsigned> indexBitwidths = {32, 64};
  /// Also build transpose variants (shared-memory tiles) for each memref
  /// input at ranks >= 2.
  bool transposeVariants = true;
  /// Only these functions (all functions holding a map when empty).
  std::vector<std::string> functions;
};

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

/// Step 1. Fails with diagnostics on functions that cannot be a family (no
/// results, exactly one map, memref arguments used only by the map).
mlir::FailureOr<std::vector<FamilySpec>>
buildFamilyVariants(mlir::ModuleOp module, const FamilyOptions &options);

/// Step 2: down to the LLVM dialect (and gpu.binary ops for "cuda").
mlir::LogicalResult lowerFamilies(mlir::ModuleOp module,
                                  const FamilyOptions &options);

/// Step 3, on the translation of the lowered module.
mlir::LogicalResult addFamilyEntries(llvm::Module &module,
                                     llvm::ArrayRef<FamilySpec> families,
                                     std::string &error);

/// Steps 1-3 and the translation: the host LLVM module with families and
/// embedded GPU binaries. `progress` (may be empty) receives one line per
/// step.
std::unique_ptr<llvm::Module>
compileFamilies(mlir::ModuleOp module, llvm::LLVMContext &context,
                const FamilyOptions &options, std::vector<FamilySpec> &families,
                const std::function<void(llvm::StringRef)> &progress);

} // namespace pointwise

#endif // POINTWISE_COMPILER_FAMILY_H
