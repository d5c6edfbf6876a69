//===- PassPipelines.cpp - The pointwise pass pipelines -------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Every pipeline of the project in one place: what runs, in which order.
//
//===----------------------------------------------------------------------===//

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
#include "llvm/ADT/StringExtras.h"

#include <cstdlib>

using namespace mlir;

void pointwise::buildCpuPipeline(OpPassManager &pm,
                                 const CpuPipelineOptions &options) {
  if (!options.reference) {
    pm.addPass(createCanonicalizeBroadcastPass());
    pm.addPass(createCoalesceDimsPass());
  }
  if (options.tiled && !options.reference) {
    TilePassOptions tile;
    tile.strategy = options.strategy;
    tile.tileEdge = options.tileEdge;
    tile.indexBitwidth = options.indexBitwidth;
    pm.addPass(createTilePass(tile));
  } else {
    pm.addPass(createLowerToLoopsPass());
  }
  if (!options.reference) {
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  // Upstream's standard CPU lowering; f16/bf16 math goes through f32 since
  // libm has no half-precision entry points.
  pm.addNestedPass<func::FuncOp>(math::createMathExtendToSupportedTypes());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(arith::createArithExpandOpsPass());
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

/// The PTX ISA version each architecture needs at least (PTX ISA release
/// notes); LLVM's NVPTX backend emits what the features ask for.
static std::string getDefaultFeatures(llvm::StringRef chip) {
  unsigned version = 0;
  chip.drop_front(3).take_while(llvm::isDigit).getAsInteger(10, version);
  if (version >= 100)
    return "+ptx86";
  if (version >= 90)
    return "+ptx80";
  if (version >= 89)
    return "+ptx78";
  return "+ptx70";
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
  pm.addPass(createCanonicalizeBroadcastPass());
  pm.addPass(createCoalesceDimsPass());
  TilePassOptions tile;
  tile.strategy = options.strategy;
  tile.blockSize = options.blockSize;
  tile.vectorBytes = options.vectorBytes;
  tile.unroll = options.unroll;
  tile.tileEdge = options.tileEdge;
  tile.indexBitwidth = options.indexBitwidth;
  pm.addPass(createTilePass(tile));
  // Canonicalization would merge the block and thread loops; it runs once
  // they are a kernel.
  LowerToGpuPassOptions lower;
  lower.transposeBlocksPerSM = options.transposeBlocksPerSM;
  pm.addPass(createLowerToGpuPass(lower));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Upstream's NVVM path, as upstream's gpu-lower-to-nvvm-pipeline runs it,
  // with two differences: kernels take bare pointers (one parameter per
  // operand, carrying the noalias/readonly attributes that make inputs load
  // with ld.global.nc), and the CUDA toolkit is found even when no
  // environment variable names it, so libdevice is linked for math.
  pm.addPass(createConvertVectorToSCFPass());
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

  ConvertGpuOpsToNVVMOpsOptions kernels;
  kernels.useBarePtrCallConv = true;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(kernels));
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  HintGlobalLoadsPassOptions hints;
  hints.policy = options.loadPolicy;
  hints.maxInstructionsPerByte = options.hintMaxInstructionsPerByte;
  hints.minBytes = options.hintMinBytes;
  pm.addNestedPass<gpu::GPUModuleOp>(createHintGlobalLoadsPass(hints));

  GpuToLLVMConversionPassOptions host;
  host.kernelBarePtrCallConv = true;
  pm.addPass(createGpuToLLVMConversionPass(host));
  if (options.launchOnCurrentStream)
    pm.addPass(createLaunchOnCurrentStreamPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.cudaPath.empty() ? findCudaToolkit()
                                                : std::string(options.cudaPath);
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void pointwise::registerPointwisePipelines() {
  PassPipelineRegistration<GpuPipelineOptions>(
      "pw-gpu-pipeline",
      "The whole GPU path of pointwise.map: broadcast canonicalization, "
      "dimension coalescing, tiling, kernel outlining, then upstream's NVVM "
      "lowering to a gpu.binary and host code in the LLVM dialect",
      buildGpuPipeline);
  PassPipelineRegistration<CpuPipelineOptions>(
      "pw-cpu-pipeline",
      "The whole CPU path of pointwise.map, down to the LLVM dialect: "
      "broadcast canonicalization, dimension coalescing, loops, then "
      "upstream's conversions to LLVM",
      buildCpuPipeline);
}
