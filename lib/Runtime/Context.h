//===- Context.h - Device selection and the current context -----*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Every call that needs the device first makes sure a CUDA context is current
// on the calling thread. The runtime uses device primary contexts, the ones
// the CUDA runtime API (and so PyTorch, CuPy, ...) uses, so memory and
// streams are shared with those libraries:
//
//   * after pwSetDevice(d) (or mgpuSetDefaultDevice), on any thread, the
//     primary context of device d, unless the thread's current context is
//     already on d;
//   * otherwise the context the thread has current, if any (PyTorch's);
//   * otherwise the primary context of $POINTWISE_DEVICE, or device 0.
//
// Primary contexts are retained once and never released, like the CUDA
// runtime does.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_RUNTIME_CONTEXT_H
#define POINTWISE_LIB_RUNTIME_CONTEXT_H

#include "CudaDriver.h"

namespace pointwise::runtime {

/// Makes a context current on the calling thread as described above and
/// returns the driver in `driver`. Failures are recorded with `caller` (the
/// API function) in the message.
///
/// A thread remembers the context it checked last, so a call whose current
/// context is still that one, with no pwSetDevice since, costs one
/// cuCtxGetCurrent and a compare. Any other current context (one that other
/// code on the thread made current) is checked against the rules again.
pwStatus ensureContext(const char *caller, const CudaDriver *&driver);

/// Like the above, and returns the context now current in `context`.
pwStatus ensureContext(const char *caller, const CudaDriver *&driver,
                       CUcontext &context);

/// Makes `device`'s primary context current on the calling thread and the
/// device the one every thread uses from now on.
pwStatus selectDevice(int device, const char *caller);

} // namespace pointwise::runtime

#endif // POINTWISE_LIB_RUNTIME_CONTEXT_H
