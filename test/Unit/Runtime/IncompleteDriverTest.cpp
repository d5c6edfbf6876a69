//===- IncompleteDriverTest.cpp - A driver library without the API --------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// A library that loads but lacks the driver's entry points (an old driver, or
// the wrong file) is PW_ERROR_NO_DRIVER too, naming the first one missing.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

// libm loads everywhere and exports no cu* function.
[[maybe_unused]] const int driverOverride =
    setenv("POINTWISE_CUDA_DRIVER", "libm.so.6", 1);

TEST(IncompleteDriverTest, MissingEntryPointIsNoDriver) {
  int count = -1;
  EXPECT_EQ(pwGetDeviceCount(&count), PW_ERROR_NO_DRIVER);
  EXPECT_EQ(std::string(pwGetLastErrorMessage()),
            "pointwise runtime: the CUDA driver (libm.so.6) lacks the entry "
            "point cuInit; is the NVIDIA driver too old?");
  // The outcome is kept: the next call fails the same way.
  void *pointer = nullptr;
  EXPECT_EQ(pwMalloc(&pointer, 4), PW_ERROR_NO_DRIVER);
}

} // namespace
