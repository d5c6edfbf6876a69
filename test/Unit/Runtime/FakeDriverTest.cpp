//===- FakeDriverTest.cpp - The runtime over a fake CUDA driver -----------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The runtime's device paths (contexts, memory, lazy modules, launches,
// streams, driver errors) over libFakeCudaDriver.so, which records instead of
// running. The tests of one process share the driver and the selected device,
// so everything about device selection is one test, in order.
//
// They run twice: over the fake driver, and over its build without
// cuCtxGetId (FAKE_CUDA_CONTEXT_IDS 0), as drivers before CUDA 12.0, where
// everything works but telling a context made at a destroyed one's address
// from that one.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Runtime/Runtime.h"

#include "FakeCudaDriver.h"
#include "MgpuAbi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <thread>
#include <vector>

namespace {

[[maybe_unused]] const int driverOverride =
    setenv("POINTWISE_CUDA_DRIVER", FAKE_CUDA_DRIVER_PATH, 1);

/// Whether the driver has cuCtxGetId, so that the runtime tells contexts
/// apart by ID.
constexpr bool kContextIds = FAKE_CUDA_CONTEXT_IDS;

/// The fake driver the runtime loaded (the same library, so the same state).
struct FakeDriver {
  FakeCudaState *state;
  FakeContext *(*currentContext)();
  void (*makeForeignContextCurrent)(int);
  // The driver API as another library calls it.
  int (*createContext)(FakeContext **, unsigned, int);
  int (*destroyContext)(FakeContext *);
  int (*setCurrentContext)(FakeContext *);
  int (*retainPrimaryContext)(FakeContext **, int);

  FakeDriver() {
    void *library = dlopen(FAKE_CUDA_DRIVER_PATH, RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(library, nullptr) << dlerror();
    state = reinterpret_cast<FakeCudaState *(*)()>(
        dlsym(library, "fakeCudaState"))();
    currentContext = reinterpret_cast<FakeContext *(*)()>(
        dlsym(library, "fakeCudaCurrentContext"));
    makeForeignContextCurrent = reinterpret_cast<void (*)(int)>(
        dlsym(library, "fakeCudaMakeForeignContextCurrent"));
    createContext = reinterpret_cast<int (*)(FakeContext **, unsigned, int)>(
        dlsym(library, "cuCtxCreate_v2"));
    destroyContext = reinterpret_cast<int (*)(FakeContext *)>(
        dlsym(library, "cuCtxDestroy_v2"));
    setCurrentContext = reinterpret_cast<int (*)(FakeContext *)>(
        dlsym(library, "cuCtxSetCurrent"));
    retainPrimaryContext = reinterpret_cast<int (*)(FakeContext **, int)>(
        dlsym(library, "cuDevicePrimaryCtxRetain"));
    EXPECT_EQ(dlsym(library, "cuCtxGetId") != nullptr, kContextIds);
  }

  /// The next call of `function` fails with `result`.
  void failNext(const char *function, int result) {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->failName = function;
    state->failResult = result;
  }
};

FakeDriver &fake() {
  static FakeDriver driver;
  return driver;
}

std::string lastMessage() { return pwGetLastErrorMessage(); }

/// Runs `body` on a new thread, which has no current context yet.
template <typename Body> void onNewThread(Body body) {
  std::thread(body).join();
}

/// The context the fake driver has current on a new thread after `body`.
template <typename Body> FakeContext contextAfter(Body body) {
  FakeContext context{-1, false};
  onNewThread([&] {
    body();
    if (FakeContext *current = fake().currentContext())
      context = *current;
  });
  return context;
}

void allocateAndFree() {
  void *pointer = nullptr;
  EXPECT_EQ(pwMalloc(&pointer, 16), PW_SUCCESS) << lastMessage();
  EXPECT_EQ(pwFree(pointer), PW_SUCCESS) << lastMessage();
}

TEST(FakeDriverTest, DeviceQueries) {
  int count = 0;
  ASSERT_EQ(pwGetDeviceCount(&count), PW_SUCCESS) << lastMessage();
  EXPECT_EQ(count, 2);
  char name[64];
  ASSERT_EQ(pwGetDeviceName(1, name, sizeof(name)), PW_SUCCESS);
  EXPECT_STREQ(name, "Fake GPU 1");
  ASSERT_EQ(pwGetDeviceName(0, name, 4), PW_SUCCESS);
  EXPECT_STREQ(name, "Fak");
  ASSERT_EQ(pwGetDeviceArch(0, name, sizeof(name)), PW_SUCCESS);
  EXPECT_STREQ(name, "sm_90");
  EXPECT_EQ(pwGetDeviceName(5, name, sizeof(name)), PW_ERROR_NO_DEVICE);
  EXPECT_EQ(lastMessage(),
            "pwGetDeviceName: there is no CUDA device 5 (2 devices)");
}

TEST(FakeDriverTest, ContextSelection) {
  // Nothing chosen: device 0's primary context, or $POINTWISE_DEVICE's.
  FakeContext context = contextAfter(allocateAndFree);
  EXPECT_EQ(context.device, 0);
  EXPECT_TRUE(context.primary);
  setenv("POINTWISE_DEVICE", "1", 1);
  context = contextAfter(allocateAndFree);
  EXPECT_EQ(context.device, 1);
  EXPECT_TRUE(context.primary);
  setenv("POINTWISE_DEVICE", "one", 1);
  onNewThread([] {
    void *pointer = nullptr;
    EXPECT_EQ(pwMalloc(&pointer, 16), PW_ERROR_INVALID_VALUE);
    EXPECT_EQ(lastMessage(),
              "pwMalloc: POINTWISE_DEVICE=one is not a device ordinal");
  });
  unsetenv("POINTWISE_DEVICE");

  // A context another library made current is used as it is.
  context = contextAfter([] {
    fake().makeForeignContextCurrent(1);
    allocateAndFree();
  });
  EXPECT_EQ(context.device, 1);
  EXPECT_FALSE(context.primary);

  // pwSetDevice holds for every thread, unless a thread's context is already
  // on that device.
  context = contextAfter([] { EXPECT_EQ(pwSetDevice(1), PW_SUCCESS); });
  EXPECT_EQ(context.device, 1);
  EXPECT_TRUE(context.primary);
  context = contextAfter(allocateAndFree);
  EXPECT_EQ(context.device, 1);
  context = contextAfter([] {
    fake().makeForeignContextCurrent(0);
    allocateAndFree();
  });
  EXPECT_EQ(context.device, 1);
  EXPECT_TRUE(context.primary);
  context = contextAfter([] {
    fake().makeForeignContextCurrent(1);
    allocateAndFree();
  });
  EXPECT_FALSE(context.primary);

  // The compiled-code path selects devices the same way.
  context = contextAfter([] {
    mgpuSetDefaultDevice(0);
    EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
  });
  EXPECT_EQ(context.device, 0);
  context = contextAfter([] { mgpuStreamDestroy(mgpuStreamCreate()); });
  EXPECT_EQ(context.device, 0);
  EXPECT_TRUE(context.primary);

  EXPECT_EQ(pwSetDevice(7), PW_ERROR_NO_DEVICE);
  EXPECT_EQ(lastMessage(),
            "pwSetDevice: there is no CUDA device 7 (2 devices)");
  EXPECT_EQ(pwSetDevice(0), PW_SUCCESS);
}

TEST(FakeDriverTest, AContextSwitchedBehindTheRuntimeIsCheckedAgain) {
  // A thread that already used device 0 after pwSetDevice(0), whose current
  // context another library then switches (torch.cuda.set_device(1)): the
  // next call goes back to device 0, as on a thread that never ran one.
  for (int device : {0, 1}) {
    FakeContext context = contextAfter([device] {
      ASSERT_EQ(pwSetDevice(device), PW_SUCCESS);
      allocateAndFree();
      fake().makeForeignContextCurrent(1 - device);
      allocateAndFree();
    });
    EXPECT_EQ(context.device, device);
    EXPECT_TRUE(context.primary);
  }
  // A context switched to another one of the selected device is kept.
  FakeContext context = contextAfter([] {
    allocateAndFree();
    fake().makeForeignContextCurrent(1);
    allocateAndFree();
  });
  EXPECT_EQ(context.device, 1);
  EXPECT_FALSE(context.primary);
  EXPECT_EQ(pwSetDevice(0), PW_SUCCESS);
}

TEST(FakeDriverTest, ExchangeDeviceIsAScopedGuardOfOneThread) {
  ASSERT_EQ(pwSetDevice(0), PW_SUCCESS);
  // A call on device 1 from a thread whose device is 0: the thread's calls
  // use device 1 until it gives device 0 back; other threads keep 0.
  FakeContext during{-1, false}, other{-1, false};
  FakeContext context = contextAfter([&] {
    allocateAndFree();
    int previous = -2;
    ASSERT_EQ(pwExchangeDevice(1, &previous), PW_SUCCESS) << lastMessage();
    EXPECT_EQ(previous, 0);
    allocateAndFree();
    during = *fake().currentContext();
    other = contextAfter(allocateAndFree);
    // Again on the same device: nothing to give back.
    ASSERT_EQ(pwExchangeDevice(1, &previous), PW_SUCCESS);
    EXPECT_EQ(previous, 1);
    ASSERT_EQ(pwExchangeDevice(0, nullptr), PW_SUCCESS);
    allocateAndFree();
  });
  EXPECT_EQ(during.device, 1);
  EXPECT_TRUE(during.primary);
  EXPECT_EQ(other.device, 0);
  EXPECT_EQ(context.device, 0);
  EXPECT_TRUE(context.primary);

  // Another library's context already on the device stays current; with no
  // context current there is nothing to give back.
  context = contextAfter([] {
    fake().makeForeignContextCurrent(1);
    int previous = -2;
    ASSERT_EQ(pwExchangeDevice(1, &previous), PW_SUCCESS);
    EXPECT_EQ(previous, 1);
    allocateAndFree();
  });
  EXPECT_EQ(context.device, 1);
  EXPECT_FALSE(context.primary);
  context = contextAfter([] {
    int previous = -2;
    ASSERT_EQ(pwExchangeDevice(1, &previous), PW_SUCCESS);
    EXPECT_EQ(previous, -1);
  });
  EXPECT_EQ(context.device, 1);

  // pwSetDevice on the thread ends its own choice.
  context = contextAfter([] {
    ASSERT_EQ(pwExchangeDevice(1, nullptr), PW_SUCCESS);
    ASSERT_EQ(pwSetDevice(0), PW_SUCCESS);
    fake().makeForeignContextCurrent(1);
    allocateAndFree();
  });
  EXPECT_EQ(context.device, 0);
  EXPECT_TRUE(context.primary);

  onNewThread([] {
    int previous = -2;
    EXPECT_EQ(pwExchangeDevice(7, &previous), PW_ERROR_NO_DEVICE);
    EXPECT_EQ(lastMessage(),
              "pwExchangeDevice: there is no CUDA device 7 (2 devices)");
    EXPECT_EQ(pwExchangeDevice(-1, nullptr), PW_ERROR_NO_DEVICE);
  });
}

// Blocks of a kernel with `staticBytes` of shared memory, launched with
// `dynamicBytes` more, that fit in `perSM` bytes (128-byte allocation unit).
int residentBlocks(int perSM, int staticBytes, int dynamicBytes) {
  int perBlock = (staticBytes + dynamicBytes + 127) / 128 * 128 + 1024;
  return perSM / perBlock;
}

TEST(FakeDriverTest, OccupancySharedMemoryCapsResidentBlocks) {
  onNewThread([] {
    // The fake's device 1 has an A100's 164 KiB per multiprocessor.
    ASSERT_EQ(pwSetDevice(1), PW_SUCCESS);
    fake().failNext("cuDeviceGetAttribute", 1);
    EXPECT_EQ(pwOccupancySharedMemory(16640, 5), 0); // limits unknown
    int a100 = pwOccupancySharedMemory(16640, 5);    // read this time
    EXPECT_EQ(a100, 10368);
    EXPECT_EQ(residentBlocks(167936, 16640, a100), 5);

    // Device 0 has an H100's 228 KiB: a 64 x 65 f32 tile, 5 blocks.
    ASSERT_EQ(pwSetDevice(0), PW_SUCCESS);
    EXPECT_EQ(pwOccupancySharedMemory(16640, 5), 21376);
    for (int blocks = 1; blocks <= 16; ++blocks) {
      int padding = pwOccupancySharedMemory(16640, blocks);
      if (padding > 0) {
        // The cap, with the least padding that makes it (the most L1).
        EXPECT_EQ(residentBlocks(233472, 16640, padding), blocks) << blocks;
        EXPECT_GT(residentBlocks(233472, 16640, padding - 128), blocks)
            << blocks;
      } else { // the kernel's own memory allows no more (13 tiles fit)
        EXPECT_LE(residentBlocks(233472, 16640, 0), blocks) << blocks;
        EXPECT_GE(blocks, 13);
      }
    }
    EXPECT_EQ(pwOccupancySharedMemory(0, 8), 24960);
    EXPECT_EQ(pwOccupancySharedMemory(-1, 5), 0);
    EXPECT_EQ(pwOccupancySharedMemory(16640, 0), 0);
    EXPECT_EQ(pwOccupancySharedMemory(16640, -3), 0);
  });
}

TEST(FakeDriverTest, NoDevice) {
  fake().state->deviceCount = 0;
  onNewThread([] {
    void *pointer = nullptr;
    EXPECT_EQ(pwMalloc(&pointer, 16), PW_ERROR_NO_DEVICE);
    EXPECT_NE(lastMessage().find("pwMalloc: the CUDA driver reports no device"),
              std::string::npos)
        << lastMessage();
    int count = -1;
    EXPECT_EQ(pwGetDeviceCount(&count), PW_SUCCESS);
    EXPECT_EQ(count, 0);
  });
  fake().state->deviceCount = 2;
}

TEST(FakeDriverTest, MemoryRoundTrip) {
  unsigned char *device = nullptr, *copy = nullptr;
  ASSERT_EQ(pwMalloc(reinterpret_cast<void **>(&device), 64), PW_SUCCESS);
  ASSERT_EQ(pwMalloc(reinterpret_cast<void **>(&copy), 64), PW_SUCCESS);
  ASSERT_EQ(pwMemsetBytes(device, 0xab, 64), PW_SUCCESS);
  std::vector<unsigned char> host(64, 0);
  ASSERT_EQ(pwMemcpyDeviceToHost(host.data(), device, 64), PW_SUCCESS);
  EXPECT_EQ(host, std::vector<unsigned char>(64, 0xab));
  for (int i = 0; i < 64; ++i)
    host[i] = static_cast<unsigned char>(i);
  ASSERT_EQ(pwMemcpyHostToDevice(device, host.data(), 64), PW_SUCCESS);
  ASSERT_EQ(pwMemcpyDeviceToDevice(copy, device, 64), PW_SUCCESS);
  std::vector<unsigned char> result(64, 0);
  ASSERT_EQ(pwMemcpyDeviceToHost(result.data(), copy, 64), PW_SUCCESS);
  EXPECT_EQ(result, host);
  int synchronizations = fake().state->synchronizations;
  EXPECT_EQ(pwDeviceSynchronize(), PW_SUCCESS);
  EXPECT_EQ(fake().state->synchronizations, synchronizations + 1);
  EXPECT_EQ(pwFree(device), PW_SUCCESS);
  EXPECT_EQ(pwFree(copy), PW_SUCCESS);
}

TEST(FakeDriverTest, DriverErrorsAreTranslated) {
  fake().failNext("cuMemAlloc_v2", 2);
  void *pointer = nullptr;
  EXPECT_EQ(pwMalloc(&pointer, 64), PW_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(lastMessage(), "pwMalloc: cuMemAlloc failed: "
                           "CUDA_ERROR_OUT_OF_MEMORY: out of memory");
  fake().failNext("cuStreamCreate", 999);
  pwStream stream = nullptr;
  EXPECT_EQ(pwStreamCreate(&stream), PW_ERROR_DRIVER);
  EXPECT_EQ(lastMessage(),
            "pwStreamCreate: cuStreamCreate failed: CUDA error 999");
  fake().failNext("cuMemcpyAsync", 1);
  int value = 0;
  EXPECT_EQ(pwMemcpyHostToDevice(&value, &value, sizeof(value)),
            PW_ERROR_DRIVER);
  EXPECT_EQ(lastMessage(), "pwMemcpyHostToDevice: cuMemcpyAsync failed: "
                           "CUDA_ERROR_INVALID_VALUE: invalid argument");
  // In compiled code, the same failure is pending.
  fake().failNext("cuMemAlloc_v2", 2);
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
  EXPECT_EQ(pwTakePendingError(), PW_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(lastMessage(), "mgpuMemAlloc: cuMemAlloc failed: "
                           "CUDA_ERROR_OUT_OF_MEMORY: out of memory");
}

// Host code that allocates on a stream (pw-place-buffers-on-device's
// gpu.alloc on the current stream) gets stream-ordered memory from the
// runtime's pool of the device, which keeps freed memory (release threshold
// UINT64_MAX) until pwReleaseCachedMemory.
TEST(FakeDriverTest, AllocationsOnAStreamComeFromTheRuntimesPool) {
  FakeCudaState &state = *fake().state;
  ASSERT_EQ(pwSetDevice(0), PW_SUCCESS);
  pwStream stream = nullptr;
  ASSERT_EQ(pwStreamCreate(&stream), PW_SUCCESS);
  int allocations = state.poolAllocations, frees = state.asyncFrees;
  int pools = state.poolsCreated;
  auto *words = static_cast<uint32_t *>(mgpuMemAlloc(64, stream, false));
  ASSERT_NE(words, nullptr);
  EXPECT_EQ(state.poolsCreated, std::max(pools, 1));
  EXPECT_EQ(state.lastPoolDevice, 0);
  EXPECT_EQ(state.lastReleaseThreshold, UINT64_MAX);
  EXPECT_EQ(state.poolAllocations, allocations + 1);
  EXPECT_EQ(state.lastAllocationPool, static_cast<void *>(&state.poolsCreated));
  EXPECT_EQ(state.lastAllocationStream, static_cast<void *>(stream));
  mgpuMemFree(words, stream);
  EXPECT_EQ(state.asyncFrees, frees + 1);
  // One pool per device, made once.
  void *again = mgpuMemAlloc(64, stream, false);
  ASSERT_NE(again, nullptr);
  mgpuMemFree(again, stream);
  EXPECT_EQ(state.poolsCreated, std::max(pools, 1));
  EXPECT_EQ(state.poolAllocations, allocations + 2);
  // On the legacy default stream (null) too, for the host code of
  // pw-launch-on-current-stream.
  void *legacy = pwMemAllocOnStream(64, nullptr, false);
  ASSERT_NE(legacy, nullptr);
  EXPECT_EQ(state.poolAllocations, allocations + 3);
  EXPECT_EQ(state.lastAllocationStream, nullptr);
  pwMemFreeOnStream(legacy, nullptr);
  EXPECT_EQ(state.asyncFrees, frees + 3);
  allocations += 1;
  frees += 1;
  // mgpuMemAlloc without a stream, as upstream: cuMemAlloc and cuMemFree.
  void *plain = mgpuMemAlloc(64, nullptr, false);
  ASSERT_NE(plain, nullptr);
  mgpuMemFree(plain, nullptr);
  EXPECT_EQ(state.poolAllocations, allocations + 2);
  EXPECT_EQ(state.asyncFrees, frees + 2);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS);
  // The kept memory goes back on request.
  int trims = state.poolTrims;
  EXPECT_EQ(pwReleaseCachedMemory(), PW_SUCCESS);
  EXPECT_EQ(state.poolTrims, trims + 1);
  // A failing stream-ordered allocation is pending, like the others.
  fake().failNext("cuMemAllocFromPoolAsync", 2);
  EXPECT_EQ(mgpuMemAlloc(64, stream, false), nullptr);
  EXPECT_EQ(pwTakePendingError(), PW_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(lastMessage(), "mgpuMemAlloc: cuMemAllocFromPoolAsync failed: "
                           "CUDA_ERROR_OUT_OF_MEMORY: out of memory");
  EXPECT_EQ(pwStreamDestroy(stream), PW_SUCCESS);
}

// Where a device's pool cannot be made, the default pool serves
// (cuMemAllocAsync), and that device's pool is not tried again.
TEST(FakeDriverTest, AllocationsFallBackToTheDefaultPool) {
  FakeCudaState &state = *fake().state;
  ASSERT_EQ(pwSetDevice(1), PW_SUCCESS);
  pwStream stream = nullptr;
  ASSERT_EQ(pwStreamCreate(&stream), PW_SUCCESS);
  fake().failNext("cuMemPoolCreate", 1);
  int allocations = state.asyncAllocations;
  int poolAllocations = state.poolAllocations, pools = state.poolsCreated;
  for (int i = 0; i < 2; ++i) {
    void *memory = mgpuMemAlloc(64, stream, false);
    ASSERT_NE(memory, nullptr);
    mgpuMemFree(memory, stream);
  }
  EXPECT_EQ(state.asyncAllocations, allocations + 2);
  EXPECT_EQ(state.poolAllocations, poolAllocations);
  EXPECT_EQ(state.poolsCreated, pools);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS);
  EXPECT_EQ(pwReleaseCachedMemory(), PW_SUCCESS);
  EXPECT_EQ(pwStreamDestroy(stream), PW_SUCCESS);
  ASSERT_EQ(pwSetDevice(0), PW_SUCCESS);
}

const char kPtx[] = "// fake PTX\n.entry add(\n.entry mul(\n";

TEST(FakeDriverTest, ModulesLoadLazilyOnceAndCacheFunctions) {
  FakeCudaState &state = *fake().state;
  int loads = state.moduleLoads;
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(state.moduleLoads, loads);

  static const char add[] = "add";
  void *function = mgpuModuleGetFunction(module, add);
  ASSERT_NE(function, nullptr) << lastMessage();
  EXPECT_EQ(state.moduleLoads, loads + 1);
  EXPECT_EQ(state.lastImage, kPtx);
  EXPECT_EQ(state.lastOptimizationLevel, -1);
  int lookups = state.functionLookups;
  EXPECT_EQ(mgpuModuleGetFunction(module, add), function);
  EXPECT_EQ(state.functionLookups, lookups);
  // The cache is keyed by the name's address.
  std::string otherAdd = "add";
  EXPECT_NE(mgpuModuleGetFunction(module, otherAdd.c_str()), nullptr);
  EXPECT_EQ(state.functionLookups, lookups + 1);
  EXPECT_EQ(state.moduleLoads, loads + 1);

  int unloads = state.moduleUnloads;
  mgpuModuleUnload(module);
  EXPECT_EQ(state.moduleUnloads, unloads + 1);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
}

TEST(FakeDriverTest, ConcurrentFirstUsesLoadOnce) {
  FakeCudaState &state = *fake().state;
  int loads = state.moduleLoads;
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  static const char mul[] = "mul";
  std::vector<std::thread> threads;
  std::atomic<int> found{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      if (mgpuModuleGetFunction(module, mul))
        ++found;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(found, 8);
  EXPECT_EQ(state.moduleLoads, loads + 1);
  mgpuModuleUnload(module);
}

TEST(FakeDriverTest, ManyKernelNamesOverflowTheInlineCache) {
  std::string ptx;
  std::vector<std::string> names;
  for (int i = 0; i < 40; ++i) {
    names.push_back("kernel" + std::to_string(i));
    ptx += ".entry " + names.back() + "(\n";
  }
  void *module = mgpuModuleLoad(ptx.data(), ptx.size() + 1);
  std::vector<void *> functions;
  for (const std::string &name : names)
    functions.push_back(mgpuModuleGetFunction(module, name.c_str()));
  int lookups = fake().state->functionLookups;
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_NE(functions[i], nullptr);
    EXPECT_EQ(mgpuModuleGetFunction(module, names[i].c_str()), functions[i]);
  }
  EXPECT_EQ(fake().state->functionLookups, lookups);
  mgpuModuleUnload(module);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
}

TEST(FakeDriverTest, UnknownKernelIsAPendingNotFound) {
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  EXPECT_EQ(mgpuModuleGetFunction(module, "nope"), nullptr);
  EXPECT_EQ(pwTakePendingError(), PW_ERROR_NOT_FOUND);
  EXPECT_EQ(lastMessage(),
            "mgpuModuleGetFunction: kernel `nope`: cuModuleGetFunction "
            "failed: CUDA_ERROR_NOT_FOUND: named symbol not found");
  mgpuModuleUnload(module);
}

TEST(FakeDriverTest, JitErrorsCarryTheLog) {
  static char bad[] = ".entry add(\nBAD-PTX\n";
  void *module = mgpuModuleLoadJIT(bad, 3);
  EXPECT_EQ(mgpuModuleGetFunction(module, "add"), nullptr);
  EXPECT_EQ(pwTakePendingError(), PW_ERROR_DRIVER);
  EXPECT_EQ(lastMessage(),
            "mgpuModuleGetFunction: cuModuleLoadData failed: "
            "CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed\n"
            "ptxas fatal   : Unresolved extern function 'oops'");
  EXPECT_EQ(fake().state->lastOptimizationLevel, 3);
  mgpuModuleUnload(module);
}

TEST(FakeDriverTest, PtxWithoutNulIsTerminated) {
  static const char text[] = {'.', 'e', 'n', 't', 'r',
                              'y', ' ', 'k', '(', '\n'};
  pwModule module = nullptr;
  ASSERT_EQ(pwModuleLoad(&module, text, sizeof(text)), PW_SUCCESS)
      << lastMessage();
  EXPECT_NE(fake().state->lastImage, static_cast<const void *>(text));
  EXPECT_EQ(fake().state->lastImageText, std::string(text, sizeof(text)));
  pwFunction function = nullptr;
  EXPECT_EQ(pwModuleGetFunction(&function, module, "k"), PW_SUCCESS);
  EXPECT_NE(function, nullptr);
  EXPECT_EQ(pwModuleGetFunction(&function, module, "nope"), PW_ERROR_NOT_FOUND);
  EXPECT_EQ(function, nullptr);
  EXPECT_EQ(pwModuleUnload(module), PW_SUCCESS);
}

TEST(FakeDriverTest, LaunchesReachTheDriver) {
  FakeCudaState &state = *fake().state;
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  void *function = mgpuModuleGetFunction(module, "add");
  void *stream = mgpuStreamCreate();
  EXPECT_EQ(state.lastStreamFlags, 0u);
  int parameter = 7;
  void *parameters[] = {&parameter};
  state.launches.clear();
  mgpuLaunchKernel(function, 4, 2, 1, 128, 1, 1, 0, stream, parameters, nullptr,
                   1);
  mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 64 * 1024, stream, parameters,
                   nullptr, 1);
  ASSERT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
  ASSERT_EQ(state.launches.size(), 2u);
  const FakeLaunch &launch = state.launches[0];
  EXPECT_EQ(launch.function, function);
  EXPECT_EQ(launch.grid[0], 4u);
  EXPECT_EQ(launch.grid[1], 2u);
  EXPECT_EQ(launch.block[0], 128u);
  EXPECT_EQ(launch.stream, stream);
  EXPECT_EQ(launch.parameters, parameters);
  EXPECT_NE(launch.context, nullptr);
  EXPECT_EQ(state.sharedMemoryOptIn, 64 * 1024);

  mgpuLaunchKernel(function, 0, 1, 1, 32, 1, 1, 0, stream, parameters, nullptr,
                   1);
  EXPECT_EQ(pwTakePendingError(), PW_ERROR_INVALID_VALUE);
  EXPECT_NE(lastMessage().find("mgpuLaunchKernel: grid (0, 1, 1)"),
            std::string::npos)
      << lastMessage();
  EXPECT_EQ(state.launches.size(), 2u);

  EXPECT_EQ(pwLaunchKernel(reinterpret_cast<pwFunction>(function), 2, 1, 1, 64,
                           1, 1, 0, nullptr, parameters),
            PW_SUCCESS);
  EXPECT_EQ(state.launches.size(), 3u);
  EXPECT_EQ(pwLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr),
            PW_ERROR_INVALID_VALUE);

  // 48 KiB or less in all: no opt-in. More, counting the function's static
  // shared memory: the dynamic part is opted in.
  state.sharedMemoryOptIn = 0;
  state.staticSharedBytes = 16640;
  mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 24 * 1024, stream, parameters,
                   nullptr, 1);
  EXPECT_EQ(state.sharedMemoryOptIn, 0);
  mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 40 * 1024, stream, parameters,
                   nullptr, 1);
  EXPECT_EQ(state.sharedMemoryOptIn, 40 * 1024);
  state.staticSharedBytes = 0;
  fake().failNext("cuFuncGetAttribute", 1);
  mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 1024, stream, parameters,
                   nullptr, 1);
  EXPECT_EQ(pwTakePendingError(), PW_ERROR_DRIVER);
  EXPECT_NE(lastMessage().find("cuFuncGetAttribute"), std::string::npos)
      << lastMessage();
  EXPECT_EQ(state.launches.size(), 5u);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  mgpuModuleUnload(module);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
}

TEST(FakeDriverTest, StreamsAndEvents) {
  FakeCudaState &state = *fake().state;
  int streams = state.liveStreams, events = state.liveEvents;
  pwStream stream = nullptr;
  ASSERT_EQ(pwStreamCreate(&stream), PW_SUCCESS);
  EXPECT_EQ(state.lastStreamFlags, 0u);
  pwEvent start = nullptr, end = nullptr;
  ASSERT_EQ(pwEventCreate(&start), PW_SUCCESS);
  EXPECT_EQ(state.lastEventFlags, 0u);
  ASSERT_EQ(pwEventCreate(&end), PW_SUCCESS);
  EXPECT_EQ(pwEventRecord(start, stream), PW_SUCCESS);
  EXPECT_EQ(pwEventRecord(end, stream), PW_SUCCESS);
  EXPECT_EQ(pwEventSynchronize(end), PW_SUCCESS);
  float milliseconds = 0;
  EXPECT_EQ(pwEventElapsedMilliseconds(&milliseconds, start, end), PW_SUCCESS);
  EXPECT_EQ(milliseconds, 1.5f);
  EXPECT_EQ(pwStreamSynchronize(stream), PW_SUCCESS);
  EXPECT_EQ(state.liveStreams, streams + 1);
  EXPECT_EQ(state.liveEvents, events + 2);

  void *event = mgpuEventCreate();
  EXPECT_EQ(state.lastEventFlags, 2u);
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(stream, event);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();

  EXPECT_EQ(pwEventDestroy(start), PW_SUCCESS);
  EXPECT_EQ(pwEventDestroy(end), PW_SUCCESS);
  EXPECT_EQ(pwStreamDestroy(stream), PW_SUCCESS);
  EXPECT_EQ(state.liveStreams, streams);
  EXPECT_EQ(state.liveEvents, events);
}

TEST(FakeDriverTest, CompiledCodeMemory) {
  auto *words = static_cast<uint32_t *>(mgpuMemAlloc(64, nullptr, true));
  ASSERT_NE(words, nullptr);
  mgpuMemset32(words, 0xdeadbeef, 16, nullptr);
  mgpuMemset16(words, 0x1234, 2, nullptr);
  uint32_t host[16] = {};
  mgpuMemcpy(host, words, sizeof(host), nullptr);
  EXPECT_EQ(host[0], 0x12341234u);
  EXPECT_EQ(host[1], 0xdeadbeefu);
  EXPECT_EQ(host[15], 0xdeadbeefu);
  mgpuMemFree(words, nullptr);
  EXPECT_EQ(mgpuMemAlloc(0, nullptr, false), nullptr);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
}

TEST(FakeDriverTest, HostRegistrationCoversAStridedMemRef) {
  float buffer[64] = {};
  // A 3 x 4 view with strides [8, 2] at offset 1: elements 1 .. 23.
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } descriptor = {buffer, buffer, 1, {3, 4}, {8, 2}};
  mgpuMemHostRegisterMemRef(2, &descriptor, sizeof(float));
  EXPECT_EQ(fake().state->registeredPointer, buffer + 1);
  EXPECT_EQ(fake().state->registeredBytes, 23 * sizeof(float));
  mgpuMemHostUnregisterMemRef(2, &descriptor, sizeof(float));
  EXPECT_EQ(fake().state->unregisteredPointer, buffer + 1);
  // Flipped: elements 23 .. 1 from offset 23.
  descriptor = {buffer, buffer, 23, {3, 4}, {-8, -2}};
  mgpuMemHostRegisterMemRef(2, &descriptor, sizeof(float));
  EXPECT_EQ(fake().state->registeredPointer, buffer + 1);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
}

TEST(FakeDriverTest, HostRegistrationChecksTheLayoutBeforeEmptiness) {
  float buffer[16] = {};
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } descriptor = {buffer, buffer, 0, {0, -3}, {1, 1}};
  // A zero size does not hide a negative one, in either function.
  mgpuMemHostRegisterMemRef(2, &descriptor, sizeof(float));
  EXPECT_EQ(pwTakePendingError(), PW_ERROR_LAYOUT);
  EXPECT_EQ(lastMessage(), "mgpuMemHostRegisterMemRef: operand #0 dim 1 has "
                           "negative size -3");
  mgpuMemHostUnregisterMemRef(2, &descriptor, sizeof(float));
  EXPECT_EQ(pwTakePendingError(), PW_ERROR_LAYOUT);
  EXPECT_EQ(lastMessage(), "mgpuMemHostUnregisterMemRef: operand #0 dim 1 has "
                           "negative size -3");

  // An empty memref registers nothing, successfully.
  fake().state->registeredPointer = nullptr;
  descriptor = {buffer, buffer, 0, {0, 3}, {1, 1}};
  mgpuMemHostRegisterMemRef(2, &descriptor, sizeof(float));
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
  EXPECT_EQ(fake().state->registeredPointer, nullptr);

  // Only a byte range that does not fit is "more than the address space".
  descriptor = {buffer, buffer, 0, {2, 1}, {int64_t(1) << 61, 1}};
  mgpuMemHostRegisterMemRef(2, &descriptor, 8);
  EXPECT_EQ(pwTakePendingError(), PW_ERROR_LAYOUT);
  EXPECT_EQ(lastMessage(), "mgpuMemHostRegisterMemRef: the memref spans more "
                           "than the address space");
  EXPECT_EQ(fake().state->registeredPointer, nullptr);
}

/// A family whose entry does what compiled code does: look the kernel up and
/// launch it on the current stream with the descriptors it got.
void launchingEntry(void **args) {
  static char ptx[] = ".entry copy(\n";
  static void *module = mgpuModuleLoad(ptx, sizeof(ptx));
  static const char name[] = "copy";
  void *function = mgpuModuleGetFunction(module, name);
  mgpuLaunchKernel(function, 1, 1, 1, 128, 1, 1, 0, pwGetStream(), args,
                   nullptr, 2);
}

/// A rank-1 f32 copy family whose one variant launches through the mgpu
/// ABI (launchingEntry), with descriptors of two 8-element vectors.
struct CopyFamily {
  pwFamilyArgument arguments[2] = {{PW_ARGUMENT_MEMREF, PW_F32, 1,
                                    PW_FAMILY_ABI_VERSION, nullptr, nullptr, 0},
                                   {PW_ARGUMENT_MEMREF, PW_F32, 1,
                                    PW_FAMILY_ABI_VERSION, nullptr, nullptr,
                                    0}};
  int32_t outputs[1] = {1}, inputs[1] = {0};
  pwVariant variants[1] = {{1, 32, PW_STRATEGY_LINEAR, -1, launchingEntry}};
  pwFamily family = {"copy", 2, 1, 1, 1, arguments, outputs, inputs, variants};
  float a[8] = {}, c[8] = {};
  struct {
    void *allocated, *aligned;
    int64_t offset, size, stride;
  } am = {a, a, 0, 8, 1}, cm = {c, c, 0, 8, 1};
  void *args[2] = {&am, &cm};
};

TEST(FakeDriverTest, FamilyLaunchRunsCompiledCodeOnTheCurrentStream) {
  CopyFamily copy;
  const pwFamily &family = copy.family;
  void **args = copy.args;

  pwStream stream = nullptr;
  ASSERT_EQ(pwStreamCreate(&stream), PW_SUCCESS);
  pwSetStream(stream);
  fake().state->launches.clear();
  EXPECT_EQ(pwFamilyLaunch(&family, args), PW_SUCCESS) << lastMessage();
  pwSetStream(nullptr);
  ASSERT_EQ(fake().state->launches.size(), 1u);
  EXPECT_EQ(fake().state->launches[0].stream, stream);

  // A driver failure inside comes back from pwFamilyLaunch.
  fake().failNext("cuLaunchKernel", 1);
  EXPECT_EQ(pwFamilyLaunch(&family, args), PW_ERROR_DRIVER);
  EXPECT_EQ(lastMessage(), "mgpuLaunchKernel: cuLaunchKernel failed: "
                           "CUDA_ERROR_INVALID_VALUE: invalid argument");
  EXPECT_EQ(pwStreamDestroy(stream), PW_SUCCESS);
}

/// Looks `name` up in `module` and launches it as compiled code does; returns
/// the function, or null after a failure.
void *lookUpAndLaunch(void *module, const char *name) {
  void *function = mgpuModuleGetFunction(module, name);
  mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr,
                   0);
  pwStatus status = pwTakePendingError();
  EXPECT_EQ(status, PW_SUCCESS) << lastMessage();
  return status == PW_SUCCESS ? function : nullptr;
}

/// kPtx registered as a lazy module (the driver is not called yet), and the
/// fake driver's module counts from before.
struct LazyModule {
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  int loads = fake().state->moduleLoads;
  int unloads = fake().state->moduleUnloads;
  int live = fake().state->liveModules;
};

TEST(FakeDriverTest, ModulesLoadIntoEveryContextThatUsesThem) {
  FakeCudaState &state = *fake().state;
  static const char add[] = "add";
  LazyModule use;

  ASSERT_EQ(pwSetDevice(0), PW_SUCCESS);
  void *onDevice0 = lookUpAndLaunch(use.module, add);
  ASSERT_NE(onDevice0, nullptr);
  EXPECT_EQ(state.launches.back().context, fake().currentContext());
  EXPECT_EQ(state.moduleLoads, use.loads + 1);

  // Another device: the module is loaded there too, with its own functions.
  ASSERT_EQ(pwSetDevice(1), PW_SUCCESS);
  void *onDevice1 = lookUpAndLaunch(use.module, add);
  ASSERT_NE(onDevice1, nullptr);
  EXPECT_NE(onDevice1, onDevice0);
  EXPECT_EQ(state.launches.back().context->device, 1);
  EXPECT_EQ(state.moduleLoads, use.loads + 2);

  // Back on device 0, and on a thread of its own: both are cached.
  ASSERT_EQ(pwSetDevice(0), PW_SUCCESS);
  int lookups = state.functionLookups;
  EXPECT_EQ(lookUpAndLaunch(use.module, add), onDevice0);
  onNewThread([&] { EXPECT_EQ(lookUpAndLaunch(use.module, add), onDevice0); });
  EXPECT_EQ(state.functionLookups, lookups);

  // A context another library made current (on the selected device), and
  // many contexts after it.
  std::vector<void *> functions;
  onNewThread([&] {
    for (int i = 0; i < 10; ++i) {
      fake().makeForeignContextCurrent(0);
      functions.push_back(lookUpAndLaunch(use.module, add));
      EXPECT_EQ(state.launches.back().context, fake().currentContext());
      EXPECT_FALSE(state.launches.back().context->primary);
    }
  });
  EXPECT_EQ(state.moduleLoads, use.loads + 12);
  EXPECT_EQ(lookUpAndLaunch(use.module, add), onDevice0);

  // Unloading unloads it from every context, each with its own current, and
  // leaves the thread's context as it was.
  FakeContext *current = fake().currentContext();
  mgpuModuleUnload(use.module);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
  EXPECT_EQ(state.moduleUnloads, use.unloads + 12);
  EXPECT_EQ(state.liveModules, use.live);
  EXPECT_EQ(fake().currentContext(), current);
}

TEST(FakeDriverTest, TheCApiResolvesFunctionsInTheCurrentContext) {
  FakeCudaState &state = *fake().state;
  int live = state.liveModules;
  ASSERT_EQ(pwSetDevice(0), PW_SUCCESS);
  pwModule module = nullptr;
  ASSERT_EQ(pwModuleLoad(&module, kPtx, sizeof(kPtx)), PW_SUCCESS)
      << lastMessage();
  ASSERT_EQ(pwSetDevice(1), PW_SUCCESS);
  pwFunction function = nullptr;
  ASSERT_EQ(pwModuleGetFunction(&function, module, "mul"), PW_SUCCESS)
      << lastMessage();
  EXPECT_EQ(pwLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr),
            PW_SUCCESS)
      << lastMessage();
  EXPECT_EQ(state.launches.back().context->device, 1);
  EXPECT_EQ(state.liveModules, live + 2);
  EXPECT_EQ(pwModuleUnload(module), PW_SUCCESS) << lastMessage();
  EXPECT_EQ(state.liveModules, live);
  EXPECT_EQ(pwSetDevice(0), PW_SUCCESS);
}

TEST(FakeDriverTest, FamiliesLaunchInTheContextOfEachCall) {
  CopyFamily copy;
  const pwFamily &family = copy.family;
  void **args = copy.args;

  // The second launch of each device reuses the remembered decision.
  FakeCudaState &state = *fake().state;
  for (int device : {0, 1, 0, 1}) {
    ASSERT_EQ(pwSetDevice(device), PW_SUCCESS);
    EXPECT_EQ(pwFamilyLaunch(&family, args), PW_SUCCESS) << lastMessage();
    EXPECT_EQ(state.launches.back().context->device, device);
  }
  EXPECT_EQ(pwGetLastLaunchCached(), 1);
  EXPECT_EQ(pwSetDevice(0), PW_SUCCESS);
}

/// Destroys `context`, a context of `device` current on the thread, and
/// creates another library's new context of `device`, which the fake puts
/// at the same address, as an allocator may. The new one is current.
void replaceContext(FakeContext *context, int device) {
  unsigned long long id = context->id;
  ASSERT_EQ(fake().destroyContext(context), 0);
  FakeContext *replacement = nullptr;
  ASSERT_EQ(fake().createContext(&replacement, 0, device), 0);
  ASSERT_EQ(replacement, context);
  ASSERT_NE(replacement->id, id);
  ASSERT_EQ(fake().currentContext(), replacement);
}

TEST(FakeDriverTest, AContextMadeWhereADestroyedOneWasLoadsTheModuleAfresh) {
  FakeCudaState &state = *fake().state;
  static const char add[] = "add";
  LazyModule use;
  ASSERT_EQ(pwSetDevice(0), PW_SUCCESS);
  onNewThread([&] {
    FakeContext *context = nullptr;
    ASSERT_EQ(fake().createContext(&context, 0, 0), 0);
    void *destroyed = lookUpAndLaunch(use.module, add);
    ASSERT_NE(destroyed, nullptr);
    EXPECT_EQ(state.moduleLoads, use.loads + 1);
    // The module went with its context.
    replaceContext(context, 0);
    EXPECT_EQ(state.liveModules, use.live);
    void *function = mgpuModuleGetFunction(use.module, add);
    mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr,
                     0);
    if (!kContextIds) {
      // The limit without cuCtxGetId: the destroyed context's function.
      EXPECT_EQ(function, destroyed);
      EXPECT_EQ(pwTakePendingError(), PW_ERROR_DRIVER);
      EXPECT_NE(lastMessage().find("CUDA_ERROR_INVALID_HANDLE"),
                std::string::npos)
          << lastMessage();
      return;
    }
    EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
    EXPECT_NE(function, destroyed);
    EXPECT_EQ(state.moduleLoads, use.loads + 2);
    EXPECT_EQ(state.launches.back().function, function);
    EXPECT_EQ(state.launches.back().context, context);
    // And it is cached there.
    int lookups = state.functionLookups;
    EXPECT_EQ(lookUpAndLaunch(use.module, add), function);
    EXPECT_EQ(state.functionLookups, lookups);
  });

  // Unloading unloads it from the new context only: asking the driver to
  // unload the destroyed context's module would fail.
  mgpuModuleUnload(use.module);
  if (kContextIds) {
    EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
    EXPECT_EQ(state.moduleUnloads, use.unloads + 1);
    EXPECT_EQ(state.liveModules, use.live);
  } else {
    EXPECT_EQ(pwTakePendingError(), PW_ERROR_DRIVER);
  }
}

TEST(FakeDriverTest, UnloadingSkipsContextsDestroyedSince) {
  FakeCudaState &state = *fake().state;
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  int unloads = state.moduleUnloads, live = state.liveModules;
  FakeContext *current = fake().currentContext();
  onNewThread([&] {
    fake().makeForeignContextCurrent(0);
    EXPECT_NE(lookUpAndLaunch(module, "mul"), nullptr);
    EXPECT_EQ(fake().destroyContext(fake().currentContext()), 0);
  });
  mgpuModuleUnload(module);
  if (kContextIds) {
    EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
  } else { // cuCtxSetCurrent refuses the destroyed context
    EXPECT_EQ(pwTakePendingError(), PW_ERROR_DRIVER);
    EXPECT_NE(lastMessage().find("CUDA_ERROR_CONTEXT_IS_DESTROYED"),
              std::string::npos)
        << lastMessage();
  }
  EXPECT_EQ(state.moduleUnloads, unloads);
  EXPECT_EQ(state.liveModules, live);
  EXPECT_EQ(fake().currentContext(), current);
}

TEST(FakeDriverTest, AContextMadeWhereTheCheckedOneWasIsCheckedAgain) {
  // After pwSetDevice(0) a thread keeps another library's context of device
  // 0. That context destroyed, a new one of device 1 made at its address is
  // not it: the next call goes back to device 0's primary context, as for
  // any context switched behind the runtime's back.
  FakeContext context = contextAfter([] {
    ASSERT_EQ(pwSetDevice(0), PW_SUCCESS);
    FakeContext *foreign = nullptr;
    ASSERT_EQ(fake().createContext(&foreign, 0, 0), 0);
    allocateAndFree();
    ASSERT_EQ(fake().currentContext(), foreign);
    replaceContext(foreign, 1);
    allocateAndFree();
  });
  if (kContextIds) {
    EXPECT_EQ(context.device, 0);
    EXPECT_TRUE(context.primary);
  } else { // the limit: taken for the checked context
    EXPECT_EQ(context.device, 1);
    EXPECT_FALSE(context.primary);
  }
}

TEST(FakeDriverTest, OnlyContextsTheRuntimeDoesNotRetainAreAskedForTheirId) {
  FakeCudaState &state = *fake().state;
  static const char add[] = "add";
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  ASSERT_EQ(pwSetDevice(0), PW_SUCCESS);
  FakeContext *primary = fake().currentContext();
  auto idQueriesOfThreeLaunches = [&] {
    int queries = state.contextIdQueries;
    for (int i = 0; i < 3; ++i)
      EXPECT_NE(lookUpAndLaunch(module, add), nullptr);
    return state.contextIdQueries - queries;
  };
  onNewThread([&] {
    // The primary context the runtime retained, and the same one made
    // current by other code (PyTorch's, say): the handle is enough.
    EXPECT_NE(lookUpAndLaunch(module, add), nullptr);
    EXPECT_EQ(idQueriesOfThreeLaunches(), 0);
  });
  onNewThread([&] {
    ASSERT_EQ(fake().setCurrentContext(primary), 0);
    EXPECT_NE(lookUpAndLaunch(module, add), nullptr);
    EXPECT_EQ(idQueriesOfThreeLaunches(), 0);
    // Another context: one query per check, the lookup's (the launch right
    // after it does not check again).
    fake().makeForeignContextCurrent(0);
    EXPECT_NE(lookUpAndLaunch(module, add), nullptr);
    EXPECT_EQ(idQueriesOfThreeLaunches(), kContextIds ? 3 : 0);
  });
  mgpuModuleUnload(module);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
}

TEST(FakeDriverTest, OnlyTheLaunchRightAfterItsLookupSkipsTheContextCheck) {
  FakeCudaState &state = *fake().state;
  static const char add[] = "add", mul[] = "mul";
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  onNewThread([&] {
    // A context the runtime does not retain: every check asks for its ID.
    fake().makeForeignContextCurrent(0);
    void *addFunction = lookUpAndLaunch(module, add);
    void *mulFunction = lookUpAndLaunch(module, mul);
    ASSERT_NE(addFunction, nullptr);
    ASSERT_NE(mulFunction, nullptr);
    auto queriesOf = [&](auto &&calls) {
      int queries = state.contextIdQueries;
      calls();
      EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
      return state.contextIdQueries - queries;
    };
    auto launch = [](void *function) {
      mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr,
                       nullptr, 0);
    };
    int perCheck = kContextIds ? 1 : 0;
    // The lookup checks; its launch does not.
    EXPECT_EQ(queriesOf([&] { lookUpAndLaunch(module, add); }), perCheck);
    // A launch without a lookup before it checks.
    EXPECT_EQ(queriesOf([&] { launch(addFunction); }), perCheck);
    // So does a second launch after one lookup, and the launch of another
    // function than the one looked up.
    EXPECT_EQ(queriesOf([&] {
                mgpuModuleGetFunction(module, add);
                launch(addFunction);
                launch(addFunction);
              }),
              2 * perCheck);
    EXPECT_EQ(queriesOf([&] {
                mgpuModuleGetFunction(module, add);
                launch(mulFunction);
              }),
              2 * perCheck);
    // Every launch reached the driver, in the foreign context.
    EXPECT_EQ(state.launches.back().context, fake().currentContext());
  });
  mgpuModuleUnload(module);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS) << lastMessage();
}

/// Before anything selects a device: (1) another library's context of device
/// 1 is current while device 1's primary context is active (retained by other
/// code): identified by ID, and the primary context retained to compare is
/// given back; (2) what PyTorch does: device 0's primary context retained and
/// made current by other code is adopted, retained once as the runtime's own,
/// and checked by handle from then on. Needs a process where no test has
/// selected a device or launched (the runtime's choices last for the
/// process), so it runs in a re-executed one; returns 0, or the line of the
/// first check that failed (and says which on stderr).
int adoptionInAFreshProcess() {
#define REQUIRE(condition)                                                     \
  if (!(condition)) {                                                          \
    std::fprintf(stderr, "failed: %s\n", #condition);                          \
    return __LINE__;                                                           \
  }
  FakeCudaState &state = *fake().state;
  static const char add[] = "add";
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  auto onThread = [](auto body) {
    int result = 0;
    onNewThread([&] { result = body(); });
    return result;
  };
  int result = onThread([&]() -> int {
    FakeContext *primary1 = nullptr;
    REQUIRE(fake().retainPrimaryContext(&primary1, 1) == 0);
    FakeContext *foreign = nullptr;
    REQUIRE(fake().createContext(&foreign, 0, 1) == 0);
    int retains = state.primaryRetains, releases = state.primaryReleases;
    int queries = state.contextIdQueries;
    REQUIRE(lookUpAndLaunch(module, add) != nullptr);
    REQUIRE(state.launches.back().context == foreign);
    REQUIRE(state.primaryRetains == retains + 1);
    REQUIRE(state.primaryReleases == releases + 1);
    REQUIRE(state.contextIdQueries > queries || !kContextIds);
    return 0;
  });
  if (!result)
    result = onThread([&]() -> int {
      FakeContext *torchPrimary = nullptr;
      REQUIRE(fake().retainPrimaryContext(&torchPrimary, 0) == 0);
      REQUIRE(fake().setCurrentContext(torchPrimary) == 0);
      int retains = state.primaryRetains, releases = state.primaryReleases;
      REQUIRE(lookUpAndLaunch(module, add) != nullptr);
      REQUIRE(state.launches.back().context == torchPrimary);
      REQUIRE(state.primaryRetains == retains + 1);
      REQUIRE(state.primaryReleases == releases);
      int queries = state.contextIdQueries;
      for (int i = 0; i < 3; ++i)
        REQUIRE(lookUpAndLaunch(module, add) != nullptr);
      REQUIRE(state.contextIdQueries == queries);
      // pwSetDevice(0) then uses the same context, not retained again.
      REQUIRE(pwSetDevice(0) == PW_SUCCESS);
      allocateAndFree();
      REQUIRE(fake().currentContext() == torchPrimary);
      REQUIRE(state.primaryRetains == retains + 1);
      return 0;
    });
#undef REQUIRE
  mgpuModuleUnload(module);
  return result;
}

TEST(FakeDriverTest, AnActivePrimaryContextMadeCurrentByOtherCodeIsAdopted) {
  // "threadsafe" re-executes this binary for the statement: a fresh runtime.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(adoptionInAFreshProcess()),
              ::testing::ExitedWithCode(0), "");
}

} // namespace
