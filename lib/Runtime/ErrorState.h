//===- ErrorState.h - Per-thread error messages and pending errors -*- C++ -*-//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Errors never abort: a failing C API call returns its status and leaves a
// message for pwGetLastErrorMessage(). The mgpu* functions that compiled code
// calls return no status, so their failures are also kept as the thread's
// pending error, which pwFamilyLaunch (or pwTakePendingError) returns once
// the compiled code is back.
//
// The state is a thread_local of fixed-size buffers: it needs no allocation
// and has no destructor, so it stays usable from the global destructors of
// compiled libraries (mgpuModuleUnload) that run after thread-local objects
// are gone. Longer messages are truncated.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LIB_RUNTIME_ERRORSTATE_H
#define POINTWISE_LIB_RUNTIME_ERRORSTATE_H

#include "Pointwise/Runtime/Runtime.h"

#include <string>

namespace pointwise::runtime {

/// Sets the calling thread's last error message and returns `status`.
pwStatus recordError(pwStatus status, const std::string &message);

/// Records PW_ERROR_INVALID_VALUE for a null pointer argument of `caller`.
pwStatus recordNullArgument(const char *caller, const char *argument);

/// recordPendingError's work for a failure.
pwStatus recordPendingFailure(pwStatus status);

/// Makes the error just recorded (`status` and the last message) the
/// thread's pending error unless one is pending already: the first failure
/// is the cause of what follows. Returns `status`. Inline, so that the
/// success of every launch costs no call.
inline pwStatus recordPendingError(pwStatus status) {
  return status == PW_SUCCESS ? status : recordPendingFailure(status);
}

/// Returns and clears the pending error, making its message the last one.
pwStatus takePendingError();

/// Forgets the pending error.
void clearPendingError();

} // namespace pointwise::runtime

#endif // POINTWISE_LIB_RUNTIME_ERRORSTATE_H
