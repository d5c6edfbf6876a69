//===- PassPipelines.cpp - The pointwise pass pipelines -------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Every pipeline of the project in one place: what runs, in which order.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Pipelines/Pipelines.h"

#include "Pointwise/Conversion/Passes.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

using namespace mlir;

namespace {
/// Fails at once with a message about the options: a registered pipeline
/// cannot fail while it is built, so the checks of its options run as its
/// only pass.
struct RejectOptionsPass
    : public PassWrapper<RejectOptionsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RejectOptionsPass)

  explicit RejectOptionsPass(std::string message)
      : message(std::move(message)) {}
  llvm::StringRef getName() const override { return "RejectOptionsPass"; }
  void runOnOperation() override {
    emitError(getOperation()->getLoc()) << message;
    signalPassFailure();
  }

  std::string message;
};

/// Rejects maps that the pipeline named `pipeline` cannot lower where they
/// stand: it lowers maps in functions and inside scf and affine control
/// flow, whose regions may become several blocks; an op of another dialect
/// around a map (async.execute, whose region must stay one block) would be
/// left holding invalid IR.
struct CheckMapPlacementPass
    : public PassWrapper<CheckMapPlacementPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckMapPlacementPass)

  explicit CheckMapPlacementPass(llvm::StringRef pipeline)
      : pipeline(pipeline.str()) {}
  llvm::StringRef getName() const override { return "CheckMapPlacementPass"; }
  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](pointwise::MapOp map) {
      for (Operation *parent = map->getParentOp();
           parent && !isa<FunctionOpInterface, ModuleOp>(parent);
           parent = parent->getParentOp()) {
        llvm::StringRef dialect = parent->getDialect()
                                      ? parent->getDialect()->getNamespace()
                                      : llvm::StringRef();
        if (dialect == "scf" || dialect == "affine")
          continue;
        map.emitOpError()
            << "inside '" << parent->getName() << "': " << pipeline
            << " lowers maps in functions and inside scf and affine control "
               "flow only; lower '"
            << parent->getName() << "' first";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  std::string pipeline;
};
} // namespace

/// The name of the first of `options` that was given a value, in the
/// pipeline's option string or by an assignment in C++, or "" when none
/// was. An option left alone has no value even though it reads as its
/// default, so this tells `strategy=auto` from no `strategy` at all.
template <typename... OptionTs>
static llvm::StringRef findGivenOption(const OptionTs &...options) {
  for (const auto &[given, name] : {std::pair<bool, llvm::StringRef>(
           options.hasValue(), options.ArgStr)...})
    if (given)
      return name;
  return "";
}

std::string
pointwise::checkCpuPipelineOptions(const CpuPipelineOptions &options) {
  // The reference lowering is the oracle the tiled one is checked against:
  // quietly lowering one of them would hide which one ran.
  if (options.reference && options.tiled)
    return "pw-cpu-pipeline: reference=1 and tiled=1 exclude each other: "
           "reference=1 lowers the original layouts to plain loops, tiled=1 "
           "lowers to the GPU kernels' tiled code; set one of them";
  // pw-tile's options mean nothing to the loops of the other lowerings:
  // `strategy=transpose` alone would lower plain loops without a word.
  if (!options.tiled)
    if (llvm::StringRef given = findGivenOption(
            options.strategy, options.indexBitwidth, options.tileEdge);
        !given.empty())
      return "pw-cpu-pipeline: " + given.str() +
             " needs tiled=1 (it steers pw-tile, which only the tiled "
             "lowering runs)";
  return "";
}

void pointwise::buildCpuPipeline(OpPassManager &pm,
                                 const CpuPipelineOptions &options) {
  if (std::string problem = checkCpuPipelineOptions(options);
      !problem.empty()) {
    pm.addPass(std::make_unique<RejectOptionsPass>(std::move(problem)));
    return;
  }
  pm.addPass(std::make_unique<CheckMapPlacementPass>("pw-cpu-pipeline"));
  // Tensor-level modules become memref-level ones; others are untouched.
  BufferizePassOptions bufferize;
  bufferize.identityLayout = options.identityLayout;
  pm.addPass(createBufferizePass(bufferize));
  // Before any rewrite of a map, whose checks are written against its
  // original operands (MapRuntimeVerification.cpp).
  if (options.runtimeVerification) {
    pm.addPass(createGenerateRuntimeVerificationPass());
    pm.addPass(createRuntimeOverlapChecksPass());
  }
  if (!options.reference) {
    pm.addPass(createCanonicalizeBroadcastPass());
    pm.addPass(createCoalesceDimsPass());
  }
  if (options.tiled) {
    pm.addPass(createTilePass(options.getTileOptions()));
  } else {
    pm.addPass(createLowerToLoopsPass());
  }
  if (!options.reference) {
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  // Integer powers (math.ipowi, math.fpowi) become calls of functions that
  // compute them, which no LLVM intrinsic does; a map body cannot hold the
  // calls, so this runs once the bodies are loops.
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createExpandFloatClassesPass());
  // Upstream's standard CPU lowering; f16/bf16 math goes through f32 since
  // libm has no half-precision entry points.
  pm.addNestedPass<func::FuncOp>(math::createMathExtendToSupportedTypes());
  // Affine loops first: once scf is cf, an affine.for around a map's loops
  // would hold several blocks, which it cannot.
  pm.addNestedPass<func::FuncOp>(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // bf16 conversions as integer operations: on x86 hosts with AVX512-BF16
  // LLVM would round f32 to bf16 with vcvtneps2bf16, which flushes
  // subnormals to zero, where PyTorch, NumPy and the GPU keep them.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

/// The PTX ISA version (times 10) that `chip` needs at least, or 0 for a
/// chip pointwise does not compile for: sm_80 and newer, as LLVM's NVPTX
/// backend names them (PTX ISA release notes). The kernels' L2 cache
/// policies (`createpolicy`) need sm_80 and PTX 7.4; sm_90 keeps PTX 8.0.
static unsigned getMinimumPtxVersion(llvm::StringRef chip) {
  if (!chip.consume_front("sm_"))
    return 0;
  llvm::StringRef digits = chip.take_while(llvm::isDigit);
  llvm::StringRef suffix = chip.drop_front(digits.size());
  unsigned version = 0;
  if (digits.empty() || digits.getAsInteger(10, version) ||
      (suffix != "" && suffix != "a" && suffix != "f"))
    return 0;
  // Architecture-specific targets (sm_90a ...) exist from sm_90 on,
  // family-specific ones (sm_100f ...) from sm_100 on, with PTX 8.8.
  if ((suffix == "a" && version < 90) || (suffix == "f" && version < 100))
    return 0;
  unsigned base = 0;
  switch (version) {
  case 80:
  case 86:
  case 87:
    base = 74;
    break;
  case 89:
    base = 78;
    break;
  case 90:
    base = 80;
    break;
  case 100:
    base = 86;
    break;
  case 120:
    base = 87;
    break;
  case 103:
  case 121:
    base = 88;
    break;
  case 110:
    base = 90;
    break;
  default:
    return 0;
  }
  return suffix == "f" ? std::max(base, 88u) : base;
}

static std::string getDefaultFeatures(llvm::StringRef chip) {
  return "+ptx" + std::to_string(getMinimumPtxVersion(chip));
}

/// Why `features` cannot serve `chip` (a supported one), or "". The NVPTX
/// backend ignores names it does not know and stops the process on a PTX
/// version below the chip's, so only one `+ptxNN` of at least that version
/// is taken.
static std::string checkFeatures(llvm::StringRef features,
                                 llvm::StringRef chip) {
  if (features.empty())
    return "";
  unsigned minimum = getMinimumPtxVersion(chip);
  llvm::StringRef digits = features;
  unsigned version = 0;
  if (!digits.consume_front("+ptx") || digits.size() != 2 ||
      !llvm::all_of(digits, llvm::isDigit) || digits.getAsInteger(10, version))
    return "pw-gpu-pipeline: features '" + features.str() +
           "' must be one PTX ISA version, +ptxNN (empty picks +ptx" +
           std::to_string(minimum) + " for " + chip.str() + ")";
  if (version < minimum)
    return "pw-gpu-pipeline: features '" + features.str() + "': " + chip.str() +
           " needs PTX ISA " + std::to_string(minimum / 10) + "." +
           std::to_string(minimum % 10) + " or newer (+ptx" +
           std::to_string(minimum) + ")";
  return "";
}

std::string
pointwise::checkGpuCodegenOptions(const GpuCodegenOptions &options) {
  llvm::StringRef chip = options.chip;
  if (!getMinimumPtxVersion(chip))
    return "pw-gpu-pipeline: unsupported chip '" + chip.str() +
           "'; expected sm_80, sm_86, sm_87, sm_89, sm_90[a], sm_100[a|f], "
           "sm_103[a|f], sm_110[a|f], sm_120[a|f] or "
           "sm_121[a|f]";
  if (!options.cudaPath.empty()) {
    llvm::SmallString<256> libdevice(options.cudaPath);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
    if (!llvm::sys::fs::exists(libdevice))
      return "pw-gpu-pipeline: cuda-path '" + options.cudaPath +
             "' is not a CUDA toolkit (no " + libdevice.str().str() + ")";
  }
  if (options.optLevel < 0 || options.optLevel > 3)
    return "pw-gpu-pipeline: opt-level must be 0 to 3, got " +
           std::to_string(options.optLevel);
  if (std::string problem = checkFeatures(options.features, chip);
      !problem.empty())
    return problem;
  // pw-hint-global-loads reads its limits only under the policies that use
  // them; under another one they would change nothing, without a word.
  LoadPolicy policy = options.loadPolicy;
  if (policy == LoadPolicy::None)
    if (llvm::StringRef given = findGivenOption(
            options.hintMinBytes, options.hintMaxInstructionsPerByte);
        !given.empty())
      return "pw-gpu-pipeline: " + given.str() +
             " needs load-policy=evict-last, l1-evict-last or l2-evict-last "
             "(it tunes pw-hint-global-loads' hints, and load-policy=none "
             "hints no load)";
  if (policy == LoadPolicy::L1EvictLast && options.hintMinBytes.hasValue())
    return "pw-gpu-pipeline: hint-min-bytes needs load-policy=evict-last or "
           "l2-evict-last (it decides which launches take the L2 evict_last "
           "policy, which load-policy=l1-evict-last does not use)";
  if (options.transposeBlocksPerSM < 0 ||
      options.transposeBlocksPerSM > std::numeric_limits<int32_t>::max())
    return "pw-gpu-pipeline: transpose-blocks-per-sm must be 0 to " +
           std::to_string(std::numeric_limits<int32_t>::max()) + ", got " +
           std::to_string(options.transposeBlocksPerSM);
  return "";
}

/// The CUDA toolkit the environment names, or the usual install location.
static std::string findCudaToolkit() {
  for (const char *variable : {"CUDA_HOME", "CUDA_ROOT", "CUDA_PATH"})
    if (const char *path = std::getenv(variable); path && *path)
      return path;
  return "/usr/local/cuda";
}

void pointwise::buildGpuPipeline(OpPassManager &pm,
                                 const GpuPipelineOptions &options) {
  if (std::string problem = checkGpuCodegenOptions(options); !problem.empty()) {
    pm.addPass(std::make_unique<RejectOptionsPass>(std::move(problem)));
    return;
  }
  pm.addPass(std::make_unique<CheckMapPlacementPass>("pw-gpu-pipeline"));
  // Tensor-level modules become memref-level ones, with their temporaries
  // freed and the buffers they return owned by the caller; then every buffer
  // of host code is GPU memory and every copy a map.
  BufferizePassOptions bufferize;
  bufferize.identityLayout = options.identityLayout;
  pm.addPass(createBufferizePass(bufferize));
  pm.addPass(createPlaceBuffersOnDevicePass());
  buildGpuCodegenPipeline(pm, options, options.getTileOptions(),
                          options.launchOnCurrentStream,
                          options.runtimeVerification);
}

void pointwise::buildGpuCodegenPipeline(OpPassManager &pm,
                                        const GpuCodegenOptions &options,
                                        const TilePassOptions &tile,
                                        bool launchOnCurrentStream,
                                        bool runtimeVerification) {
  if (runtimeVerification) {
    pm.addPass(createGenerateRuntimeVerificationPass());
    pm.addPass(createRuntimeOverlapChecksPass());
  }
  pm.addPass(createCanonicalizeBroadcastPass());
  pm.addPass(createCoalesceDimsPass());
  pm.addPass(createTilePass(tile));
  // Integer powers as calls of functions (see the CPU pipeline); kernel
  // outlining copies the functions the kernels call into their module.
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createExpandFloatClassesPass());
  // Canonicalization would merge the block and thread loops; it runs once
  // they are a kernel.
  pm.addPass(createLowerToGpuPass(options.getLowerToGpuOptions()));
  // Outlining copied the power functions into the kernels' module; the host
  // module's own copies (private, linkonce_odr) are now unused.
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Upstream's NVVM path, as upstream's gpu-lower-to-nvvm-pipeline runs it,
  // with two differences: kernels take bare pointers (one parameter per
  // operand, carrying the noalias/readonly attributes that make inputs load
  // with ld.global.nc), and the CUDA toolkit is found even when no
  // environment variable names it, so libdevice is linked for math.
  pm.addPass(createConvertVectorToSCFPass());
  // The host functions' affine loops first (see the CPU pipeline); the
  // kernels keep their order of lowerings.
  pm.addNestedPass<func::FuncOp>(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features.empty() ? getDefaultFeatures(options.chip)
                                             : std::string(options.features);
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  // Arith and index ops of the host functions only: convert-gpu-to-nvvm
  // lowers the kernels' own, mapping what NVPTX has no instruction for
  // (arith.remf) to libdevice. Converted here, `llvm.frem` would stay
  // illegal in the kernels.
  pm.addNestedPass<LLVM::LLVMFuncOp>(createArithToLLVMConversionPass());
  pm.addNestedPass<LLVM::LLVMFuncOp>(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // After the last canonicalization of arith ops, which the guards of
  // pw-fuse-maps' roundings are there to survive.
  pm.addNestedPass<gpu::GPUModuleOp>(createStripRoundingGuardsPass());
  // Before libdevice's tanhf would be called for it.
  pm.addNestedPass<gpu::GPUModuleOp>(createBf16MathToNVVMPass());
  // A sine and a cosine of one value become one libdevice sincos, which
  // reduces the argument once: half the code of two calls, each with its
  // own Payne-Hanek path for large arguments (docs/Performance.md, row
  // `sincos-fusion`).
  pm.addNestedPass<gpu::GPUModuleOp>(math::createMathSincosFusionPass());
  ConvertGpuOpsToNVVMOpsOptions kernels;
  kernels.useBarePtrCallConv = true;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(kernels));
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  pm.addNestedPass<gpu::GPUModuleOp>(
      createHintGlobalLoadsPass(options.getHintGlobalLoadsOptions()));

  GpuToLLVMConversionPassOptions host;
  host.kernelBarePtrCallConv = true;
  pm.addPass(createGpuToLLVMConversionPass(host));
  if (launchOnCurrentStream)
    pm.addPass(createLaunchOnCurrentStreamPass());
  // One binary for the module's kernels: one ptxas run, not one per kernel.
  pm.addPass(createMergeGpuModulesPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.cudaPath.empty() ? findCudaToolkit()
                                                : std::string(options.cudaPath);
  binary.compilationTarget = stringifyBinaryFormat(options.format);
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void pointwise::registerPointwisePipelines() {
  PassPipelineRegistration<GpuPipelineOptions>(
      "pw-gpu-pipeline",
      "The whole GPU path of pointwise.map: bufferization of tensor modules, "
      "GPU allocations for the buffers of host code, broadcast "
      "canonicalization, dimension "
      "coalescing, tiling, kernel outlining, then upstream's NVVM lowering "
      "to a gpu.binary and host code in the LLVM dialect",
      buildGpuPipeline);
  PassPipelineRegistration<CpuPipelineOptions>(
      "pw-cpu-pipeline",
      "The whole CPU path of pointwise.map, down to the LLVM dialect: "
      "bufferization of tensor modules, broadcast canonicalization, "
      "dimension coalescing, loops, then upstream's conversions to LLVM",
      buildCpuPipeline);
}
