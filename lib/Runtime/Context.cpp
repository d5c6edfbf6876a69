//===- Context.cpp - Device selection and the current context -------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "Context.h"

#include "ErrorState.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <mutex>

using namespace pointwise::runtime;

namespace {
constexpr int kMaxDevices = 64;

/// The device pwSetDevice chose, or -1.
std::atomic<int> selectedDevice{-1};
/// Bumped by every pwSetDevice, so that every thread re-checks its context.
std::atomic<unsigned> selectionGeneration{1};

/// The context the calling thread last checked against the rules, and the
/// generation it was checked in. The context is remembered, not only the
/// generation, because other code on the thread (torch.cuda.set_device) may
/// make another context current without the runtime knowing: that one has
/// to be checked again. One struct, so that a call looks the thread-local up
/// once.
struct CheckedContext {
  ContextIdentity context;
  unsigned generation = 0; // 0: never
  /// Whether `context` is a primary context the runtime retained, which
  /// outlives every call, so that its handle alone identifies it.
  bool retained = false;
};
thread_local CheckedContext threadChecked;
/// The device pwExchangeDevice chose for the calling thread, which its calls
/// use whatever pwSetDevice chose; -1 when none.
thread_local int threadDevice = -1;

std::mutex retainMutex;
ContextIdentity primaryContexts[kMaxDevices];

std::string prefixed(const char *caller, const std::string &message) {
  return std::string(caller) + ": " + message;
}

/// Checks that `device` is an ordinal of an existing device and returns its
/// handle.
pwStatus getDevice(const CudaDriver &driver, int device, const char *caller,
                   CUdevice &handle) {
  int count = 0;
  if (pwStatus status = checkCuda(driver.cuDeviceGetCount(&count), caller,
                                  "cuDeviceGetCount"))
    return status;
  if (count == 0)
    return recordError(PW_ERROR_NO_DEVICE,
                       prefixed(caller, "the CUDA driver reports no device"));
  if (device < 0 || device >= count || device >= kMaxDevices)
    return recordError(
        PW_ERROR_NO_DEVICE,
        prefixed(caller, "there is no CUDA device " + std::to_string(device) +
                             " (" + std::to_string(count) + " devices)"));
  return checkCuda(driver.cuDeviceGet(&handle, device), caller, "cuDeviceGet");
}

/// Sets `context.id` to the ID of the context `context.handle` (0 without
/// cuCtxGetId).
pwStatus identify(const CudaDriver &driver, const char *caller,
                  ContextIdentity &context) {
  context.id = 0;
  if (!driver.cuCtxGetId)
    return PW_SUCCESS;
  return checkCuda(driver.cuCtxGetId(context.handle, &context.id), caller,
                   "cuCtxGetId");
}

/// The ordinal of the device `handle` among the first `count`, or -1 when it
/// is not one of them (nor of the first kMaxDevices).
int ordinalOf(const CudaDriver &driver, CUdevice handle, int count) {
  for (int ordinal = 0; ordinal < std::min(count, kMaxDevices); ++ordinal) {
    CUdevice candidate = 0;
    if (driver.cuDeviceGet(&candidate, ordinal) == CUDA_SUCCESS &&
        candidate == handle)
      return ordinal;
  }
  return -1;
}

/// Loads the driver into `driver` and reads the calling thread's current
/// context into `current` (null when none).
pwStatus getCurrentContext(const char *caller, const CudaDriver *&driver,
                           CUcontext &current) {
  current = nullptr;
  if (pwStatus status = getCudaDriver(driver))
    return status;
  return checkCuda(driver->cuCtxGetCurrent(&current), caller,
                   "cuCtxGetCurrent");
}

/// Retains `device`'s primary context once per process and makes it current.
pwStatus makePrimaryContextCurrent(const CudaDriver &driver, int device,
                                   const char *caller,
                                   ContextIdentity &context) {
  context = {};
  CUdevice handle = 0;
  if (pwStatus status = getDevice(driver, device, caller, handle))
    return status;
  {
    std::lock_guard<std::mutex> lock(retainMutex);
    context = primaryContexts[device];
    if (!context.handle) {
      // Retained again after a failure here, which only adds to the count of
      // a context that is never released.
      if (pwStatus status = checkCuda(
              driver.cuDevicePrimaryCtxRetain(&context.handle, handle), caller,
              "cuDevicePrimaryCtxRetain"))
        return status;
      if (pwStatus status = identify(driver, caller, context))
        return status;
      primaryContexts[device] = context;
    }
  }
  return checkCuda(driver.cuCtxSetCurrent(context.handle), caller,
                   "cuCtxSetCurrent");
}

/// When `handle`, the thread's current context, is the active primary
/// context of its device (PyTorch's, typically), retains it as the runtime's
/// own for that device, as pwSetDevice would, and returns its identity in
/// `context`: a retained context is never destroyed, so later checks of it
/// need no cuCtxGetId. False when it is not one or that cannot be told (no
/// cuDevicePrimaryCtxGetState, a failed query: the caller then identifies
/// the context by ID, as any other); an inactive primary context is never
/// retained here, since retaining it would initialize it.
bool adoptActivePrimaryContext(const CudaDriver &driver, CUcontext handle,
                               ContextIdentity &context) {
  CUdevice device = 0;
  unsigned flags = 0;
  int active = 0, count = 0;
  if (!driver.cuDevicePrimaryCtxGetState || !driver.cuDevicePrimaryCtxRelease ||
      driver.cuCtxGetDevice(&device) != CUDA_SUCCESS ||
      driver.cuDevicePrimaryCtxGetState(device, &flags, &active) !=
          CUDA_SUCCESS ||
      !active || driver.cuDeviceGetCount(&count) != CUDA_SUCCESS)
    return false;
  int ordinal = ordinalOf(driver, device, count);
  if (ordinal < 0)
    return false;
  std::lock_guard<std::mutex> lock(retainMutex);
  ContextIdentity &primary = primaryContexts[ordinal];
  if (!primary.handle) {
    // Retained to learn its handle; given back unless it is the current
    // one (another library's context of the device), so that adopting
    // never keeps a primary context alive that the runtime does not use.
    ContextIdentity retained;
    if (driver.cuDevicePrimaryCtxRetain(&retained.handle, device) !=
        CUDA_SUCCESS)
      return false;
    if (retained.handle != handle ||
        (driver.cuCtxGetId &&
         driver.cuCtxGetId(retained.handle, &retained.id) != CUDA_SUCCESS)) {
      driver.cuDevicePrimaryCtxRelease(device);
      return false;
    }
    primary = retained;
  }
  if (primary.handle != handle)
    return false;
  context = primary;
  return true;
}

/// Remembers `handle`, the thread's current context, which the rules
/// accepted, as the context the thread checked in `generation`, and returns
/// its identity in `context`.
pwStatus acceptCurrent(const CudaDriver &driver, const char *caller,
                       CUcontext handle, unsigned generation,
                       ContextIdentity &context) {
  CheckedContext checked;
  checked.generation = generation;
  {
    std::lock_guard<std::mutex> lock(retainMutex);
    for (const ContextIdentity &primary : primaryContexts)
      if (primary.handle == handle) {
        checked.context = primary;
        checked.retained = true;
      }
  }
  if (!checked.retained)
    checked.retained =
        adoptActivePrimaryContext(driver, handle, checked.context);
  if (!checked.retained) {
    checked.context.handle = handle;
    if (pwStatus status = identify(driver, caller, checked.context))
      return status;
  }
  threadChecked = checked;
  context = checked.context;
  return PW_SUCCESS;
}

/// $POINTWISE_DEVICE, or 0.
pwStatus getDefaultDevice(const char *caller, int &device) {
  device = 0;
  const char *value = std::getenv("POINTWISE_DEVICE");
  if (!value || !*value)
    return PW_SUCCESS;
  char *end = nullptr;
  long parsed = std::strtol(value, &end, 10);
  if (*end != '\0' || parsed < 0 || parsed > INT_MAX)
    return recordError(PW_ERROR_INVALID_VALUE,
                       prefixed(caller, std::string("POINTWISE_DEVICE=") +
                                            value +
                                            " is not a device ordinal"));
  device = static_cast<int>(parsed);
  return PW_SUCCESS;
}
} // namespace

bool pointwise::runtime::isAlive(const CudaDriver &driver,
                                 const ContextIdentity &context) {
  if (!driver.cuCtxGetId)
    return true;
  unsigned long long id = 0;
  return driver.cuCtxGetId(context.handle, &id) == CUDA_SUCCESS &&
         id == context.id;
}

pwStatus pointwise::runtime::ensureContext(const char *caller,
                                           const CudaDriver *&driver,
                                           ContextIdentity &context) {
  context = {};
  CUcontext current = nullptr;
  if (pwStatus status = getCurrentContext(caller, driver, current))
    return status;
  unsigned generation = selectionGeneration.load(std::memory_order_acquire);
  CheckedContext &checked = threadChecked;
  if (current && current == checked.context.handle &&
      checked.generation == generation) {
    if (checked.retained) {
      context = checked.context;
      return PW_SUCCESS;
    }
    // The checked context may have been destroyed and this be a new one made
    // at its address, which the rules have not seen.
    ContextIdentity identity{current, 0};
    if (pwStatus status = identify(*driver, caller, identity))
      return status;
    if (identity.id == checked.context.id) {
      context = identity;
      return PW_SUCCESS;
    }
  }

  int device = threadDevice >= 0
                   ? threadDevice
                   : selectedDevice.load(std::memory_order_acquire);
  if (device < 0) {
    if (current)
      return acceptCurrent(*driver, caller, current, generation, context);
    if (pwStatus status = getDefaultDevice(caller, device))
      return status;
  } else if (current) {
    CUdevice currentDevice = 0, wanted = 0;
    if (pwStatus status = checkCuda(driver->cuCtxGetDevice(&currentDevice),
                                    caller, "cuCtxGetDevice"))
      return status;
    if (pwStatus status = getDevice(*driver, device, caller, wanted))
      return status;
    if (currentDevice == wanted)
      return acceptCurrent(*driver, caller, current, generation, context);
  }
  ContextIdentity primary;
  if (pwStatus status =
          makePrimaryContextCurrent(*driver, device, caller, primary))
    return status;
  checked = {primary, generation, /*retained=*/true};
  context = primary;
  return PW_SUCCESS;
}

pwStatus pointwise::runtime::ensureContext(const char *caller,
                                           const CudaDriver *&driver) {
  ContextIdentity context;
  return ensureContext(caller, driver, context);
}

pwStatus pointwise::runtime::selectDevice(int device, const char *caller) {
  const CudaDriver *driver = nullptr;
  if (pwStatus status = getCudaDriver(driver))
    return status;
  ContextIdentity primary;
  if (pwStatus status =
          makePrimaryContextCurrent(*driver, device, caller, primary))
    return status;
  selectedDevice.store(device, std::memory_order_release);
  threadDevice = -1;
  threadChecked = {
      primary, selectionGeneration.fetch_add(1, std::memory_order_acq_rel) + 1,
      /*retained=*/true};
  return PW_SUCCESS;
}

pwStatus pwGetDeviceCount(int *count) {
  if (!count)
    return recordError(PW_ERROR_INVALID_VALUE,
                       "pwGetDeviceCount: `count` is null");
  *count = 0;
  const CudaDriver *driver = nullptr;
  pwStatus status = getCudaDriver(driver);
  // cuInit fails with CUDA_ERROR_NO_DEVICE where the driver sees no GPU.
  if (status == PW_ERROR_NO_DEVICE)
    return PW_SUCCESS;
  if (status != PW_SUCCESS)
    return status;
  return checkCuda(driver->cuDeviceGetCount(count), "pwGetDeviceCount",
                   "cuDeviceGetCount");
}

pwStatus pwSetDevice(int device) { return selectDevice(device, "pwSetDevice"); }

pwStatus pwExchangeDevice(int device, int *previous) {
  static constexpr const char *caller = "pwExchangeDevice";
  if (previous)
    *previous = -1;
  const CudaDriver *driver = nullptr;
  CUcontext current = nullptr;
  if (pwStatus status = getCurrentContext(caller, driver, current))
    return status;
  // The common case, a call on the device of the thread's last one: its
  // primary context is still current.
  CheckedContext &checked = threadChecked;
  if (current && threadDevice == device && device >= 0 &&
      current == checked.context.handle && checked.retained) {
    if (previous)
      *previous = device;
    return PW_SUCCESS;
  }
  int currentOrdinal = -1;
  if (current) {
    CUdevice handle = 0;
    int count = 0;
    if (pwStatus status = checkCuda(driver->cuCtxGetDevice(&handle), caller,
                                    "cuCtxGetDevice"))
      return status;
    if (pwStatus status = checkCuda(driver->cuDeviceGetCount(&count), caller,
                                    "cuDeviceGetCount"))
      return status;
    currentOrdinal = ordinalOf(*driver, handle, count);
  }
  if (previous)
    *previous = currentOrdinal;
  // A context already on the device (another library's) stays, as the
  // rules of ensureContext keep it.
  if (current && currentOrdinal == device) {
    threadDevice = device;
    return PW_SUCCESS;
  }
  ContextIdentity primary;
  if (pwStatus status =
          makePrimaryContextCurrent(*driver, device, caller, primary))
    return status;
  threadDevice = device;
  threadChecked = {primary, selectionGeneration.load(std::memory_order_acquire),
                   /*retained=*/true};
  return PW_SUCCESS;
}

pwStatus pwGetDeviceName(int device, char *name, size_t size) {
  if (!name || size == 0)
    return recordError(PW_ERROR_INVALID_VALUE,
                       "pwGetDeviceName: `name` is null or `size` is 0");
  const CudaDriver *driver = nullptr;
  if (pwStatus status = getCudaDriver(driver))
    return status;
  CUdevice handle = 0;
  if (pwStatus status = getDevice(*driver, device, "pwGetDeviceName", handle))
    return status;
  char buffer[256] = {};
  if (pwStatus status =
          checkCuda(driver->cuDeviceGetName(buffer, sizeof(buffer), handle),
                    "pwGetDeviceName", "cuDeviceGetName"))
    return status;
  buffer[sizeof(buffer) - 1] = '\0';
  std::snprintf(name, size, "%s", buffer);
  return PW_SUCCESS;
}

pwStatus pwGetDeviceArch(int device, char *arch, size_t size) {
  if (!arch || size == 0)
    return recordError(PW_ERROR_INVALID_VALUE,
                       "pwGetDeviceArch: `arch` is null or `size` is 0");
  const CudaDriver *driver = nullptr;
  if (pwStatus status = getCudaDriver(driver))
    return status;
  CUdevice handle = 0;
  if (pwStatus status = getDevice(*driver, device, "pwGetDeviceArch", handle))
    return status;
  int major = 0, minor = 0;
  if (pwStatus status = checkCuda(
          driver->cuDeviceGetAttribute(
              &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, handle),
          "pwGetDeviceArch", "cuDeviceGetAttribute"))
    return status;
  if (pwStatus status = checkCuda(
          driver->cuDeviceGetAttribute(
              &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, handle),
          "pwGetDeviceArch", "cuDeviceGetAttribute"))
    return status;
  std::snprintf(arch, size, "sm_%d%d", major, minor);
  return PW_SUCCESS;
}

pwStatus pwDeviceSynchronize() {
  const CudaDriver *driver = nullptr;
  if (pwStatus status = ensureContext("pwDeviceSynchronize", driver))
    return status;
  return checkCuda(driver->cuCtxSynchronize(), "pwDeviceSynchronize",
                   "cuCtxSynchronize");
}
