//===- LowerToGpu.cpp - pw-lower-to-gpu -----------------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The tiled form of pw-tile says exactly what each thread does; this pass
// only turns its block and thread loops into a gpu.launch and lets upstream
// outline the kernels.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Conversion/Passes.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseDialect.h"
#include "Pointwise/Dialect/Pointwise/Transforms/WorkEstimate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/PassManager.h"

#include <cstdint>
#include <limits>

namespace pointwise {
#define GEN_PASS_DEF_LOWERTOGPUPASS
#include "Pointwise/Conversion/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

bool isMappedTo(scf::ParallelOp loop, gpu::Processor processor) {
  auto mapping = loop->getAttrOfType<ArrayAttr>("mapping");
  if (!mapping || mapping.size() != 1)
    return false;
  auto dim = dyn_cast<gpu::ParallelLoopDimMappingAttr>(mapping[0]);
  return dim && dim.getProcessor() == processor;
}

/// The block-local buffers (pw-tile allocates them before the block loop)
/// the block loop uses.
SmallVector<memref::AllocaOp> getBlockLocalBuffers(scf::ParallelOp blocks) {
  SmallVector<memref::AllocaOp> buffers;
  llvm::SmallPtrSet<Operation *, 4> seen;
  blocks.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (auto alloca = operand.getDefiningOp<memref::AllocaOp>())
        if (alloca->hasAttr(
                PointwiseDialect::BlockLocalAttrHelper::getNameStr()) &&
            !blocks->isAncestor(alloca) && seen.insert(alloca).second)
          buffers.push_back(alloca);
  });
  return buffers;
}

/// The runtime function that sizes the dynamic shared memory capping a
/// kernel's resident blocks (Runtime.h).
constexpr StringLiteral kOccupancySharedMemoryName = "pwOccupancySharedMemory";

/// Bytes of workgroup memory `buffers` take.
int64_t getSharedMemoryBytes(ArrayRef<memref::AllocaOp> buffers) {
  int64_t bytes = 0;
  for (memref::AllocaOp alloca : buffers)
    bytes += alloca.getType().getNumElements() *
             getElementByteWidth(alloca.getType().getElementType());
  return bytes;
}

/// Host code before `blocks` computing the dynamic shared memory that lets
/// at most `blocksPerSM` blocks of a kernel with `staticBytes` of shared
/// memory be resident per multiprocessor: a call of the runtime's
/// pwOccupancySharedMemory, declared in the module if needed
/// (docs/Performance.md, row `transpose-blocks-per-sm`).
Value createOccupancyPadding(IRRewriter &rewriter, scf::ParallelOp blocks,
                             int64_t staticBytes, int64_t blocksPerSM) {
  Location loc = blocks.getLoc();
  auto module = blocks->getParentOfType<ModuleOp>();
  Type i32 = rewriter.getI32Type();
  auto type = rewriter.getFunctionType({i32, i32}, {i32});
  auto callee = module.lookupSymbol<func::FuncOp>(kOccupancySharedMemoryName);
  if (!callee) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    callee =
        func::FuncOp::create(rewriter, loc, kOccupancySharedMemoryName, type);
    callee.setPrivate();
  }
  Value staticValue = arith::ConstantIntOp::create(rewriter, loc, staticBytes,
                                                   /*width=*/32);
  Value blocksValue = arith::ConstantIntOp::create(rewriter, loc, blocksPerSM,
                                                   /*width=*/32);
  return func::CallOp::create(rewriter, loc, callee,
                              ValueRange{staticValue, blocksValue})
      .getResult(0);
}

/// Replaces the block loop `blocks` by a gpu.launch running the same code
/// per block and thread: thread loops become the code of one thread, with
/// a barrier between consecutive ones, and buffers allocated per block
/// become workgroup memory. With `blocksPerSM` > 0, a kernel with such
/// buffers is launched with the dynamic shared memory that caps its
/// resident blocks at that.
LogicalResult convertToLaunch(IRRewriter &rewriter, scf::ParallelOp blocks,
                              int64_t blocksPerSM) {
  Location loc = blocks.getLoc();
  SmallVector<Operation *> ops;
  for (Operation &op : blocks.getBody()->without_terminator())
    ops.push_back(&op);
  std::optional<int64_t> blockSize;
  for (Operation *op : ops) {
    auto loop = dyn_cast<scf::ParallelOp>(op);
    if (!loop || !isMappedTo(loop, gpu::Processor::ThreadX))
      continue;
    std::optional<int64_t> threads =
        getConstantIntValue(loop.getUpperBound()[0]);
    if (!threads || getConstantIntValue(loop.getLowerBound()[0]) != 0 ||
        getConstantIntValue(loop.getStep()[0]) != 1)
      return loop.emitError("thread loops must run from 0 to a constant "
                            "with step 1");
    if (blockSize && *blockSize != *threads)
      return loop.emitError("thread loops of one block must have the same "
                            "trip count");
    blockSize = threads;
  }
  if (!blockSize)
    return blocks.emitError("block loop without a thread-mapped loop");
  if (getConstantIntValue(blocks.getLowerBound()[0]) != 0 ||
      getConstantIntValue(blocks.getStep()[0]) != 1)
    return blocks.emitError("block loops must start at 0 with step 1");

  rewriter.setInsertionPoint(blocks);
  SmallVector<memref::AllocaOp> buffers = getBlockLocalBuffers(blocks);
  Value padding;
  if (blocksPerSM > 0 && !buffers.empty())
    padding = createOccupancyPadding(
        rewriter, blocks, getSharedMemoryBytes(buffers), blocksPerSM);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value blockDim = arith::ConstantIndexOp::create(rewriter, loc, *blockSize);
  auto launch = gpu::LaunchOp::create(rewriter, loc, blocks.getUpperBound()[0],
                                      one, one, blockDim, one, one, padding);
  for (StringRef name :
       {PointwiseDialect::StrategyAttrHelper::getNameStr(),
        PointwiseDialect::InputBytesPerBlockAttrHelper::getNameStr(),
        PointwiseDialect::InstructionsPerByteAttrHelper::getNameStr()})
    if (Attribute attr = blocks->getAttr(name))
      launch->setAttr(name, attr);

  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  IRMapping mapping;
  mapping.map(blocks.getInductionVars()[0], launch.getBlockIds().x);
  auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                              gpu::AddressSpace::Workgroup);
  for (memref::AllocaOp alloca : buffers) {
    MemRefType type = alloca.getType();
    auto shared = MemRefType::get(type.getShape(), type.getElementType(),
                                  type.getLayout(), workgroup);
    mapping.map(alloca.getResult(),
                launch.addWorkgroupAttribution(shared, alloca.getLoc()));
  }
  bool firstThreadLoop = true;
  for (Operation *op : ops) {
    auto loop = dyn_cast<scf::ParallelOp>(op);
    if (!loop || !isMappedTo(loop, gpu::Processor::ThreadX)) {
      rewriter.clone(*op, mapping);
      continue;
    }
    // Everything the previous thread loop wrote must be visible before any
    // thread starts the next one.
    if (!firstThreadLoop)
      gpu::BarrierOp::create(rewriter, loc);
    firstThreadLoop = false;
    mapping.map(loop.getInductionVars()[0], launch.getThreadIds().x);
    for (Operation &inner : loop.getBody()->without_terminator())
      rewriter.clone(inner, mapping);
  }
  gpu::TerminatorOp::create(rewriter, loc);
  rewriter.eraseOp(blocks);
  for (memref::AllocaOp alloca : buffers)
    if (alloca->use_empty())
      rewriter.eraseOp(alloca);
  return success();
}

/// Integers wider than this cannot be converted to or from floating point on
/// the GPU: NVPTX has no library to call for it, and LLVM aborts.
constexpr unsigned kMaxGpuConvertedIntegerWidth = 64;

/// Rejects the ops in `blocks` that NVPTX cannot compile, at the location of
/// the map body op they come from.
LogicalResult verifyGpuCompilable(scf::ParallelOp blocks) {
  // A kernel launch is host code: a map already inside device code would
  // become a launch inside a kernel.
  if (blocks->getParentOfType<gpu::GPUFuncOp>() ||
      blocks->getParentOfType<gpu::LaunchOp>() ||
      blocks->getParentOfType<gpu::GPUModuleOp>())
    return blocks.emitError(
        "pw-lower-to-gpu: this pointwise.map is inside device code "
        "(gpu.func, gpu.launch or gpu.module) and cannot become a kernel "
        "launch; put it in host code");
  WalkResult result = blocks.walk([](Operation *op) {
    if (!isa<arith::FPToSIOp, arith::FPToUIOp, arith::SIToFPOp,
             arith::UIToFPOp>(op))
      return WalkResult::advance();
    Type from = getElementTypeOrSelf(op->getOperand(0).getType());
    Type to = getElementTypeOrSelf(op->getResult(0).getType());
    auto integer = dyn_cast<IntegerType>(isa<IntegerType>(from) ? from : to);
    if (!integer || integer.getWidth() <= kMaxGpuConvertedIntegerWidth)
      return WalkResult::advance();
    op->emitOpError() << "converts between floating point and " << integer
                      << ", which the GPU lowering does not support: "
                         "integers converted to or from floating point must "
                         "be at most "
                      << kMaxGpuConvertedIntegerWidth << " bits wide";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Whether the kernel only reads `argument` (through loads, possibly of
/// views of it); such arguments load with ld.global.nc where the hint
/// leaves them plain (docs/Performance.md, row `readonly-nc`).
bool isOnlyRead(Value argument) {
  for (Operation *user : argument.getUsers()) {
    if (isa<memref::LoadOp, vector::LoadOp>(user))
      continue;
    return false;
  }
  return true;
}

struct LowerToGpuPass
    : public pointwise::impl::LowerToGpuPassBase<LowerToGpuPass> {
  using LowerToGpuPassBase::LowerToGpuPassBase;

  void runOnOperation() override {
    // The cap reaches the runtime as an i32.
    if (transposeBlocksPerSM < 0 ||
        transposeBlocksPerSM > std::numeric_limits<int32_t>::max()) {
      emitError(getOperation().getLoc())
          << "pw-lower-to-gpu: transpose-blocks-per-sm must be 0 to "
          << std::numeric_limits<int32_t>::max() << ", got "
          << static_cast<int64_t>(transposeBlocksPerSM);
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> blockLoops;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (loop->hasAttr(PointwiseDialect::StrategyAttrHelper::getNameStr()) &&
          isMappedTo(loop, gpu::Processor::BlockX))
        blockLoops.push_back(loop);
    });
    for (scf::ParallelOp loop : blockLoops) {
      // Outlining and the host lowering serve the module the pass runs on;
      // kernels of a nested module would be placed outside it.
      if (loop->getParentOfType<ModuleOp>() != getOperation().getOperation()) {
        loop.emitError("pw-lower-to-gpu: this pointwise.map is in a nested "
                       "module; the GPU lowering serves the maps of the "
                       "module it runs on (run it on the nested module)");
        return signalPassFailure();
      }
      if (failed(verifyGpuCompilable(loop)))
        return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : blockLoops)
      if (failed(convertToLaunch(rewriter, loop, transposeBlocksPerSM)))
        return signalPassFailure();

    // Outlining replaces every gpu.launch by a gpu.launch_func in its
    // place, so the two walks meet the same launches in the same order:
    // each kernel receives its launch's bytes per block and instructions
    // per byte.
    constexpr StringLiteral kernelAttrNames[] = {
        PointwiseDialect::InputBytesPerBlockAttrHelper::getNameStr(),
        PointwiseDialect::InstructionsPerByteAttrHelper::getNameStr()};
    SmallVector<SmallVector<NamedAttribute>> kernelAttrs;
    getOperation()->walk([&](gpu::LaunchOp launch) {
      SmallVector<NamedAttribute> &attrs = kernelAttrs.emplace_back();
      for (StringRef name : kernelAttrNames)
        if (Attribute attr = launch->getAttr(name))
          attrs.emplace_back(name, attr);
    });
    // Constants, static sizes, strides and offsets among them (pw-tile folds
    // what the types know), are immediates of the kernel, not parameters
    // (docs/Performance.md, row `static-immediates`).
    WalkResult sunk = getOperation()->walk([](gpu::LaunchOp launch) {
      if (failed(sinkOperationsIntoLaunchOp(launch, [](Operation *op) {
            return op->hasTrait<OpTrait::ConstantLike>();
          })))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (sunk.wasInterrupted())
      return signalPassFailure();
    OpPassManager outlining(ModuleOp::getOperationName());
    outlining.addPass(createGpuKernelOutliningPass());
    if (failed(runPipeline(outlining, getOperation())))
      return signalPassFailure();
    SmallVector<gpu::LaunchFuncOp> launches;
    getOperation()->walk(
        [&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });

    if (launches.size() == kernelAttrs.size()) {
      SymbolTableCollection symbols;
      for (auto [launch, attrs] : llvm::zip(launches, kernelAttrs))
        if (!attrs.empty())
          if (auto kernel = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
                  launch, launch.getKernel()))
            for (const NamedAttribute &attr : attrs)
              kernel->setAttr(attr.getName(), attr.getValue());
    }

    getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel())
        return;
      // Outlining records the block size, which NVVM turns into .maxntid;
      // ptxas then trades registers for full occupancy and spills (rank-5
      // kernels do). Memory-bound kernels do not need full occupancy, and
      // must not spill (docs/Performance.md, row `no-maxntid`).
      kernel.removeKnownBlockSizeAttr();
      for (BlockArgument argument : kernel.getArguments()) {
        if (!isa<MemRefType>(argument.getType()) || !isOnlyRead(argument))
          continue;
        kernel.setArgAttr(argument.getArgNumber(),
                          LLVM::LLVMDialect::getNoAliasAttrName(),
                          rewriter.getUnitAttr());
        kernel.setArgAttr(argument.getArgNumber(),
                          LLVM::LLVMDialect::getReadonlyAttrName(),
                          rewriter.getUnitAttr());
      }
    });
  }
};

} // namespace
