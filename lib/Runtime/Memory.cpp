//===- Memory.cpp - Device memory of the C API ----------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Copies and sets run on the calling thread's current stream, so that they are
// ordered after the kernels compiled code launched there, and wait for it, so
// that they are complete (and host buffers reusable) when they return.
//
//===----------------------------------------------------------------------===//

#include "Context.h"
#include "ErrorState.h"

#include <cstdint>

using namespace pointwise::runtime;

static CUdeviceptr devicePointer(const void *pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

/// Copies `bytes` from `from` to `to` on the current stream and waits.
static pwStatus copySynchronously(void *to, const void *from, size_t bytes,
                                  const char *caller) {
  if (bytes == 0)
    return PW_SUCCESS;
  if (!to)
    return recordNullArgument(caller, "to");
  if (!from)
    return recordNullArgument(caller, "from");
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext(caller, driver))
    return status;
  CUstream stream = reinterpret_cast<CUstream>(pwGetStream());
  if (pwStatus status =
          checkCuda(driver->cuMemcpyAsync(devicePointer(to),
                                          devicePointer(from), bytes, stream),
                    caller, "cuMemcpyAsync"))
    return status;
  return checkCuda(driver->cuStreamSynchronize(stream), caller,
                   "cuStreamSynchronize");
}

pwStatus pwMalloc(void **pointer, size_t bytes) {
  if (!pointer)
    return recordNullArgument("pwMalloc", "pointer");
  *pointer = nullptr;
  if (bytes == 0)
    return PW_SUCCESS;
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwMalloc", driver))
    return status;
  CUdeviceptr allocation = 0;
  if (pwStatus status = checkCuda(driver->cuMemAlloc(&allocation, bytes),
                                  "pwMalloc", "cuMemAlloc"))
    return status;
  *pointer = reinterpret_cast<void *>(static_cast<uintptr_t>(allocation));
  return PW_SUCCESS;
}

pwStatus pwFree(void *pointer) {
  if (!pointer)
    return PW_SUCCESS;
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwFree", driver))
    return status;
  return checkCuda(driver->cuMemFree(devicePointer(pointer)), "pwFree",
                   "cuMemFree");
}

pwStatus pwMemcpyHostToDevice(void *device, const void *host, size_t bytes) {
  return copySynchronously(device, host, bytes, "pwMemcpyHostToDevice");
}

pwStatus pwMemcpyDeviceToHost(void *host, const void *device, size_t bytes) {
  return copySynchronously(host, device, bytes, "pwMemcpyDeviceToHost");
}

pwStatus pwMemcpyDeviceToDevice(void *to, const void *from, size_t bytes) {
  return copySynchronously(to, from, bytes, "pwMemcpyDeviceToDevice");
}

pwStatus pwMemsetBytes(void *device, unsigned char value, size_t bytes) {
  if (bytes == 0)
    return PW_SUCCESS;
  if (!device)
    return recordNullArgument("pwMemsetBytes", "device");
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwMemsetBytes", driver))
    return status;
  CUstream stream = reinterpret_cast<CUstream>(pwGetStream());
  if (pwStatus status = checkCuda(
          driver->cuMemsetD8Async(devicePointer(device), value, bytes, stream),
          "pwMemsetBytes", "cuMemsetD8Async"))
    return status;
  return checkCuda(driver->cuStreamSynchronize(stream), "pwMemsetBytes",
                   "cuStreamSynchronize");
}
