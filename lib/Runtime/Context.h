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
//   * on a thread that called pwExchangeDevice(d), the primary context of
//     device d, unless the thread's current context is already on d (a
//     scoped device guard, which leaves other threads alone);
//   * after pwSetDevice(d) (or mgpuSetDefaultDevice), on any other thread,
//     the primary context of device d, unless the thread's current context
//     is already on d;
//   * otherwise the context the thread has current, if any (PyTorch's);
//   * otherwise the primary context of $POINTWISE_DEVICE, or device 0.
//
// Primary contexts are retained once and never released, like the CUDA
// runtime does.
//
// Contexts are told apart by handle and ID (ContextIdentity), since the
// handle of a destroyed context may be the next new context's.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_RUNTIME_CONTEXT_H
#define POINTWISE_LIB_RUNTIME_CONTEXT_H

#include "CudaDriver.h"

namespace pointwise::runtime {

/// A context as the runtime tells contexts apart wherever it keeps something
/// per context. A handle is an address, which a context made after another
/// was destroyed may reuse (cuCtxDestroy, then cuCtxCreate in another
/// library), so a context is its handle and the ID cuCtxGetId gives it, which
/// is unique for the life of the process. Drivers before CUDA 12.0 have no
/// cuCtxGetId: every ID is then 0, and a context made at a destroyed one's
/// address is taken for it. Primary contexts the runtime retained are never
/// destroyed, so their handles alone are enough.
struct ContextIdentity {
  CUcontext handle = nullptr;
  unsigned long long id = 0;

  bool operator==(const ContextIdentity &other) const {
    return handle == other.handle && id == other.id;
  }
  bool operator!=(const ContextIdentity &other) const {
    return !(*this == other);
  }
};

/// Whether `context` still exists, as far as the driver can tell: its handle
/// names a context with its ID. Always true without cuCtxGetId.
bool isAlive(const CudaDriver &driver, const ContextIdentity &context);

/// Makes a context current on the calling thread as described above and
/// returns the driver in `driver`. Failures are recorded with `caller` (the
/// API function) in the message.
///
/// A thread remembers the context it checked last, so a call whose current
/// context is still that one, with no pwSetDevice since, costs one
/// cuCtxGetCurrent and a compare, and one cuCtxGetId unless the context is a
/// primary context the runtime retained. Any other current context (one that
/// other code on the thread made current, or a new one at the address of the
/// one checked) is checked against the rules again.
pwStatus ensureContext(const char *caller, const CudaDriver *&driver);

/// Like the above, and returns the context now current in `context`.
pwStatus ensureContext(const char *caller, const CudaDriver *&driver,
                       ContextIdentity &context);

/// Makes `device`'s primary context current on the calling thread and the
/// device the one every thread uses from now on (the calling thread gives
/// up its pwExchangeDevice choice).
pwStatus selectDevice(int device, const char *caller);

} // namespace pointwise::runtime

#endif // POINTWISE_LIB_RUNTIME_CONTEXT_H
