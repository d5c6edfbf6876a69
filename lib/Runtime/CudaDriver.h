//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The runtime never links libcuda: it dlopen()s libcuda.so.1 on first use and
// resolves the few entry points it calls, so that it builds, links and loads
// on machines without a GPU (where only the first use that needs a device
// fails, with PW_ERROR_NO_DRIVER). The CUDA types it needs are declared here
// with the values of cuda.h, so no toolkit is needed to build it either.
//
// $POINTWISE_CUDA_DRIVER names another library to load instead (tests load a
// fake driver, or a path that does not exist).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_RUNTIME_CUDADRIVER_H
#define POINTWISE_LIB_RUNTIME_CUDADRIVER_H

#include "Pointwise/Runtime/Runtime.h"

#include <cstddef>
#include <string>

namespace pointwise::runtime {

// The driver's handle and value types (cuda.h).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUmemoryPool = struct CUmemPoolHandle_st *;

/// A memory pool's properties (cuda.h's CUmemPoolProps_v1).
struct CUmemPoolProps {
  int allocType;
  int handleTypes;
  struct {
    int type;
    int id;
  } location;
  void *win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};

// The enumerator values the runtime uses (cuda.h).
enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_NOT_FOUND = 500,
};
enum : int {
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7,
};
enum : int {
  CU_MEM_ALLOCATION_TYPE_PINNED = 1,
  CU_MEM_HANDLE_TYPE_NONE = 0,
  CU_MEM_LOCATION_TYPE_DEVICE = 1,
  CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
};
enum : unsigned {
  CU_MEM_ATTACH_GLOBAL = 1,
  CU_STREAM_DEFAULT = 0,
  CU_EVENT_DEFAULT = 0,
  CU_EVENT_DISABLE_TIMING = 2,
};

/// The entry points the runtime calls. Each member is named after the API
/// function; the symbol resolved is its current versioned name where the
/// driver exports one (cuMemAlloc is cuMemAlloc_v2), see CudaDriver.cpp.
/// Every one is required but those marked optional, which are null where the
/// driver lacks them.
struct CudaDriver {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuGetErrorString)(CUresult error, const char **description);

  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuCtxGetCurrent)(CUcontext *context);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuCtxGetDevice)(CUdevice *device);
  CUresult (*cuCtxSynchronize)();
  /// Optional: null where the driver is older than CUDA 12.0.
  CUresult (*cuCtxGetId)(CUcontext context, unsigned long long *id);
  /// Optional (null when the driver lacks it): whether a device's primary
  /// context is active, which lets the runtime adopt one found current.
  CUresult (*cuDevicePrimaryCtxGetState)(CUdevice device, unsigned *flags,
                                         int *active);
  /// Optional with it: gives back a primary context retained to compare.
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);

  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes);
  CUresult (*cuMemAllocManaged)(CUdeviceptr *pointer, size_t bytes,
                                unsigned flags);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  /// Optional (since CUDA 11.2): stream-ordered allocation from the device's
  /// default memory pool; null where the driver lacks it.
  CUresult (*cuMemAllocAsync)(CUdeviceptr *pointer, size_t bytes,
                              CUstream stream);
  /// Optional with it: stream-ordered release.
  CUresult (*cuMemFreeAsync)(CUdeviceptr pointer, CUstream stream);
  /// Optional (since CUDA 11.2), all or none: the runtime's own memory
  /// pools (MemoryPool.cpp); without them stream-ordered allocations come
  /// from the device's default pool.
  CUresult (*cuMemPoolCreate)(CUmemoryPool *pool, const CUmemPoolProps *props);
  CUresult (*cuMemPoolSetAttribute)(CUmemoryPool pool, int attribute,
                                    void *value);
  CUresult (*cuMemPoolTrimTo)(CUmemoryPool pool, size_t minBytesToKeep);
  CUresult (*cuMemAllocFromPoolAsync)(CUdeviceptr *pointer, size_t bytes,
                                      CUmemoryPool pool, CUstream stream);
  CUresult (*cuMemcpyAsync)(CUdeviceptr to, CUdeviceptr from, size_t bytes,
                            CUstream stream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr to, unsigned char value, size_t count,
                              CUstream stream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr to, unsigned short value,
                               size_t count, CUstream stream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr to, unsigned value, size_t count,
                               CUstream stream);
  CUresult (*cuMemHostRegister)(void *pointer, size_t bytes, unsigned flags);
  CUresult (*cuMemHostUnregister)(void *pointer);

  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event, unsigned flags);
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventSynchronize)(CUevent event);
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start,
                                 CUevent end);

  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned numOptions, int *options,
                                 void **optionValues);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuFuncGetAttribute)(int *value, int attribute,
                                 CUfunction function);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedMemoryBytes, CUstream stream,
                             void **parameters, void **extra);
};

/// Loads the driver and calls cuInit once per process, and returns it in
/// `driver`. On failure (no library, a missing entry point, cuInit failing)
/// records the error for the calling thread (ErrorState.h) and returns its
/// status, which is the same for every later call.
pwStatus getCudaDriver(const CudaDriver *&driver);

/// The driver, already loaded by a successful getCudaDriver, or null.
const CudaDriver *getLoadedCudaDriver();

/// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY: out of memory".
std::string describeCudaError(const char *call, CUresult result);

/// The pwStatus of a failed driver call.
pwStatus statusOfCudaError(CUresult result);

/// Records a failed driver call of the C API function `caller` and returns
/// its status; returns PW_SUCCESS and records nothing for CUDA_SUCCESS.
pwStatus checkCuda(CUresult result, const char *caller, const char *call);

} // namespace pointwise::runtime

#endif // POINTWISE_LIB_RUNTIME_CUDADRIVER_H
