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

#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"

namespace pointwise {
#define GEN_PASS_DEF_LOWERTOGPUPASS
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

constexpr StringLiteral kStrategyAttr = "pointwise.strategy";

bool isMappedTo(scf::ParallelOp loop, gpu::Processor processor) {
  auto mapping = loop->getAttrOfType<ArrayAttr>("mapping");
  if (!mapping || mapping.size() != 1)
    return false;
  auto dim = dyn_cast<gpu::ParallelLoopDimMappingAttr>(mapping[0]);
  return dim && dim.getProcessor() == processor;
}

/// Replaces the block loop `blocks` (with one thread loop inside) by a
/// gpu.launch running the same code per block and thread.
LogicalResult convertToLaunch(IRRewriter &rewriter, scf::ParallelOp blocks) {
  Location loc = blocks.getLoc();
  scf::ParallelOp threads;
  for (Operation &op : blocks.getBody()->without_terminator())
    if (auto loop = dyn_cast<scf::ParallelOp>(op))
      if (isMappedTo(loop, gpu::Processor::ThreadX)) {
        if (threads)
          return blocks.emitError("expected one thread loop per block loop");
        threads = loop;
      }
  if (!threads)
    return blocks.emitError("block loop without a thread-mapped loop");
  auto isZero = [](Value v) { return getConstantIntValue(v) == 0; };
  auto isOne = [](Value v) { return getConstantIntValue(v) == 1; };
  if (!isZero(blocks.getLowerBound()[0]) || !isOne(blocks.getStep()[0]) ||
      !isZero(threads.getLowerBound()[0]) || !isOne(threads.getStep()[0]))
    return blocks.emitError("tiled loops must start at 0 with step 1");
  std::optional<int64_t> blockSize =
      getConstantIntValue(threads.getUpperBound()[0]);
  if (!blockSize)
    return blocks.emitError("the thread loop needs a constant trip count");

  rewriter.setInsertionPoint(blocks);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value blockDim = arith::ConstantIndexOp::create(rewriter, loc, *blockSize);
  auto launch = gpu::LaunchOp::create(rewriter, loc, blocks.getUpperBound()[0],
                                      one, one, blockDim, one, one);
  if (auto strategy = blocks->getAttr(kStrategyAttr))
    launch->setAttr(kStrategyAttr, strategy);

  Block &body = launch.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  IRMapping mapping;
  mapping.map(blocks.getInductionVars()[0], launch.getBlockIds().x);
  mapping.map(threads.getInductionVars()[0], launch.getThreadIds().x);
  for (Operation &op : blocks.getBody()->without_terminator()) {
    if (&op != threads.getOperation()) {
      rewriter.clone(op, mapping);
      continue;
    }
    for (Operation &inner : threads.getBody()->without_terminator())
      rewriter.clone(inner, mapping);
  }
  gpu::TerminatorOp::create(rewriter, loc);
  rewriter.eraseOp(blocks);
  return success();
}

/// Whether the kernel only reads `argument` (through loads, possibly of
/// views of it).
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
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> blockLoops;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (loop->hasAttr(kStrategyAttr) &&
          isMappedTo(loop, gpu::Processor::BlockX))
        blockLoops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : blockLoops)
      if (failed(convertToLaunch(rewriter, loop)))
        return signalPassFailure();

    OpPassManager outlining(ModuleOp::getOperationName());
    outlining.addPass(createGpuKernelOutliningPass());
    if (failed(runPipeline(outlining, getOperation())))
      return signalPassFailure();

    getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel())
        return;
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
