//===- Occupancy.cpp - Shared memory that caps resident blocks ------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// A kernel cannot declare "at most N resident blocks per multiprocessor"
// (PTX only has a minimum, .minnctapersm), but shared memory it does not use
// caps them as well as shared memory it does: pwOccupancySharedMemory sizes
// that padding for the current device, so one compiled kernel gets the same
// cap on devices with different shared memory.
//
//===----------------------------------------------------------------------===//

#include "Context.h"

#include "Pointwise/Runtime/Runtime.h"

#include <atomic>

using namespace pointwise::runtime;

namespace {

/// The shared memory limits of one device; 0 in perMultiprocessor until
/// read. Threads that race to fill an entry store the same values.
struct SharedMemoryLimits {
  std::atomic<int32_t> perMultiprocessor{0};
  std::atomic<int32_t> perBlockOptIn{0};
  std::atomic<int32_t> reservedPerBlock{0};
};

constexpr int kCachedDevices = 64;
SharedMemoryLimits cachedLimits[kCachedDevices];

/// Shared memory is allocated to blocks in units of this many bytes.
constexpr int64_t kAllocationUnit = 128;

/// The limits of `device`, read through `driver` on first use; false if the
/// driver cannot tell.
bool getLimits(const CudaDriver &driver, CUdevice device, int32_t &perSM,
               int32_t &perBlock, int32_t &reserved) {
  SharedMemoryLimits *cached =
      device >= 0 && device < kCachedDevices ? &cachedLimits[device] : nullptr;
  if (cached) {
    perSM = cached->perMultiprocessor.load(std::memory_order_acquire);
    if (perSM > 0) {
      perBlock = cached->perBlockOptIn.load(std::memory_order_relaxed);
      reserved = cached->reservedPerBlock.load(std::memory_order_relaxed);
      return true;
    }
  }
  int values[3] = {0, 0, 0};
  const int attributes[3] = {
      CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
      CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
      CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK};
  for (int i = 0; i < 3; ++i)
    if (driver.cuDeviceGetAttribute(&values[i], attributes[i], device) !=
            CUDA_SUCCESS ||
        values[i] < 0)
      return false;
  if (values[0] <= 0)
    return false;
  perSM = values[0];
  perBlock = values[1];
  reserved = values[2];
  if (cached) {
    cached->perBlockOptIn.store(perBlock, std::memory_order_relaxed);
    cached->reservedPerBlock.store(reserved, std::memory_order_relaxed);
    cached->perMultiprocessor.store(perSM, std::memory_order_release);
  }
  return true;
}

} // namespace

// The least padding that keeps N + 1 blocks out (docs/Performance.md, row
// `occupancy-padding`).
int32_t pwOccupancySharedMemory(int32_t staticBytes, int32_t blocksPerSM) {
  if (staticBytes < 0 || blocksPerSM <= 0)
    return 0;
  const CudaDriver *driver = nullptr;
  if (ensureContext("pwOccupancySharedMemory", driver) != PW_SUCCESS)
    return 0;
  CUdevice device = 0;
  int32_t perSM = 0, perBlock = 0, reserved = 0;
  if (driver->cuCtxGetDevice(&device) != CUDA_SUCCESS ||
      !getLimits(*driver, device, perSM, perBlock, reserved))
    return 0;
  // Each block holds its shared memory, rounded up to the allocation unit,
  // plus the reserved bytes. The smallest share that keeps blocksPerSM + 1
  // blocks from fitting: the driver then configures the least shared
  // memory (and so the most L1) that holds blocksPerSM of them
  // (docs/Performance.md, row `occupancy-padding`).
  int64_t share = int64_t(perSM) / (int64_t(blocksPerSM) + 1) - reserved + 1;
  share = (share + kAllocationUnit - 1) / kAllocationUnit * kAllocationUnit;
  if (perBlock > 0 && share > perBlock)
    share = perBlock;
  int64_t padding = share - staticBytes;
  return padding > 0 ? static_cast<int32_t>(padding) : 0;
}
