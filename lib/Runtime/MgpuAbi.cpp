//===- MgpuAbi.cpp - The host ABI of MLIR's gpu-to-llvm lowering ----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "MgpuAbi.h"

#include "Context.h"
#include "ErrorState.h"
#include "MemoryPool.h"
#include "Modules.h"

#include "Pointwise/Layout/OffsetRange.h"

#include <new>

using namespace pointwise::runtime;

namespace {
/// The function mgpuModuleGetFunction returned last on this thread, right
/// after making sure its context is current, and the driver. Generated code
/// launches it right away (gpu-to-llvm emits the lookup, then the launch;
/// the synchronous pipeline creates a stream in between, which checks the
/// context itself), so the first launch after the lookup does not check the
/// context again: a context switched or popped in between, as only
/// hand-written callers could, makes the driver reject the launch, which is
/// reported as any launch error (docs/Performance.md, row
/// `dispatch-key-launched-variant`).
struct ResolvedFunction {
  CUfunction function;
  const CudaDriver *driver;
};
thread_local ResolvedFunction lastResolved;

CUstream toStream(void *stream) { return static_cast<CUstream>(stream); }
CUevent toEvent(void *event) { return static_cast<CUevent>(event); }
CUdeviceptr toDevicePointer(void *pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

/// Makes a context current for `caller`, or records the pending error.
const CudaDriver *driverWithContext(const char *caller) {
  const CudaDriver *driver = nullptr;
  if (recordPendingError(ensureContext(caller, driver)))
    return nullptr;
  return driver;
}

/// Records a failed driver call as the pending error.
void checkPending(CUresult result, const char *caller, const char *call) {
  recordPendingError(checkCuda(result, caller, call));
}

void *newModule(void *data, size_t size, int optimizationLevel,
                const char *caller) {
  if (!data) {
    recordPendingError(recordNullArgument(caller, "data"));
    return nullptr;
  }
  auto *module = new (std::nothrow) LazyModule(data, size, optimizationLevel);
  if (!module)
    recordPendingError(recordError(PW_ERROR_OUT_OF_MEMORY,
                                   std::string(caller) + ": out of memory"));
  return module;
}

/// The host bytes [start, start + bytes) that the memref `descriptor` of rank
/// `rank` spans; 0 bytes when it is empty.
pwStatus getHostRange(int64_t rank, void *descriptor, int64_t elementSize,
                      const char *caller, char *&start, size_t &bytes) {
  start = nullptr;
  bytes = 0;
  if (!descriptor)
    return recordNullArgument(caller, "descriptor");
  if (rank < 0 || elementSize <= 0)
    return recordError(PW_ERROR_INVALID_VALUE,
                       std::string(caller) + ": rank " + std::to_string(rank) +
                           " or element size " + std::to_string(elementSize) +
                           " is invalid");
  const auto *memref = static_cast<const pwMemRefDescriptor *>(descriptor);
  const auto *sizes = reinterpret_cast<const int64_t *>(memref + 1);
  pointwise::layout::StridedLayout layout{
      {sizes, sizes + rank}, {sizes + rank, sizes + 2 * rank}, memref->offset};
  // Checks every size before looking for a 0, so that [0, -3] is an error.
  auto range = pointwise::layout::computeElementOffsetRange(layout);
  if (!range)
    return recordError(PW_ERROR_LAYOUT,
                       std::string(caller) + ": " + range.error());
  for (int64_t size : layout.sizes)
    if (size == 0)
      return PW_SUCCESS;
  int64_t firstByte = 0, extent = 0, extentBytes = 0;
  if (__builtin_mul_overflow(range->first, elementSize, &firstByte) ||
      __builtin_sub_overflow(range->last, range->first, &extent) ||
      __builtin_add_overflow(extent, 1, &extent) ||
      __builtin_mul_overflow(extent, elementSize, &extentBytes))
    return recordError(PW_ERROR_LAYOUT,
                       std::string(caller) +
                           ": the memref spans more than the address space");
  start = static_cast<char *>(memref->aligned) + firstByte;
  bytes = static_cast<size_t>(extentBytes);
  return PW_SUCCESS;
}
} // namespace

void *mgpuModuleLoad(void *data, size_t size) {
  return newModule(data, size, /*optimizationLevel=*/-1, "mgpuModuleLoad");
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  return newModule(data, /*size=*/0, optLevel < 0 ? 0 : optLevel,
                   "mgpuModuleLoadJIT");
}

void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  auto *lazy = static_cast<LazyModule *>(module);
  recordPendingError(lazy->unload("mgpuModuleUnload"));
  delete lazy;
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module || !name) {
    recordPendingError(recordNullArgument("mgpuModuleGetFunction",
                                          !module ? "module" : "name"));
    return nullptr;
  }
  // The function must be the one of the context the launch that follows
  // runs in: the context its own ensureContext will find current.
  const CudaDriver *driver = nullptr;
  ContextIdentity context;
  if (recordPendingError(
          ensureContext("mgpuModuleGetFunction", driver, context)))
    return nullptr;
  auto *lazy = static_cast<LazyModule *>(module);
  CUfunction function = lazy->findCachedFunction(context, name);
  if (!function)
    recordPendingError(
        lazy->getFunction(context, name, "mgpuModuleGetFunction", function));
  lastResolved = {function, driver};
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemoryBytes, void *stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  ResolvedFunction &resolved = lastResolved;
  const CudaDriver *checkedDriver =
      resolved.function == function ? resolved.driver : nullptr;
  resolved = {};
  if (!function)
    return;
  if (sharedMemoryBytes < 0) {
    recordPendingError(
        recordError(PW_ERROR_INVALID_VALUE,
                    "mgpuLaunchKernel: negative shared memory size " +
                        std::to_string(sharedMemoryBytes)));
    return;
  }
  const int64_t grid[3] = {gridX, gridY, gridZ};
  const int64_t block[3] = {blockX, blockY, blockZ};
  recordPendingError(
      launchKernel(static_cast<CUfunction>(function), grid, block,
                   static_cast<unsigned>(sharedMemoryBytes), toStream(stream),
                   params, extra, "mgpuLaunchKernel", checkedDriver));
}

void *mgpuStreamCreate() {
  const CudaDriver *driver = driverWithContext("mgpuStreamCreate");
  if (!driver)
    return nullptr;
  // Blocking, so that it waits for the legacy default stream's work.
  CUstream stream = nullptr;
  checkPending(driver->cuStreamCreate(&stream, CU_STREAM_DEFAULT),
               "mgpuStreamCreate", "cuStreamCreate");
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  if (const CudaDriver *driver = driverWithContext("mgpuStreamDestroy"))
    checkPending(driver->cuStreamDestroy(toStream(stream)), "mgpuStreamDestroy",
                 "cuStreamDestroy");
}

void mgpuStreamSynchronize(void *stream) {
  if (const CudaDriver *driver = driverWithContext("mgpuStreamSynchronize"))
    checkPending(driver->cuStreamSynchronize(toStream(stream)),
                 "mgpuStreamSynchronize", "cuStreamSynchronize");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  if (const CudaDriver *driver = driverWithContext("mgpuStreamWaitEvent"))
    checkPending(driver->cuStreamWaitEvent(toStream(stream), toEvent(event), 0),
                 "mgpuStreamWaitEvent", "cuStreamWaitEvent");
}

void *mgpuEventCreate() {
  const CudaDriver *driver = driverWithContext("mgpuEventCreate");
  if (!driver)
    return nullptr;
  CUevent event = nullptr;
  checkPending(driver->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
               "mgpuEventCreate", "cuEventCreate");
  return event;
}

void mgpuEventDestroy(void *event) {
  if (const CudaDriver *driver = driverWithContext("mgpuEventDestroy"))
    checkPending(driver->cuEventDestroy(toEvent(event)), "mgpuEventDestroy",
                 "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  if (const CudaDriver *driver = driverWithContext("mgpuEventSynchronize"))
    checkPending(driver->cuEventSynchronize(toEvent(event)),
                 "mgpuEventSynchronize", "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  if (const CudaDriver *driver = driverWithContext("mgpuEventRecord"))
    checkPending(driver->cuEventRecord(toEvent(event), toStream(stream)),
                 "mgpuEventRecord", "cuEventRecord");
}

namespace {

/// mgpuMemAlloc and pwMemAllocOnStream: stream-ordered on `stream` when
/// `ordered` (null being the legacy default stream), else synchronous.
void *allocate(uint64_t sizeBytes, void *stream, bool isHostShared,
               bool ordered, const char *caller) {
  const CudaDriver *driver = driverWithContext(caller);
  if (!driver || sizeBytes == 0)
    return nullptr;
  CUdeviceptr pointer = 0;
  if (isHostShared)
    checkPending(
        driver->cuMemAllocManaged(&pointer, sizeBytes, CU_MEM_ATTACH_GLOBAL),
        caller, "cuMemAllocManaged");
  else if (CUmemoryPool pool = ordered ? getDevicePool(*driver) : nullptr)
    // Ordered on the stream of the launches that use it: no synchronization,
    // and the runtime's pool reuses memory freed earlier, across
    // synchronizations (MemoryPool.h).
    checkPending(driver->cuMemAllocFromPoolAsync(&pointer, sizeBytes, pool,
                                                 toStream(stream)),
                 caller, "cuMemAllocFromPoolAsync");
  else if (ordered && driver->cuMemAllocAsync)
    checkPending(driver->cuMemAllocAsync(&pointer, sizeBytes, toStream(stream)),
                 caller, "cuMemAllocAsync");
  else
    checkPending(driver->cuMemAlloc(&pointer, sizeBytes), caller, "cuMemAlloc");
  return reinterpret_cast<void *>(static_cast<uintptr_t>(pointer));
}

/// mgpuMemFree and pwMemFreeOnStream, as allocate.
void release(void *pointer, void *stream, bool ordered, const char *caller) {
  if (!pointer)
    return;
  const CudaDriver *driver = driverWithContext(caller);
  if (!driver)
    return;
  if (ordered && driver->cuMemFreeAsync)
    checkPending(
        driver->cuMemFreeAsync(toDevicePointer(pointer), toStream(stream)),
        caller, "cuMemFreeAsync");
  else
    checkPending(driver->cuMemFree(toDevicePointer(pointer)), caller,
                 "cuMemFree");
}

} // namespace

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  return allocate(sizeBytes, stream, isHostShared, stream != nullptr,
                  "mgpuMemAlloc");
}

void mgpuMemFree(void *pointer, void *stream) {
  release(pointer, stream, stream != nullptr, "mgpuMemFree");
}

void *pwMemAllocOnStream(uint64_t sizeBytes, void *stream, bool isHostShared) {
  return allocate(sizeBytes, stream, isHostShared, /*ordered=*/true,
                  "pwMemAllocOnStream");
}

void pwMemFreeOnStream(void *pointer, void *stream) {
  release(pointer, stream, /*ordered=*/true, "pwMemFreeOnStream");
}

void mgpuMemcpy(void *to, void *from, size_t sizeBytes, void *stream) {
  if (sizeBytes == 0)
    return;
  if (const CudaDriver *driver = driverWithContext("mgpuMemcpy"))
    checkPending(driver->cuMemcpyAsync(toDevicePointer(to),
                                       toDevicePointer(from), sizeBytes,
                                       toStream(stream)),
                 "mgpuMemcpy", "cuMemcpyAsync");
}

void mgpuMemset32(void *to, uint32_t value, size_t count, void *stream) {
  if (count == 0)
    return;
  if (const CudaDriver *driver = driverWithContext("mgpuMemset32"))
    checkPending(driver->cuMemsetD32Async(toDevicePointer(to), value, count,
                                          toStream(stream)),
                 "mgpuMemset32", "cuMemsetD32Async");
}

void mgpuMemset16(void *to, uint16_t value, size_t count, void *stream) {
  if (count == 0)
    return;
  if (const CudaDriver *driver = driverWithContext("mgpuMemset16"))
    checkPending(driver->cuMemsetD16Async(toDevicePointer(to), value, count,
                                          toStream(stream)),
                 "mgpuMemset16", "cuMemsetD16Async");
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  const char *caller = "mgpuMemHostRegisterMemRef";
  char *start = nullptr;
  size_t bytes = 0;
  if (recordPendingError(getHostRange(rank, descriptor, elementSizeBytes,
                                      caller, start, bytes)) ||
      bytes == 0)
    return;
  if (const CudaDriver *driver = driverWithContext(caller))
    checkPending(driver->cuMemHostRegister(start, bytes, 0), caller,
                 "cuMemHostRegister");
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  const char *caller = "mgpuMemHostUnregisterMemRef";
  char *start = nullptr;
  size_t bytes = 0;
  if (recordPendingError(getHostRange(rank, descriptor, elementSizeBytes,
                                      caller, start, bytes)) ||
      bytes == 0)
    return;
  if (const CudaDriver *driver = driverWithContext(caller))
    checkPending(driver->cuMemHostUnregister(start), caller,
                 "cuMemHostUnregister");
}

void mgpuSetDefaultDevice(int32_t device) {
  recordPendingError(selectDevice(device, "mgpuSetDefaultDevice"));
}
