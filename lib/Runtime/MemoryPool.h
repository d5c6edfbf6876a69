//===- MemoryPool.h - The runtime's stream-ordered memory pools -*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Compiled programs allocate their temporaries on the current stream
// (mgpuMemAlloc with a stream) and free them there once the launches that
// use them are enqueued. The device's default pool gives its free memory
// back to the driver at every synchronization, so a program called in a loop
// with a synchronization per call maps and unmaps its temporaries on every
// call. The runtime allocates from a pool of its own per device instead,
// which keeps freed memory for reuse (release threshold UINT64_MAX) until
// pwReleaseCachedMemory, and leaves the default pool's settings, which
// other libraries in the process share, as they are (docs/Performance.md,
// row `stream-ordered-temporaries`).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_RUNTIME_MEMORYPOOL_H
#define POINTWISE_LIB_RUNTIME_MEMORYPOOL_H

#include "CudaDriver.h"

namespace pointwise::runtime {

/// The runtime's pool of the current context's device, created on first use;
/// null where the driver has no memory pools or the pool cannot be made
/// (the default pool then serves).
CUmemoryPool getDevicePool(const CudaDriver &driver);

} // namespace pointwise::runtime

#endif // POINTWISE_LIB_RUNTIME_MEMORYPOOL_H
