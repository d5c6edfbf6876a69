//===- FakeCudaDriver.h - A libcuda stand-in for runtime tests --*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// libFakeCudaDriver.so exports the cu* entry points the runtime resolves,
// with host memory as device memory and launches that are only recorded, so
// the runtime's context, memory, module and launch paths run in CI without a
// GPU. Tests load the runtime with POINTWISE_CUDA_DRIVER set to it and reach
// its state through fakeCudaState() (dlopen of the same path gives the same
// library).
//
// It also exports cuCtxCreate_v2 and cuCtxDestroy_v2, which the runtime does
// not call, for tests to make and destroy contexts as another library would.
// Built with FAKE_CUDA_WITHOUT_CONTEXT_IDS it lacks cuCtxGetId, like drivers
// before CUDA 12.0 (its contexts still have IDs inside, so that it refuses
// the handles of a destroyed context as a real driver does).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_TEST_UNIT_RUNTIME_FAKECUDADRIVER_H
#define POINTWISE_TEST_UNIT_RUNTIME_FAKECUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

/// A context of the fake driver: a device's primary one, or a foreign one
/// (as another library would create). A destroyed context's storage is
/// reused by the next one created, so the new context has its handle.
struct FakeContext {
  int device;
  bool primary;
  /// What cuCtxGetId reports: unique, never reused.
  unsigned long long id = 0;
  bool destroyed = false;
};

struct FakeLaunch {
  void *function;
  unsigned grid[3];
  unsigned block[3];
  unsigned sharedMemoryBytes;
  void *stream;
  void **parameters;
  FakeContext *context;
};

struct FakeCudaState {
  std::mutex mutex;
  int deviceCount = 2;
  /// The next call of the entry point `failName` returns `failResult`.
  std::string failName;
  int failResult = 0;

  int primaryRetains = 0;
  int primaryReleases = 0;
  int contextIdQueries = 0;
  int moduleLoads = 0;
  int moduleUnloads = 0;
  /// Modules loaded and not unloaded yet.
  int liveModules = 0;
  int functionLookups = 0;
  /// The last module image and PTX JIT optimization level (-1: none).
  const void *lastImage = nullptr;
  std::string lastImageText;
  int lastOptimizationLevel = -1;
  std::vector<FakeLaunch> launches;
  int sharedMemoryOptIn = 0;
  /// What cuFuncGetAttribute reports as every function's static shared
  /// memory.
  int staticSharedBytes = 0;
  int liveStreams = 0;
  /// Stream-ordered allocations and releases, and the stream of the last.
  int asyncAllocations = 0;
  int asyncFrees = 0;
  void *lastAllocationStream = nullptr;
  /// Memory pools made (cuMemPoolCreate), the last one's device and release
  /// threshold, allocations from a pool and the pool of the last, and trims.
  int poolsCreated = 0;
  int lastPoolDevice = -1;
  unsigned long long lastReleaseThreshold = 0;
  int poolAllocations = 0;
  void *lastAllocationPool = nullptr;
  int poolTrims = 0;
  int liveEvents = 0;
  unsigned lastStreamFlags = 0;
  unsigned lastEventFlags = 0;
  void *registeredPointer = nullptr;
  size_t registeredBytes = 0;
  void *unregisteredPointer = nullptr;
  int synchronizations = 0;
};

extern "C" {
FakeCudaState *fakeCudaState();
/// The calling thread's current context.
FakeContext *fakeCudaCurrentContext();
/// Makes a new non-primary context of `device` current on the thread.
void fakeCudaMakeForeignContextCurrent(int device);
}

#endif // POINTWISE_TEST_UNIT_RUNTIME_FAKECUDADRIVER_H
