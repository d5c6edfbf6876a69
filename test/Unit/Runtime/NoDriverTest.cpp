//===- NoDriverTest.cpp - The runtime on a machine without a driver -------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// This test binary points the runtime at a driver that does not exist, as on
// a machine without an NVIDIA driver: every call that needs the device fails
// with PW_ERROR_NO_DRIVER and a message, and nothing aborts.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Runtime/Runtime.h"

#include "MgpuAbi.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>

namespace {

// Set before main: the runtime reads it when it first needs the driver.
[[maybe_unused]] const int driverOverride =
    setenv("POINTWISE_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);

void expectNoDriver(pwStatus status) {
  EXPECT_EQ(status, PW_ERROR_NO_DRIVER) << pwGetStatusName(status);
  std::string message = pwGetLastErrorMessage();
  EXPECT_NE(message.find("pointwise runtime: cannot load the CUDA driver "
                         "(/nonexistent/libcuda.so.1): "),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("is an NVIDIA driver installed?"), std::string::npos)
      << message;
}

TEST(NoDriverTest, DeviceCallsFailWithAMessage) {
  int count = -1;
  expectNoDriver(pwGetDeviceCount(&count));
  EXPECT_EQ(count, 0);
  expectNoDriver(pwSetDevice(0));
  char name[64];
  expectNoDriver(pwGetDeviceName(0, name, sizeof(name)));
  expectNoDriver(pwGetDeviceArch(0, name, sizeof(name)));
  expectNoDriver(pwDeviceSynchronize());
}

TEST(NoDriverTest, MemoryStreamAndModuleCallsFail) {
  void *pointer = reinterpret_cast<void *>(1);
  expectNoDriver(pwMalloc(&pointer, 16));
  EXPECT_EQ(pointer, nullptr);
  int host = 0;
  expectNoDriver(pwMemcpyHostToDevice(&host, &host, sizeof(host)));
  pwStream stream = nullptr;
  expectNoDriver(pwStreamCreate(&stream));
  pwEvent event = nullptr;
  expectNoDriver(pwEventCreate(&event));
  static const char ptx[] = ".entry k(";
  pwModule module = nullptr;
  expectNoDriver(pwModuleLoad(&module, ptx, sizeof(ptx)));
  EXPECT_EQ(module, nullptr);
}

TEST(NoDriverTest, CallsWithoutDeviceWorkSucceed) {
  // Nothing to do, so no driver needed.
  EXPECT_EQ(pwFree(nullptr), PW_SUCCESS);
  EXPECT_EQ(pwMemcpyDeviceToHost(nullptr, nullptr, 0), PW_SUCCESS);
  void *pointer = reinterpret_cast<void *>(1);
  EXPECT_EQ(pwMalloc(&pointer, 0), PW_SUCCESS);
  EXPECT_EQ(pointer, nullptr);
}

TEST(NoDriverTest, InvalidArgumentsComeFirst) {
  EXPECT_EQ(pwMalloc(nullptr, 16), PW_ERROR_INVALID_VALUE);
  EXPECT_EQ(std::string(pwGetLastErrorMessage()),
            "pwMalloc: `pointer` is null");
  EXPECT_EQ(pwGetDeviceCount(nullptr), PW_ERROR_INVALID_VALUE);
  EXPECT_EQ(pwStreamDestroy(nullptr), PW_ERROR_INVALID_VALUE);
  EXPECT_EQ(pwModuleGetFunction(nullptr, nullptr, "k"), PW_ERROR_INVALID_VALUE);
}

TEST(NoDriverTest, ModuleLoadIsLazyAndLookupLeavesAPendingError) {
  static char image[] = ".entry k(";
  // A compiled library's global constructor: must work without a driver.
  void *module = mgpuModuleLoad(image, sizeof(image));
  ASSERT_NE(module, nullptr);
  void *jitModule = mgpuModuleLoadJIT(image, 2);
  ASSERT_NE(jitModule, nullptr);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS);

  EXPECT_EQ(mgpuModuleGetFunction(module, "k"), nullptr);
  // A launch of the null function does nothing and keeps the error.
  mgpuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  expectNoDriver(pwTakePendingError());
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS);

  mgpuModuleUnload(module);
  mgpuModuleUnload(jitModule);
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS);
}

TEST(NoDriverTest, PendingErrorsArePerThread) {
  static char image[] = ".entry k(";
  void *module = mgpuModuleLoad(image, sizeof(image));
  std::thread([module] {
    EXPECT_EQ(mgpuModuleGetFunction(module, "k"), nullptr);
    EXPECT_EQ(pwTakePendingError(), PW_ERROR_NO_DRIVER);
  }).join();
  EXPECT_EQ(pwTakePendingError(), PW_SUCCESS);
  mgpuModuleUnload(module);
}

TEST(NoDriverTest, MgpuCallsDoNotCrash) {
  mgpuStreamSynchronize(nullptr);
  mgpuStreamDestroy(nullptr);
  mgpuEventRecord(nullptr, nullptr);
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
  mgpuMemFree(nullptr, nullptr);
  mgpuMemcpy(nullptr, nullptr, 0, nullptr);
  mgpuSetDefaultDevice(0);
  expectNoDriver(pwTakePendingError());
  // Without a device no padding: the launch that follows reports the error.
  EXPECT_EQ(pwOccupancySharedMemory(16640, 5), 0);
}

TEST(StatusTest, NamesAreTheEnumerators) {
  EXPECT_STREQ(pwGetStatusName(PW_SUCCESS), "PW_SUCCESS");
  EXPECT_STREQ(pwGetStatusName(PW_ERROR_INVALID_VALUE),
               "PW_ERROR_INVALID_VALUE");
  EXPECT_STREQ(pwGetStatusName(PW_ERROR_NO_DRIVER), "PW_ERROR_NO_DRIVER");
  EXPECT_STREQ(pwGetStatusName(PW_ERROR_NO_DEVICE), "PW_ERROR_NO_DEVICE");
  EXPECT_STREQ(pwGetStatusName(PW_ERROR_DRIVER), "PW_ERROR_DRIVER");
  EXPECT_STREQ(pwGetStatusName(PW_ERROR_LAYOUT), "PW_ERROR_LAYOUT");
  EXPECT_STREQ(pwGetStatusName(PW_ERROR_NOT_FOUND), "PW_ERROR_NOT_FOUND");
  EXPECT_STREQ(pwGetStatusName(PW_ERROR_OUT_OF_MEMORY),
               "PW_ERROR_OUT_OF_MEMORY");
  EXPECT_STREQ(pwGetStatusName(static_cast<pwStatus>(99)), "PW_ERROR_UNKNOWN");
}

TEST(StatusTest, MessagesArePerThread) {
  EXPECT_EQ(pwMalloc(nullptr, 1), PW_ERROR_INVALID_VALUE);
  std::thread([] {
    EXPECT_STREQ(pwGetLastErrorMessage(), "");
    EXPECT_EQ(pwFree(nullptr), PW_SUCCESS);
  }).join();
  EXPECT_STREQ(pwGetLastErrorMessage(), "pwMalloc: `pointer` is null");
}

TEST(StreamTest, CurrentStreamIsPerThreadAndDefaultsToNull) {
  EXPECT_EQ(pwGetStream(), nullptr);
  pwStream stream = reinterpret_cast<pwStream>(0x1234);
  pwSetStream(stream);
  EXPECT_EQ(pwGetStream(), stream);
  std::thread([] { EXPECT_EQ(pwGetStream(), nullptr); }).join();
  pwSetStream(nullptr);
  EXPECT_EQ(pwGetStream(), nullptr);
}

} // namespace
