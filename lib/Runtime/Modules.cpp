//===- Modules.cpp - Lazily loaded GPU modules and kernel launches --------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Modules.h"

#include "Context.h"
#include "ErrorState.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace pointwise::runtime;

namespace {
/// The dynamic shared memory a kernel may use without opting in.
constexpr unsigned kDefaultSharedMemoryLimit = 48 * 1024;

/// Whether `image` starts like a cubin (ELF) or a fatbin; anything else is
/// taken for PTX text, which the driver wants NUL-terminated.
bool isBinaryImage(const void *image, size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(image);
  static const unsigned char elfMagic[] = {0x7f, 'E', 'L', 'F'};
  static const unsigned char fatbinMagic[] = {0x50, 0xed, 0x55, 0xba};
  return size >= 4 && (std::memcmp(bytes, elfMagic, 4) == 0 ||
                       std::memcmp(bytes, fatbinMagic, 4) == 0);
}
} // namespace

pwStatus LazyModule::load(const char *caller) {
  if (module.load(std::memory_order_acquire))
    return PW_SUCCESS;
  std::lock_guard<std::mutex> lock(loadMutex);
  if (module.load(std::memory_order_relaxed))
    return PW_SUCCESS;
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext(caller, driver))
    return status;

  const void *data = image;
  std::string terminated;
  if (size != 0 && !isBinaryImage(image, size) &&
      static_cast<const char *>(image)[size - 1] != '\0') {
    terminated.assign(static_cast<const char *>(image), size);
    data = terminated.c_str();
  }
  char log[4096] = {};
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {
      log, reinterpret_cast<void *>(sizeof(log)),
      reinterpret_cast<void *>(static_cast<intptr_t>(optimizationLevel))};
  unsigned numOptions = optimizationLevel >= 0 ? 3 : 2;
  CUmodule loaded = nullptr;
  CUresult result =
      driver->cuModuleLoadDataEx(&loaded, data, numOptions, options, values);
  if (result != CUDA_SUCCESS) {
    std::string message = std::string(caller) + ": " +
                          describeCudaError("cuModuleLoadData", result);
    log[sizeof(log) - 1] = '\0';
    if (log[0])
      message += std::string("\n") + log;
    return recordError(statusOfCudaError(result), message);
  }
  module.store(loaded, std::memory_order_release);
  return PW_SUCCESS;
}

pwStatus LazyModule::resolveFunction(const char *name, const char *caller,
                                     CUfunction &function) {
  function = nullptr;
  if (pwStatus status = load(caller))
    return status;
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext(caller, driver))
    return status;
  CUresult result = driver->cuModuleGetFunction(
      &function, module.load(std::memory_order_acquire), name);
  if (result == CUDA_SUCCESS)
    return PW_SUCCESS;
  function = nullptr;
  return recordError(statusOfCudaError(result),
                     std::string(caller) + ": kernel `" + name + "`: " +
                         describeCudaError("cuModuleGetFunction", result));
}

pwStatus LazyModule::getFunction(const char *name, const char *caller,
                                 CUfunction &function) {
  if ((function = findCachedFunction(name)))
    return PW_SUCCESS;
  std::lock_guard<std::mutex> lock(cacheMutex);
  if ((function = findCachedFunction(name)))
    return PW_SUCCESS;
  for (const auto &[overflowName, overflowFunction] : overflow)
    if (overflowName == name) {
      function = overflowFunction;
      return PW_SUCCESS;
    }
  if (pwStatus status = resolveFunction(name, caller, function))
    return status;
  unsigned count = numCached.load(std::memory_order_relaxed);
  if (count < kCacheCapacity) {
    cached[count] = {name, function};
    numCached.store(count + 1, std::memory_order_release);
  } else {
    overflow.emplace_back(name, function);
  }
  return PW_SUCCESS;
}

pwStatus LazyModule::unload(const char *caller) {
  CUmodule loaded = module.exchange(nullptr, std::memory_order_acq_rel);
  const CudaDriver *driver = getLoadedCudaDriver();
  if (!loaded || !driver)
    return PW_SUCCESS;
  CUresult result = driver->cuModuleUnload(loaded);
  if (result == CUDA_ERROR_DEINITIALIZED)
    return PW_SUCCESS;
  return checkCuda(result, caller, "cuModuleUnload");
}

pwStatus pointwise::runtime::launchKernel(CUfunction function,
                                          const int64_t grid[3],
                                          const int64_t block[3],
                                          unsigned sharedMemoryBytes,
                                          CUstream stream, void **parameters,
                                          void **extra, const char *caller) {
  if (!function)
    return recordNullArgument(caller, "function");
  constexpr int64_t kMaxDim = std::numeric_limits<unsigned>::max();
  for (int d = 0; d < 3; ++d)
    if (grid[d] < 1 || grid[d] > kMaxDim || block[d] < 1 || block[d] > kMaxDim)
      return recordError(
          PW_ERROR_INVALID_VALUE,
          std::string(caller) + ": grid (" + std::to_string(grid[0]) + ", " +
              std::to_string(grid[1]) + ", " + std::to_string(grid[2]) +
              ") and block (" + std::to_string(block[0]) + ", " +
              std::to_string(block[1]) + ", " + std::to_string(block[2]) +
              ") must have dims in [1, 2^32)");
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext(caller, driver))
    return status;
  // Above 48 KiB of shared memory per block, static and dynamic together,
  // the function must opt in to its dynamic part.
  if (sharedMemoryBytes > 0) {
    uint64_t total = sharedMemoryBytes;
    if (total <= kDefaultSharedMemoryLimit) {
      int staticBytes = 0;
      if (pwStatus status = checkCuda(
              driver->cuFuncGetAttribute(
                  &staticBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function),
              caller, "cuFuncGetAttribute"))
        return status;
      total += static_cast<uint64_t>(std::max(staticBytes, 0));
    }
    if (total > kDefaultSharedMemoryLimit)
      if (pwStatus status = checkCuda(
              driver->cuFuncSetAttribute(
                  function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                  static_cast<int>(sharedMemoryBytes)),
              caller, "cuFuncSetAttribute"))
        return status;
  }
  return checkCuda(
      driver->cuLaunchKernel(
          function, static_cast<unsigned>(grid[0]),
          static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]),
          static_cast<unsigned>(block[0]), static_cast<unsigned>(block[1]),
          static_cast<unsigned>(block[2]), sharedMemoryBytes, stream,
          parameters, extra),
      caller, "cuLaunchKernel");
}

pwStatus pwModuleLoad(pwModule *module, const void *image, size_t size) {
  if (!module)
    return recordNullArgument("pwModuleLoad", "module");
  *module = nullptr;
  if (!image)
    return recordNullArgument("pwModuleLoad", "image");
  if (size == 0)
    return recordError(PW_ERROR_INVALID_VALUE, "pwModuleLoad: `size` is 0");
  auto *loaded = new LazyModule(image, size, /*optimizationLevel=*/-1);
  if (pwStatus status = loaded->load("pwModuleLoad")) {
    delete loaded;
    return status;
  }
  *module = reinterpret_cast<pwModule>(loaded);
  return PW_SUCCESS;
}

pwStatus pwModuleUnload(pwModule module) {
  if (!module)
    return recordNullArgument("pwModuleUnload", "module");
  auto *loaded = reinterpret_cast<LazyModule *>(module);
  pwStatus status = loaded->unload("pwModuleUnload");
  delete loaded;
  return status;
}

pwStatus pwModuleGetFunction(pwFunction *function, pwModule module,
                             const char *name) {
  if (!function)
    return recordNullArgument("pwModuleGetFunction", "function");
  *function = nullptr;
  if (!module)
    return recordNullArgument("pwModuleGetFunction", "module");
  if (!name)
    return recordNullArgument("pwModuleGetFunction", "name");
  CUfunction resolved = nullptr;
  if (pwStatus status = reinterpret_cast<LazyModule *>(module)->resolveFunction(
          name, "pwModuleGetFunction", resolved))
    return status;
  *function = reinterpret_cast<pwFunction>(resolved);
  return PW_SUCCESS;
}

pwStatus pwLaunchKernel(pwFunction function, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned sharedMemoryBytes,
                        pwStream stream, void **parameters) {
  const int64_t grid[3] = {gridX, gridY, gridZ};
  const int64_t block[3] = {blockX, blockY, blockZ};
  return launchKernel(reinterpret_cast<CUfunction>(function), grid, block,
                      sharedMemoryBytes, reinterpret_cast<CUstream>(stream),
                      parameters, /*extra=*/nullptr, "pwLaunchKernel");
}
