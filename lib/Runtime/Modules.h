//===- Modules.h - Lazily loaded GPU modules and kernel launches -*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// A compiled library registers its GPU binary from a global constructor
// (mgpuModuleLoad), possibly on a machine without a GPU, so registering only
// records the image. A CUmodule and its CUfunctions belong to the context
// they were loaded in, and the driver refuses them in any other (a launch
// after pwSetDevice(1), or on a thread with its own context current, fails
// with CUDA_ERROR_INVALID_HANDLE), so the image is loaded on first use in
// each context that uses it, once per context.
//
// Compiled code asks for its kernel (mgpuModuleGetFunction) before every
// launch, with the address of a constant name string, so functions are cached
// per context by that address. A context is its handle and ID
// (ContextIdentity in Context.h): a context made where a destroyed one was
// gets the module loaded afresh, never the destroyed one's functions.
// Contexts are few (one per device and library that made one) and most
// processes use one, so each module keeps the context it served last: the
// common lookup is that compare and then a few loads and compares, with no
// lock.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_RUNTIME_MODULES_H
#define POINTWISE_LIB_RUNTIME_MODULES_H

#include "Context.h"

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
  /// Frees the bookkeeping; the CUmodules are unload()'s.
  ~LazyModule();
  LazyModule(const LazyModule &) = delete;
  LazyModule &operator=(const LazyModule &) = delete;

  /// The function of `context` cached under the address `name`, or null.
  CUfunction findCachedFunction(const ContextIdentity &context,
                                const char *name) const {
    ContextModule *loaded = lastUsed.load(std::memory_order_acquire);
    if (!loaded || loaded->context != context) {
      if (!(loaded = findLoaded(context)))
        return nullptr;
      lastUsed.store(loaded, std::memory_order_release);
    }
    return loaded->findCachedFunction(name);
  }

  /// The function `name` of `context`, which must be current: from the cache,
  /// or else resolved (loading the module there if needed) and cached under
  /// the address `name`.
  pwStatus getFunction(const ContextIdentity &context, const char *name,
                       const char *caller, CUfunction &function);

  /// Resolves `name` in `context`, which must be current, without the cache,
  /// for names that may not stay put.
  pwStatus resolveFunction(const ContextIdentity &context, const char *name,
                           const char *caller, CUfunction &function);

  /// Loads the CUmodule into `context`, which must be current, if that did
  /// not happen yet.
  pwStatus load(const ContextIdentity &context, const char *caller);

  /// Unloads the CUmodule from every context it was loaded in that still
  /// exists (a destroyed context took its modules with it), each made current
  /// for its unload, and then makes the thread's context current again. At
  /// process exit the driver may be shut down already; that is not an error.
  /// Other failures do not stop the other unloads; the first is returned.
  pwStatus unload(const char *caller);

private:
  struct CachedFunction {
    const char *name;
    CUfunction function;
  };
  /// Functions each context's cache holds without a lock; more go to its
  /// overflow list (docs/Performance.md, row `module-function-cache`).
  static constexpr unsigned kCacheCapacity = 32;

  /// The module loaded in one context, and its functions.
  struct ContextModule {
    ContextModule(const ContextIdentity &context, CUmodule module,
                  ContextModule *next)
        : context(context), module(module), next(next) {}

    CUfunction findCachedFunction(const char *name) const {
      unsigned count = numCached.load(std::memory_order_acquire);
      for (unsigned i = 0; i < count; ++i)
        if (cached[i].name == name)
          return cached[i].function;
      return nullptr;
    }

    const ContextIdentity context;
    const CUmodule module;
    /// The context loaded before this one, or null.
    ContextModule *const next;
    // Entries [0, numCached) are immutable once published by numCached; new
    // ones are added under the module's mutex.
    CachedFunction cached[kCacheCapacity] = {};
    std::atomic<unsigned> numCached{0};
    // Names beyond the capacity, under the module's mutex.
    std::vector<std::pair<const char *, CUfunction>> overflow;
  };

  /// The module loaded in `context`, or null.
  ContextModule *findLoaded(const ContextIdentity &context) const {
    for (ContextModule *loaded = contexts.load(std::memory_order_acquire);
         loaded; loaded = loaded->next)
      if (loaded->context == context)
        return loaded;
    return nullptr;
  }

  /// The module loaded in `context` (current), loading it if needed.
  pwStatus loadInto(const ContextIdentity &context, const char *caller,
                    ContextModule *&loaded);

  const void *image;
  size_t size;
  int optimizationLevel;

  /// Taken to load into a context and to add to a context's cache.
  std::mutex mutex;
  /// A list of the contexts loaded in, newest first. Nodes are immutable but
  /// for their caches and only freed with the module, so readers walk it
  /// without the mutex.
  std::atomic<ContextModule *> contexts{nullptr};
  /// The context of a recent lookup, compared first. Threads on different
  /// contexts move it back and forth, which only costs them the walk.
  mutable std::atomic<ContextModule *> lastUsed{nullptr};
};

/// Launches `function` with CUDA's launch semantics, opting in to more than
/// 48 KiB of dynamic shared memory where asked. Grid and block dims must be
/// in [1, 2^32). With `checkedDriver`, the caller has just made sure that
/// `function`'s context is current (ensureContext) and that is not done
/// again.
pwStatus launchKernel(CUfunction function, const int64_t grid[3],
                      const int64_t block[3], unsigned sharedMemoryBytes,
                      CUstream stream, void **parameters, void **extra,
                      const char *caller,
                      const CudaDriver *checkedDriver = nullptr);

} // namespace pointwise::runtime

#endif // POINTWISE_LIB_RUNTIME_MODULES_H
