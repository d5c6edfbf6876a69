//===- MgpuAbi.h - The host ABI of MLIR's gpu-to-llvm lowering --*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The functions LLVM 22's `gpu-to-llvm` conversion and the gpu.binary
// translation call from host code, with the signatures they emit (checked
// against `mlir-translate` output; MLIR's index is intptr_t here, i8 is
// bool). MLIR ships them as libmlir_cuda_runtime, which Debian does not
// package and which aborts or prints on errors; these record a pending error
// instead (pwTakePendingError) and return null or do nothing.
//
// Handles are the driver's: a stream is a CUstream, an event a CUevent, a
// function a CUfunction. A module is the runtime's lazy module.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_RUNTIME_MGPUABI_H
#define POINTWISE_LIB_RUNTIME_MGPUABI_H

#include "Pointwise/Runtime/Runtime.h"

#include <cstddef>
#include <cstdint>

extern "C" {

/// Records a cubin or fatbin of `size` bytes (PTX if neither); loads nothing.
PW_RUNTIME_API void *mgpuModuleLoad(void *data, size_t size);
/// Records NUL-terminated PTX to be JIT-compiled at `optLevel`; loads nothing.
PW_RUNTIME_API void *mgpuModuleLoadJIT(void *data, int optLevel);
PW_RUNTIME_API void mgpuModuleUnload(void *module);
/// The function of the context a launch would use now (making it current,
/// see Context.h): loads the module into it on its first use there, and
/// caches functions per context by the address `name`.
PW_RUNTIME_API void *mgpuModuleGetFunction(void *module, const char *name);
/// Does nothing for a null `function` (its lookup already failed).
PW_RUNTIME_API void mgpuLaunchKernel(void *function, intptr_t gridX,
                                     intptr_t gridY, intptr_t gridZ,
                                     intptr_t blockX, intptr_t blockY,
                                     intptr_t blockZ, int32_t sharedMemoryBytes,
                                     void *stream, void **params, void **extra,
                                     size_t paramsCount);

PW_RUNTIME_API void *mgpuStreamCreate(void);
PW_RUNTIME_API void mgpuStreamDestroy(void *stream);
PW_RUNTIME_API void mgpuStreamSynchronize(void *stream);
PW_RUNTIME_API void mgpuStreamWaitEvent(void *stream, void *event);
PW_RUNTIME_API void *mgpuEventCreate(void);
PW_RUNTIME_API void mgpuEventDestroy(void *event);
PW_RUNTIME_API void mgpuEventSynchronize(void *event);
PW_RUNTIME_API void mgpuEventRecord(void *event, void *stream);

/// Device memory, or managed memory when `isHostShared`; null for 0 bytes.
/// With a stream (and a driver that has stream-ordered allocation) the
/// memory is allocated in that stream's order, as cuMemAllocAsync does.
PW_RUNTIME_API void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                  bool isHostShared);
/// Frees in `stream`'s order when it is given (cuMemFreeAsync), else at once.
PW_RUNTIME_API void mgpuMemFree(void *pointer, void *stream);
/// The allocations pw-launch-on-current-stream puts on the current stream:
/// always in `stream`'s order, null being the legacy default stream (where
/// mgpuMemAlloc and mgpuMemFree take null for "no stream", synchronous).
/// Their memory comes from the runtime's pool (MemoryPool.h).
PW_RUNTIME_API void *pwMemAllocOnStream(uint64_t sizeBytes, void *stream,
                                        bool isHostShared);
PW_RUNTIME_API void pwMemFreeOnStream(void *pointer, void *stream);
PW_RUNTIME_API void mgpuMemcpy(void *to, void *from, size_t sizeBytes,
                               void *stream);
PW_RUNTIME_API void mgpuMemset32(void *to, uint32_t value, size_t count,
                                 void *stream);
PW_RUNTIME_API void mgpuMemset16(void *to, uint16_t value, size_t count,
                                 void *stream);
/// Page-locks the host memory a memref of rank `rank` (any strides) spans.
/// `descriptor` points to its ranked descriptor.
PW_RUNTIME_API void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                              int64_t elementSizeBytes);
PW_RUNTIME_API void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                                int64_t elementSizeBytes);
/// Like pwSetDevice.
PW_RUNTIME_API void mgpuSetDefaultDevice(int32_t device);

} // extern "C"

#endif // POINTWISE_LIB_RUNTIME_MGPUABI_H
