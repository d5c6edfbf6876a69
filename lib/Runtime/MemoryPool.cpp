//===- MemoryPool.cpp - The runtime's stream-ordered memory pools ---------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "MemoryPool.h"

#include "Context.h"
#include "ErrorState.h"

#include <cstdint>
#include <map>
#include <mutex>

using namespace pointwise::runtime;

namespace {

/// The pools made so far, by device; null for a device whose pool could
/// not be made, so that it is not tried again. Pools live as long as the
/// process.
struct Pools {
  std::mutex mutex;
  std::map<CUdevice, CUmemoryPool> byDevice;
};

Pools &pools() {
  static Pools *instance = new Pools; // never destroyed: used at exit
  return *instance;
}

CUmemoryPool createPool(const CudaDriver &driver, CUdevice device) {
  CUmemPoolProps props = {};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = device;
  CUmemoryPool pool = nullptr;
  if (driver.cuMemPoolCreate(&pool, &props) != CUDA_SUCCESS)
    return nullptr;
  uint64_t keepEverything = UINT64_MAX;
  // A pool that would give its memory back at each synchronization is no
  // better than the default one; the allocation still succeeds there.
  if (driver.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                   &keepEverything) != CUDA_SUCCESS)
    return nullptr;
  return pool;
}

} // namespace

CUmemoryPool pointwise::runtime::getDevicePool(const CudaDriver &driver) {
  if (!driver.cuMemPoolCreate)
    return nullptr;
  CUdevice device = 0;
  if (driver.cuCtxGetDevice(&device) != CUDA_SUCCESS)
    return nullptr;
  Pools &all = pools();
  std::lock_guard<std::mutex> lock(all.mutex);
  auto [entry, inserted] = all.byDevice.try_emplace(device, nullptr);
  if (inserted)
    entry->second = createPool(driver, device);
  return entry->second;
}

pwStatus pwReleaseCachedMemory(void) {
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwReleaseCachedMemory", driver))
    return status;
  Pools &all = pools();
  std::lock_guard<std::mutex> lock(all.mutex);
  for (auto [device, pool] : all.byDevice)
    if (pool)
      if (pwStatus status =
              checkCuda(driver->cuMemPoolTrimTo(pool, 0),
                        "pwReleaseCachedMemory", "cuMemPoolTrimTo"))
        return status;
  return PW_SUCCESS;
}
