//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include "ErrorState.h"

#include <atomic>
#include <cstdlib>
#include <dlfcn.h>
#include <initializer_list>

using namespace pointwise::runtime;

namespace {
/// The outcome of loading the driver, computed once and never destroyed (it
/// is used from global destructors of compiled libraries).
struct LoadedDriver {
  CudaDriver api = {};
  pwStatus status = PW_SUCCESS;
  std::string message;
};

std::atomic<const CudaDriver *> loadedApi{nullptr};

/// Resolves `function` from the first of `names` the library exports; the
/// names are a function's versioned symbols, newest first.
template <typename Function>
bool resolve(void *library, Function &function,
             std::initializer_list<const char *> names, std::string &missing) {
  for (const char *name : names)
    if (void *symbol = dlsym(library, name)) {
      function = reinterpret_cast<Function>(symbol);
      return true;
    }
  if (missing.empty())
    missing = *names.begin();
  return false;
}

std::string describeWith(const CudaDriver *api, const char *call,
                         CUresult result) {
  const char *name = nullptr;
  const char *description = nullptr;
  if (api) {
    api->cuGetErrorName(result, &name);
    api->cuGetErrorString(result, &description);
  }
  std::string message = std::string(call) + " failed: ";
  message += name ? name : "CUDA error " + std::to_string(result);
  if (description)
    message += std::string(": ") + description;
  return message;
}

LoadedDriver *loadDriver() {
  auto *loaded = new LoadedDriver();
  const char *override = std::getenv("POINTWISE_CUDA_DRIVER");
  const char *path = override && *override ? override : "libcuda.so.1";
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    loaded->status = PW_ERROR_NO_DRIVER;
    loaded->message =
        std::string("pointwise runtime: cannot load the CUDA driver (") + path +
        "): " + (reason ? reason : "unknown error") +
        "; is an NVIDIA driver installed?";
    return loaded;
  }

  CudaDriver &api = loaded->api;
  std::string missing;
  // Every entry point is tried, so that `missing` names the first one absent.
  bool found = true;
  auto need = [&](auto &function, std::initializer_list<const char *> names) {
    found &= resolve(library, function, names, missing);
  };
  need(api.cuInit, {"cuInit"});
  need(api.cuGetErrorName, {"cuGetErrorName"});
  need(api.cuGetErrorString, {"cuGetErrorString"});
  need(api.cuDeviceGetCount, {"cuDeviceGetCount"});
  need(api.cuDeviceGet, {"cuDeviceGet"});
  need(api.cuDeviceGetName, {"cuDeviceGetName"});
  need(api.cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
  need(api.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  need(api.cuCtxGetCurrent, {"cuCtxGetCurrent"});
  need(api.cuCtxSetCurrent, {"cuCtxSetCurrent"});
  need(api.cuCtxGetDevice, {"cuCtxGetDevice"});
  need(api.cuCtxSynchronize, {"cuCtxSynchronize"});
  // Optional, since CUDA 12.0: without it contexts are told apart by handle
  // alone (Context.h).
  api.cuCtxGetId =
      reinterpret_cast<decltype(api.cuCtxGetId)>(dlsym(library, "cuCtxGetId"));
  // Optional: without it a primary context made current by other code is
  // identified by ID on every check, as a foreign one (Context.cpp).
  api.cuDevicePrimaryCtxGetState =
      reinterpret_cast<decltype(api.cuDevicePrimaryCtxGetState)>(
          dlsym(library, "cuDevicePrimaryCtxGetState"));
  api.cuDevicePrimaryCtxRelease =
      reinterpret_cast<decltype(api.cuDevicePrimaryCtxRelease)>(
          dlsym(library, "cuDevicePrimaryCtxRelease_v2"));
  need(api.cuMemAlloc, {"cuMemAlloc_v2"});
  need(api.cuMemAllocManaged, {"cuMemAllocManaged"});
  need(api.cuMemFree, {"cuMemFree_v2"});
  // Optional: without them, allocations of host code on a stream are
  // synchronous (mgpuMemAlloc).
  api.cuMemAllocAsync = reinterpret_cast<decltype(api.cuMemAllocAsync)>(
      dlsym(library, "cuMemAllocAsync"));
  api.cuMemFreeAsync = reinterpret_cast<decltype(api.cuMemFreeAsync)>(
      dlsym(library, "cuMemFreeAsync"));
  api.cuMemPoolCreate = reinterpret_cast<decltype(api.cuMemPoolCreate)>(
      dlsym(library, "cuMemPoolCreate"));
  api.cuMemPoolSetAttribute =
      reinterpret_cast<decltype(api.cuMemPoolSetAttribute)>(
          dlsym(library, "cuMemPoolSetAttribute"));
  api.cuMemPoolTrimTo = reinterpret_cast<decltype(api.cuMemPoolTrimTo)>(
      dlsym(library, "cuMemPoolTrimTo"));
  api.cuMemAllocFromPoolAsync =
      reinterpret_cast<decltype(api.cuMemAllocFromPoolAsync)>(
          dlsym(library, "cuMemAllocFromPoolAsync"));
  if (!api.cuMemPoolCreate || !api.cuMemPoolSetAttribute ||
      !api.cuMemPoolTrimTo || !api.cuMemAllocFromPoolAsync)
    api.cuMemPoolCreate = nullptr;
  need(api.cuMemcpyAsync, {"cuMemcpyAsync"});
  need(api.cuMemsetD8Async, {"cuMemsetD8Async"});
  need(api.cuMemsetD16Async, {"cuMemsetD16Async"});
  need(api.cuMemsetD32Async, {"cuMemsetD32Async"});
  need(api.cuMemHostRegister, {"cuMemHostRegister_v2"});
  need(api.cuMemHostUnregister, {"cuMemHostUnregister"});
  need(api.cuStreamCreate, {"cuStreamCreate"});
  need(api.cuStreamDestroy, {"cuStreamDestroy_v2"});
  need(api.cuStreamSynchronize, {"cuStreamSynchronize"});
  need(api.cuStreamWaitEvent, {"cuStreamWaitEvent"});
  need(api.cuEventCreate, {"cuEventCreate"});
  need(api.cuEventDestroy, {"cuEventDestroy_v2"});
  need(api.cuEventRecord, {"cuEventRecord"});
  need(api.cuEventSynchronize, {"cuEventSynchronize"});
  // _v2 since CUDA 12.8; older drivers have only the first version.
  need(api.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  need(api.cuModuleLoadDataEx, {"cuModuleLoadDataEx"});
  need(api.cuModuleUnload, {"cuModuleUnload"});
  need(api.cuModuleGetFunction, {"cuModuleGetFunction"});
  need(api.cuFuncGetAttribute, {"cuFuncGetAttribute"});
  need(api.cuFuncSetAttribute, {"cuFuncSetAttribute"});
  need(api.cuLaunchKernel, {"cuLaunchKernel"});
  if (!found) {
    loaded->status = PW_ERROR_NO_DRIVER;
    loaded->message = std::string("pointwise runtime: the CUDA driver (") +
                      path + ") lacks the entry point " + missing +
                      "; is the NVIDIA driver too old?";
    return loaded;
  }

  CUresult result = api.cuInit(0);
  if (result != CUDA_SUCCESS) {
    loaded->status = result == CUDA_ERROR_NO_DEVICE ? PW_ERROR_NO_DEVICE
                                                    : statusOfCudaError(result);
    loaded->message =
        "pointwise runtime: " + describeWith(&api, "cuInit", result);
    return loaded;
  }
  loadedApi.store(&api, std::memory_order_release);
  return loaded;
}
} // namespace

pwStatus pointwise::runtime::getCudaDriver(const CudaDriver *&driver) {
  static const LoadedDriver *loaded = loadDriver();
  if (loaded->status != PW_SUCCESS) {
    driver = nullptr;
    return recordError(loaded->status, loaded->message);
  }
  driver = &loaded->api;
  return PW_SUCCESS;
}

const CudaDriver *pointwise::runtime::getLoadedCudaDriver() {
  return loadedApi.load(std::memory_order_acquire);
}

std::string pointwise::runtime::describeCudaError(const char *call,
                                                  CUresult result) {
  return describeWith(getLoadedCudaDriver(), call, result);
}

pwStatus pointwise::runtime::statusOfCudaError(CUresult result) {
  switch (result) {
  case CUDA_SUCCESS:
    return PW_SUCCESS;
  case CUDA_ERROR_OUT_OF_MEMORY:
    return PW_ERROR_OUT_OF_MEMORY;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_INVALID_DEVICE:
    return PW_ERROR_NO_DEVICE;
  case CUDA_ERROR_NOT_FOUND:
    return PW_ERROR_NOT_FOUND;
  default:
    return PW_ERROR_DRIVER;
  }
}

pwStatus pointwise::runtime::checkCuda(CUresult result, const char *caller,
                                       const char *call) {
  if (result == CUDA_SUCCESS)
    return PW_SUCCESS;
  return recordError(statusOfCudaError(result),
                     std::string(caller) + ": " +
                         describeCudaError(call, result));
}
