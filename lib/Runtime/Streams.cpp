//===- Streams.cpp - Streams, events and the current stream ---------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Streams are created blocking (CU_STREAM_DEFAULT), so they also wait for work
// on the legacy default stream, where other libraries' copies may still run.
//
//===----------------------------------------------------------------------===//

#include "Context.h"
#include "ErrorState.h"

using namespace pointwise::runtime;

namespace {
/// The stream compiled code launches on; NULL is the legacy default stream.
thread_local pwStream currentStream = nullptr;

CUstream toCuda(pwStream stream) { return reinterpret_cast<CUstream>(stream); }
CUevent toCuda(pwEvent event) { return reinterpret_cast<CUevent>(event); }
} // namespace

void pwSetStream(pwStream stream) { currentStream = stream; }

pwStream pwGetStream() { return currentStream; }

pwStatus pwStreamCreate(pwStream *stream) {
  if (!stream)
    return recordNullArgument("pwStreamCreate", "stream");
  *stream = nullptr;
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwStreamCreate", driver))
    return status;
  CUstream created = nullptr;
  if (pwStatus status =
          checkCuda(driver->cuStreamCreate(&created, CU_STREAM_DEFAULT),
                    "pwStreamCreate", "cuStreamCreate"))
    return status;
  *stream = reinterpret_cast<pwStream>(created);
  return PW_SUCCESS;
}

pwStatus pwStreamDestroy(pwStream stream) {
  if (!stream)
    return recordNullArgument("pwStreamDestroy", "stream");
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwStreamDestroy", driver))
    return status;
  return checkCuda(driver->cuStreamDestroy(toCuda(stream)), "pwStreamDestroy",
                   "cuStreamDestroy");
}

pwStatus pwStreamSynchronize(pwStream stream) {
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwStreamSynchronize", driver))
    return status;
  return checkCuda(driver->cuStreamSynchronize(toCuda(stream)),
                   "pwStreamSynchronize", "cuStreamSynchronize");
}

pwStatus pwEventCreate(pwEvent *event) {
  if (!event)
    return recordNullArgument("pwEventCreate", "event");
  *event = nullptr;
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwEventCreate", driver))
    return status;
  CUevent created = nullptr;
  // With timing, for pwEventElapsedMilliseconds.
  if (pwStatus status =
          checkCuda(driver->cuEventCreate(&created, CU_EVENT_DEFAULT),
                    "pwEventCreate", "cuEventCreate"))
    return status;
  *event = reinterpret_cast<pwEvent>(created);
  return PW_SUCCESS;
}

pwStatus pwEventDestroy(pwEvent event) {
  if (!event)
    return recordNullArgument("pwEventDestroy", "event");
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwEventDestroy", driver))
    return status;
  return checkCuda(driver->cuEventDestroy(toCuda(event)), "pwEventDestroy",
                   "cuEventDestroy");
}

pwStatus pwEventRecord(pwEvent event, pwStream stream) {
  if (!event)
    return recordNullArgument("pwEventRecord", "event");
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwEventRecord", driver))
    return status;
  return checkCuda(driver->cuEventRecord(toCuda(event), toCuda(stream)),
                   "pwEventRecord", "cuEventRecord");
}

pwStatus pwEventSynchronize(pwEvent event) {
  if (!event)
    return recordNullArgument("pwEventSynchronize", "event");
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwEventSynchronize", driver))
    return status;
  return checkCuda(driver->cuEventSynchronize(toCuda(event)),
                   "pwEventSynchronize", "cuEventSynchronize");
}

pwStatus pwEventElapsedMilliseconds(float *milliseconds, pwEvent start,
                                    pwEvent end) {
  if (!milliseconds)
    return recordNullArgument("pwEventElapsedMilliseconds", "milliseconds");
  if (!start || !end)
    return recordNullArgument("pwEventElapsedMilliseconds",
                              !start ? "start" : "end");
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwEventElapsedMilliseconds", driver))
    return status;
  return checkCuda(
      driver->cuEventElapsedTime(milliseconds, toCuda(start), toCuda(end)),
      "pwEventElapsedMilliseconds", "cuEventElapsedTime");
}
