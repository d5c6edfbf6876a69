//===- FakeCudaDriver.cpp - A libcuda stand-in for runtime tests ----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Only what the runtime's tests need: devices that exist, contexts that can be
// current, host memory as device memory, "PTX" whose `.entry name(` lines are
// its kernels, and launches that are recorded instead of run. Any entry point
// can be made to fail once (FakeCudaState::failName).
//
// Modules and functions belong to the context current when the module was
// loaded, as with the real driver: looking a function up, launching it or
// unloading its module with another context current fails, so that a runtime
// that mixes contexts up fails its tests here too. They are told apart by ID,
// so a context created where a destroyed one was refuses the destroyed one's
// modules and functions, which went with it.
//
//===----------------------------------------------------------------------===//

#include "FakeCudaDriver.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace {
using CUresult = int;

constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kOutOfMemory = 2;
constexpr CUresult kInvalidDevice = 101;
constexpr CUresult kInvalidContext = 201;
constexpr CUresult kInvalidPtx = 218;
constexpr CUresult kInvalidHandle = 400;
constexpr CUresult kNotFound = 500;
constexpr CUresult kContextIsDestroyed = 709;

struct FakeFunction {
  std::string name;
  /// Its module's context: the only one it can be launched in.
  FakeContext *context;
  unsigned long long contextId;
};

struct FakeModule {
  std::string text;
  /// The context current when it was loaded.
  FakeContext *context;
  unsigned long long contextId;
  std::vector<std::unique_ptr<FakeFunction>> functions;
  /// Unloaded with its context. It is kept, so that the runtime's use of
  /// its handle is refused rather than undefined.
  bool destroyed = false;
};

FakeCudaState state;
FakeContext primaryContexts[8];
thread_local FakeContext *currentContext = nullptr;
// Under state.mutex:
unsigned long long nextContextId = 1;
/// Destroyed contexts, whose storage the next created ones take, last first.
std::vector<FakeContext *> destroyedContexts;
std::vector<FakeModule *> loadedModules;

/// The result injected for `name`, once.
CUresult injected(const char *name) {
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.failName != name)
    return kSuccess;
  state.failName.clear();
  return state.failResult;
}

#define FAKE_INJECT(name)                                                      \
  if (CUresult result = injected(name))                                        \
  return result

template <typename T>
CUresult fill(unsigned long long to, T value, size_t count) {
  T *elements = reinterpret_cast<T *>(static_cast<uintptr_t>(to));
  for (size_t i = 0; i < count; ++i)
    elements[i] = value;
  return kSuccess;
}

bool validDevice(int device) {
  return device >= 0 && device < state.deviceCount && device < 8;
}

/// Whether something of the context `context` with ID `id` may be used now.
bool inCurrentContext(const FakeContext *context, unsigned long long id) {
  return currentContext && context == currentContext &&
         id == currentContext->id;
}
} // namespace

extern "C" {

FakeCudaState *fakeCudaState() { return &state; }

FakeContext *fakeCudaCurrentContext() { return currentContext; }

CUresult cuCtxCreate_v2(FakeContext **context, unsigned flags, int device);

void fakeCudaMakeForeignContextCurrent(int device) {
  FakeContext *context = nullptr;
  cuCtxCreate_v2(&context, 0, device);
}

CUresult cuInit(unsigned flags) {
  FAKE_INJECT("cuInit");
  return flags == 0 ? kSuccess : kInvalidValue;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case kSuccess:
    *name = "CUDA_SUCCESS";
    return kSuccess;
  case kInvalidValue:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return kSuccess;
  case kOutOfMemory:
    *name = "CUDA_ERROR_OUT_OF_MEMORY";
    return kSuccess;
  case kInvalidDevice:
    *name = "CUDA_ERROR_INVALID_DEVICE";
    return kSuccess;
  case kInvalidContext:
    *name = "CUDA_ERROR_INVALID_CONTEXT";
    return kSuccess;
  case kInvalidPtx:
    *name = "CUDA_ERROR_INVALID_PTX";
    return kSuccess;
  case kInvalidHandle:
    *name = "CUDA_ERROR_INVALID_HANDLE";
    return kSuccess;
  case kNotFound:
    *name = "CUDA_ERROR_NOT_FOUND";
    return kSuccess;
  case kContextIsDestroyed:
    *name = "CUDA_ERROR_CONTEXT_IS_DESTROYED";
    return kSuccess;
  }
  *name = nullptr;
  return kInvalidValue;
}

CUresult cuGetErrorString(CUresult error, const char **description) {
  switch (error) {
  case kSuccess:
    *description = "no error";
    return kSuccess;
  case kInvalidValue:
    *description = "invalid argument";
    return kSuccess;
  case kOutOfMemory:
    *description = "out of memory";
    return kSuccess;
  case kInvalidDevice:
    *description = "invalid device ordinal";
    return kSuccess;
  case kInvalidContext:
    *description = "invalid device context";
    return kSuccess;
  case kInvalidPtx:
    *description = "a PTX JIT compilation failed";
    return kSuccess;
  case kInvalidHandle:
    *description = "invalid resource handle";
    return kSuccess;
  case kNotFound:
    *description = "named symbol not found";
    return kSuccess;
  case kContextIsDestroyed:
    *description = "context is destroyed";
    return kSuccess;
  }
  *description = nullptr;
  return kInvalidValue;
}

CUresult cuDeviceGetCount(int *count) {
  FAKE_INJECT("cuDeviceGetCount");
  *count = state.deviceCount;
  return kSuccess;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  FAKE_INJECT("cuDeviceGet");
  if (!validDevice(ordinal))
    return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}

CUresult cuDeviceGetName(char *name, int length, int device) {
  if (!validDevice(device))
    return kInvalidDevice;
  std::string text = "Fake GPU " + std::to_string(device);
  std::strncpy(name, text.c_str(), length);
  return kSuccess;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  if (!validDevice(device))
    return kInvalidDevice;
  FAKE_INJECT("cuDeviceGetAttribute");
  if (attribute == 75)
    *value = 9;
  else if (attribute == 76)
    *value = 0;
  else if (attribute == 81) // shared memory per multiprocessor: an H100's
    *value = device == 0 ? 233472 : 167936; // and an A100's
  else if (attribute == 97)                 // per block, opted in
    *value = device == 0 ? 232448 : 166912;
  else if (attribute == 111) // reserved per block
    *value = 1024;
  else
    return kInvalidValue;
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRetain(FakeContext **context, int device) {
  FAKE_INJECT("cuDevicePrimaryCtxRetain");
  if (!validDevice(device))
    return kInvalidDevice;
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.primaryRetains;
  if (!primaryContexts[device].id)
    primaryContexts[device] = {device, true, nextContextId++};
  *context = &primaryContexts[device];
  return kSuccess;
}

/// Gives back a retain of `device`'s primary context (counted; the fake keeps
/// the context).
CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  if (!validDevice(device))
    return kInvalidDevice;
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.primaryReleases;
  return kSuccess;
}

/// Whether `device`'s primary context is active: retained since the process
/// started (the fake never deactivates one).
CUresult cuDevicePrimaryCtxGetState(int device, unsigned *flags, int *active) {
  if (!validDevice(device))
    return kInvalidDevice;
  if (!flags || !active)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(state.mutex);
  *flags = 0;
  *active = primaryContexts[device].id != 0;
  return kSuccess;
}

/// Makes a new context current (the real one pushes it on the thread's
/// stack of contexts, which the fake does not have).
CUresult cuCtxCreate_v2(FakeContext **context, unsigned flags, int device) {
  if (!context || flags != 0)
    return kInvalidValue;
  if (!validDevice(device))
    return kInvalidDevice;
  std::lock_guard<std::mutex> lock(state.mutex);
  FakeContext *created = nullptr;
  if (destroyedContexts.empty()) {
    created = new FakeContext{device, false};
  } else {
    created = destroyedContexts.back();
    destroyedContexts.pop_back();
  }
  *created = {device, false, nextContextId++};
  currentContext = *context = created;
  return kSuccess;
}

/// Destroys a context made by cuCtxCreate_v2 with its modules, and makes no
/// context current if it was the thread's (the real one pops it).
CUresult cuCtxDestroy_v2(FakeContext *context) {
  if (!context || context->primary)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(state.mutex);
  if (context->destroyed)
    return kContextIsDestroyed;
  for (auto it = loadedModules.begin(); it != loadedModules.end();) {
    if ((*it)->contextId != context->id) {
      ++it;
      continue;
    }
    (*it)->destroyed = true;
    --state.liveModules;
    it = loadedModules.erase(it);
  }
  context->destroyed = true;
  destroyedContexts.push_back(context);
  if (currentContext == context)
    currentContext = nullptr;
  return kSuccess;
}

CUresult cuCtxGetCurrent(FakeContext **context) {
  *context = currentContext;
  return kSuccess;
}

CUresult cuCtxSetCurrent(FakeContext *context) {
  FAKE_INJECT("cuCtxSetCurrent");
  if (context && context->destroyed)
    return kContextIsDestroyed;
  currentContext = context;
  return kSuccess;
}

#ifndef FAKE_CUDA_WITHOUT_CONTEXT_IDS
/// The ID of `context`, or of the current context if it is null.
CUresult cuCtxGetId(FakeContext *context, unsigned long long *id) {
  if (!id)
    return kInvalidValue;
  if (!context && !(context = currentContext))
    return kInvalidContext;
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.contextIdQueries;
  if (context->destroyed)
    return kContextIsDestroyed;
  *id = context->id;
  return kSuccess;
}
#endif

CUresult cuCtxGetDevice(int *device) {
  if (!currentContext)
    return kInvalidContext;
  *device = currentContext->device;
  return kSuccess;
}

CUresult cuCtxSynchronize() {
  FAKE_INJECT("cuCtxSynchronize");
  if (!currentContext)
    return kInvalidContext;
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.synchronizations;
  return kSuccess;
}

CUresult cuMemAlloc_v2(unsigned long long *pointer, size_t bytes) {
  FAKE_INJECT("cuMemAlloc_v2");
  if (!currentContext)
    return kInvalidContext;
  void *allocation = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!allocation)
    return kOutOfMemory;
  *pointer = reinterpret_cast<uintptr_t>(allocation);
  return kSuccess;
}

CUresult cuMemAllocManaged(unsigned long long *pointer, size_t bytes,
                           unsigned flags) {
  if (flags != 1)
    return kInvalidValue;
  return cuMemAlloc_v2(pointer, bytes);
}

CUresult cuMemFree_v2(unsigned long long pointer) {
  FAKE_INJECT("cuMemFree_v2");
  std::free(reinterpret_cast<void *>(static_cast<uintptr_t>(pointer)));
  return kSuccess;
}

CUresult cuMemAllocAsync(unsigned long long *pointer, size_t bytes,
                         void *stream) {
  FAKE_INJECT("cuMemAllocAsync");
  CUresult result = cuMemAlloc_v2(pointer, bytes);
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.asyncAllocations;
  state.lastAllocationStream = stream;
  return result;
}

// A pool is a counter's address: the fake allocates from the heap anyway.
CUresult cuMemPoolCreate(void **pool, const void *props) {
  FAKE_INJECT("cuMemPoolCreate");
  // CUmemPoolProps: allocType, handleTypes, then location {type, id}.
  const int *fields = static_cast<const int *>(props);
  if (fields[0] != 1 || fields[1] != 0 || fields[2] != 1)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.poolsCreated;
  state.lastPoolDevice = fields[3];
  *pool = &state.poolsCreated;
  return kSuccess;
}

CUresult cuMemPoolSetAttribute(void *pool, int attribute, void *value) {
  FAKE_INJECT("cuMemPoolSetAttribute");
  if (pool != &state.poolsCreated || attribute != 4)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(state.mutex);
  state.lastReleaseThreshold = *static_cast<unsigned long long *>(value);
  return kSuccess;
}

CUresult cuMemPoolTrimTo(void *pool, size_t /*minBytesToKeep*/) {
  FAKE_INJECT("cuMemPoolTrimTo");
  if (pool != &state.poolsCreated)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.poolTrims;
  return kSuccess;
}

CUresult cuMemAllocFromPoolAsync(unsigned long long *pointer, size_t bytes,
                                 void *pool, void *stream) {
  FAKE_INJECT("cuMemAllocFromPoolAsync");
  if (pool != &state.poolsCreated)
    return kInvalidValue;
  CUresult result = cuMemAlloc_v2(pointer, bytes);
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.poolAllocations;
  state.lastAllocationPool = pool;
  state.lastAllocationStream = stream;
  return result;
}

CUresult cuMemFreeAsync(unsigned long long pointer, void *stream) {
  FAKE_INJECT("cuMemFreeAsync");
  std::free(reinterpret_cast<void *>(static_cast<uintptr_t>(pointer)));
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.asyncFrees;
  state.lastAllocationStream = stream;
  return kSuccess;
}

CUresult cuMemcpyAsync(unsigned long long to, unsigned long long from,
                       size_t bytes, void * /*stream*/) {
  FAKE_INJECT("cuMemcpyAsync");
  std::memcpy(reinterpret_cast<void *>(static_cast<uintptr_t>(to)),
              reinterpret_cast<void *>(static_cast<uintptr_t>(from)), bytes);
  return kSuccess;
}

CUresult cuMemsetD8Async(unsigned long long to, unsigned char value,
                         size_t count, void * /*stream*/) {
  return fill(to, value, count);
}

CUresult cuMemsetD16Async(unsigned long long to, unsigned short value,
                          size_t count, void * /*stream*/) {
  return fill(to, value, count);
}

CUresult cuMemsetD32Async(unsigned long long to, unsigned value, size_t count,
                          void * /*stream*/) {
  return fill(to, value, count);
}

CUresult cuMemHostRegister_v2(void *pointer, size_t bytes, unsigned flags) {
  std::lock_guard<std::mutex> lock(state.mutex);
  state.registeredPointer = pointer;
  state.registeredBytes = bytes;
  return flags == 0 ? kSuccess : kInvalidValue;
}

CUresult cuMemHostUnregister(void *pointer) {
  std::lock_guard<std::mutex> lock(state.mutex);
  state.unregisteredPointer = pointer;
  return kSuccess;
}

CUresult cuStreamCreate(void **stream, unsigned flags) {
  FAKE_INJECT("cuStreamCreate");
  if (!currentContext)
    return kInvalidContext;
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.liveStreams;
  state.lastStreamFlags = flags;
  *stream = new int(0);
  return kSuccess;
}

CUresult cuStreamDestroy_v2(void *stream) {
  if (!stream)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(state.mutex);
  --state.liveStreams;
  delete static_cast<int *>(stream);
  return kSuccess;
}

CUresult cuStreamSynchronize(void * /*stream*/) {
  FAKE_INJECT("cuStreamSynchronize");
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.synchronizations;
  return kSuccess;
}

CUresult cuStreamWaitEvent(void * /*stream*/, void *event, unsigned flags) {
  return event && flags == 0 ? kSuccess : kInvalidValue;
}

CUresult cuEventCreate(void **event, unsigned flags) {
  FAKE_INJECT("cuEventCreate");
  if (!currentContext)
    return kInvalidContext;
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.liveEvents;
  state.lastEventFlags = flags;
  *event = new int(0);
  return kSuccess;
}

CUresult cuEventDestroy_v2(void *event) {
  if (!event)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(state.mutex);
  --state.liveEvents;
  delete static_cast<int *>(event);
  return kSuccess;
}

CUresult cuEventRecord(void *event, void * /*stream*/) {
  return event ? kSuccess : kInvalidValue;
}

CUresult cuEventSynchronize(void *event) {
  return event ? kSuccess : kInvalidValue;
}

CUresult cuEventElapsedTime_v2(float *milliseconds, void *start, void *end) {
  if (!start || !end)
    return kInvalidValue;
  *milliseconds = 1.5f;
  return kSuccess;
}

CUresult cuModuleLoadDataEx(FakeModule **module, const void *image,
                            unsigned numOptions, int *options,
                            void **optionValues) {
  FAKE_INJECT("cuModuleLoadDataEx");
  if (!currentContext)
    return kInvalidContext;
  char *log = nullptr;
  size_t logSize = 0;
  int optimizationLevel = -1;
  for (unsigned i = 0; i < numOptions; ++i) {
    if (options[i] == 5)
      log = static_cast<char *>(optionValues[i]);
    else if (options[i] == 6)
      logSize = reinterpret_cast<uintptr_t>(optionValues[i]);
    else if (options[i] == 7)
      optimizationLevel =
          static_cast<int>(reinterpret_cast<uintptr_t>(optionValues[i]));
  }
  std::string text = static_cast<const char *>(image);
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    state.lastImage = image;
    state.lastImageText = text;
    state.lastOptimizationLevel = optimizationLevel;
  }
  if (text.find("BAD-PTX") != std::string::npos) {
    if (log && logSize)
      std::strncpy(log, "ptxas fatal   : Unresolved extern function 'oops'",
                   logSize - 1);
    return kInvalidPtx;
  }
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.moduleLoads;
  ++state.liveModules;
  *module = new FakeModule{text, currentContext, currentContext->id, {}};
  loadedModules.push_back(*module);
  return kSuccess;
}

CUresult cuModuleUnload(FakeModule *module) {
  if (!module)
    return kInvalidValue;
  if (module->destroyed)
    return kInvalidHandle;
  // "Unloads a module from the current context."
  if (!inCurrentContext(module->context, module->contextId))
    return kInvalidContext;
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.moduleUnloads;
  --state.liveModules;
  loadedModules.erase(
      std::find(loadedModules.begin(), loadedModules.end(), module));
  delete module;
  return kSuccess;
}

CUresult cuModuleGetFunction(FakeFunction **function, FakeModule *module,
                             const char *name) {
  if (!module || !currentContext)
    return kInvalidValue;
  if (!inCurrentContext(module->context, module->contextId))
    return kInvalidHandle;
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.functionLookups;
  if (module->text.find(".entry " + std::string(name) + "(") ==
      std::string::npos)
    return kNotFound;
  module->functions.push_back(std::make_unique<FakeFunction>(
      FakeFunction{name, module->context, module->contextId}));
  *function = module->functions.back().get();
  return kSuccess;
}

CUresult cuFuncGetAttribute(int *value, int attribute, FakeFunction *function) {
  FAKE_INJECT("cuFuncGetAttribute");
  if (!function || attribute != 1)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(state.mutex);
  *value = state.staticSharedBytes;
  return kSuccess;
}

CUresult cuFuncSetAttribute(FakeFunction *function, int attribute, int value) {
  if (!function || attribute != 8)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(state.mutex);
  state.sharedMemoryOptIn = value;
  return kSuccess;
}

CUresult cuLaunchKernel(FakeFunction *function, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned sharedMemoryBytes,
                        void *stream, void **parameters, void **extra) {
  FAKE_INJECT("cuLaunchKernel");
  if (!currentContext)
    return kInvalidContext;
  if (!function || extra)
    return kInvalidValue;
  if (!inCurrentContext(function->context, function->contextId))
    return kInvalidHandle;
  std::lock_guard<std::mutex> lock(state.mutex);
  state.launches.push_back({function,
                            {gridX, gridY, gridZ},
                            {blockX, blockY, blockZ},
                            sharedMemoryBytes,
                            stream,
                            parameters,
                            currentContext});
  return kSuccess;
}

} // extern "C"
