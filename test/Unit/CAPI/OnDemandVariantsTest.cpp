//===- OnDemandVariantsTest.cpp - Variants compiled when first chosen -----===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// A family compiled with `variants=` has a row for every variant and entries
// for the selected ones; a launch that chooses a missing one fails with
// PW_ERROR_NOT_FOUND naming it (pwGetLastVariant() says which), or has the
// family's variant loader compile it; pwcAddVariants fills the entries. CPU
// families run here, so every result is checked element by element.
//
//===----------------------------------------------------------------------===//

#include "pointwise-c/Compiler.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

const char *kScaleAdd = R"mlir(
!m = memref<?x?xf32, strided<[?, ?], offset: ?>>
func.func @scale_add(%a: !m, %b: !m, %alpha: f32, %c: !m) {
  pointwise.map ins(%a, %b, %alpha : !m, !m, f32) outs(%c : !m) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %0 = arith.mulf %y, %s : f32
    %1 = arith.addf %x, %0 : f32
    pointwise.yield %1 : f32
  }
  return
}
)mlir";

/// A rank-2 memref descriptor, as the C interface takes it.
using Descriptor2 = StridedMemRefType<float, 2>;

pwcLibrary *compile(const char *options) {
  std::string source = kScaleAdd;
  pwcLibrary *library = nullptr;
  EXPECT_EQ(pwcCompile(source.data(), source.size(), options, &library),
            PW_SUCCESS)
      << options << ": " << pwcGetLastError();
  return library;
}

/// A 3x4 launch: `transposed` makes `a` a transposed view, so that the
/// layout stays rank 2 (variant 1, scale_add__r2_i64_linear); otherwise every
/// operand is contiguous and it coalesces to rank 1 (variant 0).
struct Launch {
  std::vector<float> a = std::vector<float>(12), b = std::vector<float>(12),
                     c = std::vector<float>(12, -1.0f);
  Descriptor2 da, db, dc;
  float alpha = 0.5f;
  void *args[4];
  bool transposed;

  explicit Launch(bool transposed, int seed = 0) : transposed(transposed) {
    for (int i = 0; i < 12; ++i) {
      a[i] = 0.25f * i + seed;
      b[i] = 1.0f + i;
    }
    int64_t aStrides[2] = {transposed ? 1 : 4, transposed ? 3 : 1};
    da = {a.data(), a.data(), 0, {3, 4}, {aStrides[0], aStrides[1]}};
    db = {b.data(), b.data(), 0, {3, 4}, {4, 1}};
    dc = {c.data(), c.data(), 0, {3, 4}, {4, 1}};
    args[0] = &da;
    args[1] = &db;
    args[2] = &alpha;
    args[3] = &dc;
  }

  void check() const {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) {
        float x = transposed ? a[j * 3 + i] : a[i * 4 + j];
        ASSERT_FLOAT_EQ(c[i * 4 + j], x + b[i * 4 + j] * alpha)
            << i << "," << j;
      }
  }
};

TEST(OnDemandVariants, SelectionKeepsEveryRowAndOnlyTheSelectedEntries) {
  pwcLibrary *library = compile("target=cpu variants=scale_add__r2_i64_linear");
  ASSERT_TRUE(library);
  const pwFamily *family = pwcGetFamily(library, "scale_add");
  ASSERT_TRUE(family) << pwcGetLastError();
  ASSERT_EQ(family->numVariants, 2);
  EXPECT_EQ(family->variants[0].rank, 1);
  EXPECT_EQ(family->variants[0].entry, nullptr);
  EXPECT_EQ(family->variants[1].rank, 2);
  EXPECT_NE(family->variants[1].entry, nullptr);

  Launch rank2(/*transposed=*/true);
  ASSERT_EQ(pwFamilyLaunch(family, rank2.args), PW_SUCCESS)
      << pwGetLastErrorMessage();
  EXPECT_EQ(pwGetLastVariant(), 1);
  rank2.check();

  // The contiguous launch chooses the missing rank-1 variant: an error that
  // names it, and pwGetLastVariant() says which it is. Nothing is written.
  Launch rank1(/*transposed=*/false);
  EXPECT_EQ(pwFamilyLaunch(family, rank1.args), PW_ERROR_NOT_FOUND);
  EXPECT_EQ(pwGetLastVariant(), 0);
  EXPECT_STREQ(pwGetLastErrorMessage(),
               "scale_add: variant 0 (rank 1, 64-bit indices, linear) is not "
               "compiled, and the family has no variant loader "
               "(pwSetVariantLoader)");
  for (float value : rank1.c)
    EXPECT_EQ(value, -1.0f);
  pwcDestroy(library);
}

TEST(OnDemandVariants, AddVariantsFillsTheMissingEntry) {
  pwcLibrary *tables = compile("target=cpu variants=none");
  ASSERT_TRUE(tables);
  const pwFamily *family = pwcGetFamily(tables, "scale_add");
  ASSERT_TRUE(family);
  for (int i = 0; i < family->numVariants; ++i)
    EXPECT_EQ(family->variants[i].entry, nullptr);

  Launch launch(/*transposed=*/false);
  ASSERT_EQ(pwFamilyLaunch(family, launch.args), PW_ERROR_NOT_FOUND);
  ASSERT_EQ(pwGetLastVariant(), 0);
  pwcLibrary *variant = compile("target=cpu variants=scale_add__r1_i64_linear");
  ASSERT_TRUE(variant);
  ASSERT_EQ(pwcAddVariants(tables, "scale_add", variant), PW_SUCCESS)
      << pwcGetLastError();
  EXPECT_NE(family->variants[0].entry, nullptr);
  EXPECT_EQ(family->variants[1].entry, nullptr);
  ASSERT_EQ(pwFamilyLaunch(family, launch.args), PW_SUCCESS)
      << pwGetLastErrorMessage();
  launch.check();
  pwcDestroy(tables); // destroys `variant` too
}

TEST(OnDemandVariants, LoadVariantsLinksASavedVariantIntoTheLibrary) {
  std::string path = std::string(::testing::TempDir()) + "/pwc-" +
                     std::to_string(getpid()) + "-scale_add_r2.pwlib";
  pwcLibrary *variant = compile("target=cpu variants=scale_add__r2_i64_linear");
  ASSERT_TRUE(variant);
  ASSERT_EQ(pwcSave(variant, path.c_str()), PW_SUCCESS) << pwcGetLastError();
  pwcDestroy(variant);

  pwcLibrary *tables = compile("target=cpu variants=none");
  ASSERT_TRUE(tables);
  const pwFamily *family = pwcGetFamily(tables, "scale_add");
  ASSERT_TRUE(family);
  ASSERT_EQ(pwcLoadVariants(tables, "scale_add", path.c_str()), PW_SUCCESS)
      << pwcGetLastError();
  EXPECT_EQ(family->variants[0].entry, nullptr);
  EXPECT_NE(family->variants[1].entry, nullptr);
  Launch launch(/*transposed=*/true);
  ASSERT_EQ(pwFamilyLaunch(family, launch.args), PW_SUCCESS)
      << pwGetLastErrorMessage();
  launch.check();
  // Loading it again keeps the entry there (the new copy is not used).
  auto entry = family->variants[1].entry;
  ASSERT_EQ(pwcLoadVariants(tables, "scale_add", path.c_str()), PW_SUCCESS);
  EXPECT_EQ(family->variants[1].entry, entry);

  // A saved library of another family's rows is refused, and unloaded.
  pwcLibrary *gpu = compile("target=cuda chip=sm_90 format=isa "
                            "variants=scale_add__r1_i32_linear");
  ASSERT_TRUE(gpu);
  ASSERT_EQ(pwcSave(gpu, path.c_str()), PW_SUCCESS);
  pwcDestroy(gpu);
  EXPECT_EQ(pwcLoadVariants(tables, "scale_add", path.c_str()),
            PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwcGetLastError()).find("differ"), std::string::npos)
      << pwcGetLastError();
  EXPECT_EQ(family->variants[0].entry, nullptr);
  EXPECT_EQ(pwcLoadVariants(tables, "other", path.c_str()), PW_ERROR_NOT_FOUND);
  std::remove(path.c_str());
  EXPECT_EQ(pwcLoadVariants(tables, "scale_add", path.c_str()),
            PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwcGetLastError()).find("cannot read"),
            std::string::npos);
  EXPECT_EQ(pwcLoadVariants(nullptr, "scale_add", path.c_str()),
            PW_ERROR_INVALID_VALUE);
  pwcDestroy(tables);
}

TEST(OnDemandVariants, AddVariantsRefusesAnotherFamily) {
  pwcLibrary *tables = compile("target=cpu variants=none");
  // Other options give other rows (a GPU family has transpose variants).
  pwcLibrary *other = compile("target=cuda chip=sm_90 format=isa "
                              "variants=scale_add__r1_i32_linear");
  ASSERT_TRUE(tables && other);
  EXPECT_EQ(pwcAddVariants(tables, "scale_add", other), PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwcGetLastError()).find("differ"), std::string::npos)
      << pwcGetLastError();
  EXPECT_EQ(pwcAddVariants(tables, "nope", other), PW_ERROR_NOT_FOUND);
  EXPECT_EQ(pwcAddVariants(tables, "scale_add", tables),
            PW_ERROR_INVALID_VALUE);
  EXPECT_EQ(pwcAddVariants(nullptr, "scale_add", other),
            PW_ERROR_INVALID_VALUE);
  // Refused: the caller still owns `other`.
  pwcDestroy(other);
  pwcDestroy(tables);
}

TEST(OnDemandVariants, BadSelections) {
  std::string source = kScaleAdd;
  pwcLibrary *library = nullptr;
  EXPECT_EQ(pwcCompile(source.data(), source.size(),
                       "target=cpu variants=scale_add__r7_i64_linear",
                       &library),
            PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwcGetLastError())
                .find("no variant named 'scale_add__r7_i64_linear'"),
            std::string::npos)
      << pwcGetLastError();
  EXPECT_EQ(pwcCompile(source.data(), source.size(),
                       "target=cpu variants=none,scale_add__r1_i64_linear",
                       &library),
            PW_ERROR_INVALID_VALUE);
  EXPECT_EQ(library, nullptr);
}

/// A variant loader that compiles the variant asked for (once per variant,
/// under a lock) and adds it to the family's library.
struct Compiler {
  pwcLibrary *tables;
  std::mutex mutex;
  std::map<int, int> compilations;
  std::atomic<int> calls{0};
  bool fail = false;

  static pwStatus load(const pwFamily *family, int32_t index, void *context,
                       char *message, size_t capacity) {
    auto &self = *static_cast<Compiler *>(context);
    ++self.calls;
    std::lock_guard<std::mutex> lock(self.mutex);
    if (self.fail) {
      std::snprintf(message, capacity, "this loader fails on purpose");
      return PW_ERROR_INVALID_VALUE;
    }
    if (__atomic_load_n(&family->variants[index].entry, __ATOMIC_ACQUIRE))
      return PW_SUCCESS; // another thread compiled it meanwhile
    ++self.compilations[index];
    std::string options = "target=cpu variants=scale_add__r" +
                          std::to_string(family->variants[index].rank) +
                          "_i64_linear";
    std::string source = kScaleAdd;
    pwcLibrary *variant = nullptr;
    if (pwStatus status = pwcCompile(source.data(), source.size(),
                                     options.c_str(), &variant)) {
      std::snprintf(message, capacity, "%s", pwcGetLastError());
      return status;
    }
    if (pwStatus status = pwcAddVariants(self.tables, "scale_add", variant)) {
      std::snprintf(message, capacity, "%s", pwcGetLastError());
      pwcDestroy(variant);
      return status;
    }
    return PW_SUCCESS;
  }
};

TEST(OnDemandVariants, ThreadsRacingOnFirstLaunchesCompileEachVariantOnce) {
  pwcLibrary *tables = compile("target=cpu variants=none");
  ASSERT_TRUE(tables);
  const pwFamily *family = pwcGetFamily(tables, "scale_add");
  Compiler compiler{tables};
  ASSERT_EQ(pwSetVariantLoader(family, &Compiler::load, &compiler), PW_SUCCESS);
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kThreads);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Half start with the rank-1 variant, half with the rank-2 one.
      for (int n = 0; n < 4; ++n) {
        Launch launch(/*transposed=*/(t + n) % 2 == 1, t);
        if (pwFamilyLaunch(family, launch.args) != PW_SUCCESS) {
          errors[t] = pwGetLastErrorMessage();
          return;
        }
        int expected = launch.transposed ? 1 : 0;
        if (pwGetLastVariant() != expected) {
          errors[t] = "chose variant " + std::to_string(pwGetLastVariant());
          return;
        }
        launch.check();
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const std::string &error : errors)
    EXPECT_EQ(error, "");
  EXPECT_EQ(compiler.compilations[0], 1);
  EXPECT_EQ(compiler.compilations[1], 1);
  EXPECT_GE(compiler.calls.load(), 2);

  // Once there, a variant never asks the loader again.
  int calls = compiler.calls;
  Launch again(/*transposed=*/true, 5);
  ASSERT_EQ(pwFamilyLaunch(family, again.args), PW_SUCCESS);
  again.check();
  EXPECT_EQ(compiler.calls.load(), calls);
  ASSERT_EQ(pwSetVariantLoader(family, nullptr, nullptr), PW_SUCCESS);
  pwcDestroy(tables);
}

TEST(OnDemandVariants, LoaderFailuresComeBackWithTheirMessage) {
  pwcLibrary *tables = compile("target=cpu variants=none");
  ASSERT_TRUE(tables);
  const pwFamily *family = pwcGetFamily(tables, "scale_add");
  Compiler compiler{tables};
  compiler.fail = true;
  ASSERT_EQ(pwSetVariantLoader(family, &Compiler::load, &compiler), PW_SUCCESS);
  Launch launch(/*transposed=*/true);
  EXPECT_EQ(pwFamilyLaunch(family, launch.args), PW_ERROR_INVALID_VALUE);
  EXPECT_STREQ(pwGetLastErrorMessage(),
               "scale_add: loading variant 1 (rank 2, 64-bit indices, "
               "linear) failed: this loader fails on purpose");
  EXPECT_EQ(pwGetLastVariant(), 1);

  // A loader that claims success without storing the entry is an error too.
  static auto liar = [](const pwFamily *, int32_t, void *, char *,
                        size_t) -> pwStatus { return PW_SUCCESS; };
  ASSERT_EQ(pwSetVariantLoader(family, +liar, nullptr), PW_SUCCESS);
  EXPECT_EQ(pwFamilyLaunch(family, launch.args), PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwGetLastErrorMessage()).find("has no entry"),
            std::string::npos)
      << pwGetLastErrorMessage();

  // Removed, the family reports the missing variant again.
  ASSERT_EQ(pwSetVariantLoader(family, nullptr, nullptr), PW_SUCCESS);
  EXPECT_EQ(pwFamilyLaunch(family, launch.args), PW_ERROR_NOT_FOUND);
  EXPECT_EQ(pwSetVariantLoader(nullptr, nullptr, nullptr),
            PW_ERROR_INVALID_VALUE);
  pwcDestroy(tables);
}

} // namespace
