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
#include <new>

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

LazyModule::~LazyModule() {
  ContextModule *loaded = contexts.load(std::memory_order_acquire);
  while (loaded) {
    ContextModule *next = loaded->next;
    delete loaded;
    loaded = next;
  }
}

pwStatus LazyModule::loadInto(const ContextIdentity &context,
                              const char *caller, ContextModule *&loaded) {
  if ((loaded = findLoaded(context)))
    return PW_SUCCESS;
  std::lock_guard<std::mutex> lock(mutex);
  if ((loaded = findLoaded(context)))
    return PW_SUCCESS;
  const CudaDriver *driver = getLoadedCudaDriver();
  if (!driver)
    return recordError(PW_ERROR_NO_DRIVER,
                       std::string(caller) + ": the CUDA driver is not loaded");

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
  CUmodule module = nullptr;
  CUresult result =
      driver->cuModuleLoadDataEx(&module, data, numOptions, options, values);
  if (result != CUDA_SUCCESS) {
    std::string message = std::string(caller) + ": " +
                          describeCudaError("cuModuleLoadData", result);
    log[sizeof(log) - 1] = '\0';
    if (log[0])
      message += std::string("\n") + log;
    return recordError(statusOfCudaError(result), message);
  }
  auto *added = new (std::nothrow)
      ContextModule(context, module, contexts.load(std::memory_order_relaxed));
  if (!added) {
    driver->cuModuleUnload(module);
    return recordError(PW_ERROR_OUT_OF_MEMORY,
                       std::string(caller) + ": out of memory");
  }
  contexts.store(added, std::memory_order_release);
  loaded = added;
  return PW_SUCCESS;
}

pwStatus LazyModule::load(const ContextIdentity &context, const char *caller) {
  ContextModule *loaded = nullptr;
  return loadInto(context, caller, loaded);
}

pwStatus LazyModule::resolveFunction(const ContextIdentity &context,
                                     const char *name, const char *caller,
                                     CUfunction &function) {
  function = nullptr;
  ContextModule *loaded = nullptr;
  if (pwStatus status = loadInto(context, caller, loaded))
    return status;
  CUresult result = getLoadedCudaDriver()->cuModuleGetFunction(
      &function, loaded->module, name);
  if (result == CUDA_SUCCESS)
    return PW_SUCCESS;
  function = nullptr;
  return recordError(statusOfCudaError(result),
                     std::string(caller) + ": kernel `" + name + "`: " +
                         describeCudaError("cuModuleGetFunction", result));
}

pwStatus LazyModule::getFunction(const ContextIdentity &context,
                                 const char *name, const char *caller,
                                 CUfunction &function) {
  if ((function = findCachedFunction(context, name)))
    return PW_SUCCESS;
  ContextModule *loaded = nullptr;
  if (pwStatus status = loadInto(context, caller, loaded))
    return status;
  std::lock_guard<std::mutex> lock(mutex);
  if ((function = loaded->findCachedFunction(name)))
    return PW_SUCCESS;
  for (const auto &[overflowName, overflowFunction] : loaded->overflow)
    if (overflowName == name) {
      function = overflowFunction;
      return PW_SUCCESS;
    }
  CUresult result = getLoadedCudaDriver()->cuModuleGetFunction(
      &function, loaded->module, name);
  if (result != CUDA_SUCCESS) {
    function = nullptr;
    return recordError(statusOfCudaError(result),
                       std::string(caller) + ": kernel `" + name + "`: " +
                           describeCudaError("cuModuleGetFunction", result));
  }
  unsigned count = loaded->numCached.load(std::memory_order_relaxed);
  if (count < kCacheCapacity) {
    loaded->cached[count] = {name, function};
    loaded->numCached.store(count + 1, std::memory_order_release);
  } else {
    loaded->overflow.emplace_back(name, function);
  }
  return PW_SUCCESS;
}

pwStatus LazyModule::unload(const char *caller) {
  ContextModule *loaded = contexts.exchange(nullptr, std::memory_order_acq_rel);
  lastUsed.store(nullptr, std::memory_order_release);
  const CudaDriver *driver = getLoadedCudaDriver();
  pwStatus status = PW_SUCCESS;
  // Reports the first failure; the other modules are unloaded all the same.
  auto check = [&](CUresult result, const char *call) {
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED &&
        status == PW_SUCCESS)
      status = checkCuda(result, caller, call);
    return result == CUDA_SUCCESS;
  };
  CUcontext current = nullptr;
  bool knowCurrent =
      loaded && driver &&
      check(driver->cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  CUcontext made = current;
  while (loaded) {
    // The driver unloads a module from the current context. A context
    // destroyed since took its modules with it, and its handle may be a new
    // context's now, which must not be asked to unload them.
    if (knowCurrent && isAlive(*driver, loaded->context) &&
        (loaded->context.handle == made ||
         check(driver->cuCtxSetCurrent(loaded->context.handle),
               "cuCtxSetCurrent"))) {
      made = loaded->context.handle;
      check(driver->cuModuleUnload(loaded->module), "cuModuleUnload");
    }
    ContextModule *next = loaded->next;
    delete loaded;
    loaded = next;
  }
  if (knowCurrent && made != current)
    check(driver->cuCtxSetCurrent(current), "cuCtxSetCurrent");
  return status;
}

pwStatus pointwise::runtime::launchKernel(
    CUfunction function, const int64_t grid[3], const int64_t block[3],
    unsigned sharedMemoryBytes, CUstream stream, void **parameters,
    void **extra, const char *caller, const CudaDriver *checkedDriver) {
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
  const CudaDriver *driver = checkedDriver;
  if (!driver)
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
  const CudaDriver *driver = nullptr;
  ContextIdentity context;
  if (pwStatus status = ensureContext("pwModuleLoad", driver, context))
    return status;
  auto *loaded = new LazyModule(image, size, /*optimizationLevel=*/-1);
  if (pwStatus status = loaded->load(context, "pwModuleLoad")) {
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
  const CudaDriver *driver = nullptr;
  ContextIdentity context;
  if (pwStatus status = ensureContext("pwModuleGetFunction", driver, context))
    return status;
  CUfunction resolved = nullptr;
  if (pwStatus status = reinterpret_cast<LazyModule *>(module)->resolveFunction(
          context, name, "pwModuleGetFunction", resolved))
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
