//===- Modules.h - Lazily loaded GPU modules and kernel launches -*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// A compiled library registers its GPU binary from a global constructor
// (mgpuModuleLoad), possibly on a machine without a GPU, so registering only
// records the image. The CUmodule is loaded on first use, once, into the
// context current on the thread that first asks for a function.
//
// Compiled code asks for its kernel (mgpuModuleGetFunction) before every
// launch, with the address of a constant name string, so functions are cached
// per module by that address: the lookup is a few loads and compares.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_RUNTIME_MODULES_H
#define POINTWISE_LIB_RUNTIME_MODULES_H

#include "CudaDriver.h"

#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

namespace pointwise::runtime {

class LazyModule {
public:
  /// `image` is a cubin, a fatbin or PTX text; it must outlive the module.
  /// `size` 0 means NUL-terminated PTX. A non-negative `optimizationLevel` is
  /// passed to the PTX JIT (mgpuModuleLoadJIT).
  LazyModule(const void *image, size_t size, int optimizationLevel)
      : image(image), size(size), optimizationLevel(optimizationLevel) {}

  /// The function cached under the address `name`, or null.
  CUfunction findCachedFunction(const char *name) const {
    unsigned count = numCached.load(std::memory_order_acquire);
    for (unsigned i = 0; i < count; ++i)
      if (cached[i].name == name)
        return cached[i].function;
    return nullptr;
  }

  /// The function `name`, from the cache or else resolved (loading the module
  /// if needed) and cached under the address `name`.
  pwStatus getFunction(const char *name, const char *caller,
                       CUfunction &function);

  /// Resolves `name` without the cache, for names that may not stay put.
  pwStatus resolveFunction(const char *name, const char *caller,
                           CUfunction &function);

  /// Loads the CUmodule into the current context if that did not happen yet.
  pwStatus load(const char *caller);

  /// Unloads the CUmodule if it was loaded. At process exit the driver may be
  /// shut down already; that is not an error.
  pwStatus unload(const char *caller);

private:
  struct CachedFunction {
    const char *name;
    CUfunction function;
  };
  static constexpr unsigned kCacheCapacity = 32;

  const void *image;
  size_t size;
  int optimizationLevel;

  // Taken in this order when both are needed.
  std::mutex cacheMutex;
  std::mutex loadMutex;
  std::atomic<CUmodule> module{nullptr};
  // Entries [0, numCached) are immutable once published by numCached; new
  // ones are added under cacheMutex.
  CachedFunction cached[kCacheCapacity] = {};
  std::atomic<unsigned> numCached{0};
  // Names beyond the capacity, under cacheMutex.
  std::vector<std::pair<const char *, CUfunction>> overflow;
};

/// Launches `function` with CUDA's launch semantics, opting in to more than
/// 48 KiB of dynamic shared memory where asked. Grid and block dims must be
/// in [1, 2^32).
pwStatus launchKernel(CUfunction function, const int64_t grid[3],
                      const int64_t block[3], unsigned sharedMemoryBytes,
                      CUstream stream, void **parameters, void **extra,
                      const char *caller);

} // namespace pointwise::runtime

#endif // POINTWISE_LIB_RUNTIME_MODULES_H
