//===- PlaceBuffersOnDevice.cpp - pw-place-buffers-on-device --------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Under pw-gpu-pipeline a function's own code runs on the host and its maps
// on the GPU: the buffers it allocates become GPU allocations, its copies
// become copying maps, and host code that would dereference GPU memory is
// rejected before anything is lowered.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/IR/PointwiseOps.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace pointwise {
#define GEN_PASS_DEF_PLACEBUFFERSONDEVICEPASS
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

/// The memref whose elements `op` reads or writes, or nothing when it
/// touches no element of a buffer.
std::optional<Value> findHostAccess(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return std::nullopt;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  for (const MemoryEffects::EffectInstance &instance : instances) {
    if (!isa<MemoryEffects::Read, MemoryEffects::Write>(instance.getEffect()))
      continue;
    Value value = instance.getValue();
    if (value && isa<BaseMemRefType>(value.getType()))
      return value;
  }
  return std::nullopt;
}

/// Ends the async `token` of the op just created with a `gpu.wait`.
void waitFor(OpBuilder &builder, Location loc, Value token) {
  gpu::WaitOp::create(builder, loc, /*asyncToken=*/Type(), ValueRange{token});
}

/// A fresh stream's token: `gpu.wait async`.
Value createStreamToken(OpBuilder &builder, Location loc) {
  return gpu::WaitOp::create(
             builder, loc, builder.getType<gpu::AsyncTokenType>(), ValueRange{})
      .getAsyncToken();
}

LogicalResult placeAllocation(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (!type.getLayout().isIdentity())
    return alloc.emitOpError()
           << "allocates a " << type
           << " with a layout; pw-gpu-pipeline allocates GPU buffers of "
              "identity layout only (allocate the identity type and take a "
              "view of it)";
  if (type.getMemorySpace())
    return alloc.emitOpError()
           << "allocates in memory space " << type.getMemorySpace()
           << "; pw-gpu-pipeline places every buffer of host code in the "
              "GPU's global memory (the default memory space)";
  OpBuilder builder(alloc);
  Location loc = alloc.getLoc();
  Value token = createStreamToken(builder, loc);
  auto device = gpu::AllocOp::create(
      builder, loc, type, builder.getType<gpu::AsyncTokenType>(),
      ValueRange{token}, alloc.getDynamicSizes(), alloc.getSymbolOperands(),
      /*hostShared=*/false);
  waitFor(builder, loc, device.getAsyncToken());
  alloc.getResult().replaceAllUsesWith(device.getMemref());
  alloc.erase();
  return success();
}

void placeDeallocation(memref::DeallocOp dealloc) {
  OpBuilder builder(dealloc);
  Location loc = dealloc.getLoc();
  Value token = createStreamToken(builder, loc);
  auto device = gpu::DeallocOp::create(builder, loc,
                                       builder.getType<gpu::AsyncTokenType>(),
                                       ValueRange{token}, dealloc.getMemref());
  waitFor(builder, loc, device.getAsyncToken());
  dealloc.erase();
}

/// `memref.copy %from, %to` as the map that copies each element.
void replaceCopyWithMap(memref::CopyOp copy) {
  OpBuilder builder(copy);
  MapOp::create(builder, copy.getLoc(), ValueRange{copy.getSource()},
                ValueRange{copy.getTarget()},
                [](OpBuilder &body, Location loc, ValueRange elements) {
                  YieldOp::create(body, loc, elements);
                });
  copy.erase();
}

struct PlaceBuffersOnDevicePass
    : pointwise::impl::PlaceBuffersOnDevicePassBase<PlaceBuffersOnDevicePass> {
  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    SmallVector<memref::CopyOp> copies;
    bool failed = false;
    auto reject = [&](Operation *op) {
      failed = true;
      return op->emitOpError();
    };
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Kernels and map bodies run on the GPU; only host code is placed.
      if (isa<gpu::GPUModuleOp, gpu::LaunchOp, MapOp>(op))
        return WalkResult::skip();
      if (!op->getParentOfType<FunctionOpInterface>())
        return WalkResult::advance();
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        allocs.push_back(alloc);
      else if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        deallocs.push_back(dealloc);
      else if (auto copy = dyn_cast<memref::CopyOp>(op))
        copies.push_back(copy);
      else if (isa<memref::AllocaOp>(op))
        reject(op) << "allocates host stack memory; under pw-gpu-pipeline "
                      "maps run on the GPU, which cannot read it (use "
                      "memref.alloc, which the pipeline allocates on the GPU)";
      else if (isa<memref::GetGlobalOp>(op))
        reject(op) << "reads a host global (constant tensors become one); "
                      "under pw-gpu-pipeline maps run on the GPU, which cannot "
                      "read it: pass the values as an argument, or as scalars";
      else if (std::optional<Value> buffer = findHostAccess(op))
        reject(op) << "reads or writes the elements of a " << buffer->getType()
                   << " on the host; under pw-gpu-pipeline the buffers of "
                      "host code are GPU memory, which only maps may read and "
                      "write (write the computation as a pointwise.map)";
      return WalkResult::advance();
    });
    if (failed)
      return signalPassFailure();
    for (memref::AllocOp alloc : allocs)
      if (mlir::failed(placeAllocation(alloc)))
        return signalPassFailure();
    for (memref::DeallocOp dealloc : deallocs)
      placeDeallocation(dealloc);
    for (memref::CopyOp copy : copies)
      replaceCopyWithMap(copy);
  }
};

} // namespace
