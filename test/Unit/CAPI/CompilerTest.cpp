//===- CompilerTest.cpp - The compiler's C API ----------------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// pwcCompile/pwcSave/pwcLoad/pwcGetFamily on real modules: CPU families run
// here through pwFamilyLaunch and are checked element by element; CUDA
// families are compiled (PTX, no GPU needed) and their tables inspected.
//
//===----------------------------------------------------------------------===//

#include "pointwise-c/Compiler.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

const char *kAxpy = R"mlir(
!m = memref<?x?xf32, strided<[?, ?], offset: ?>>
func.func @axpy(%a: !m, %b: !m, %alpha: f32, %c: !m) {
  pointwise.map ins(%a, %b, %alpha : !m, !m, f32) outs(%c : !m) {
  ^bb0(%x: f32, %y: f32, %s: f32):
    %0 = arith.mulf %y, %s : f32
    %1 = arith.addf %x, %0 : f32
    %2 = math.exp %1 : f32
    pointwise.yield %2 : f32
  }
  return
}
)mlir";

/// A rank-2 memref descriptor, as the C interface takes it.
using Descriptor2 = StridedMemRefType<float, 2>;

pwcLibrary *compile(const std::string &source, const char *options) {
  pwcLibrary *library = nullptr;
  pwStatus status = pwcCompile(source.data(), source.size(), options, &library);
  EXPECT_EQ(status, PW_SUCCESS) << pwcGetLastError();
  return library;
}

std::string temporaryPath(const char *name) {
  return std::string(::testing::TempDir()) + "/pwc-" +
         std::to_string(getpid()) + "-" + name;
}

/// Runs the CPU axpy family on a 3x4 output, `a` transposed (4x3 buffer),
/// `b` a broadcast row, and checks every element.
void runAxpy(const pwFamily *family) {
  std::vector<float> a(12), b(4), c(12, -1.0f);
  for (int i = 0; i < 12; ++i)
    a[i] = 0.1f * i;
  for (int j = 0; j < 4; ++j)
    b[j] = 1.0f + j;
  Descriptor2 da{a.data(), a.data(), 0, {3, 4}, {1, 3}};
  Descriptor2 db{b.data(), b.data(), 0, {3, 4}, {0, 1}};
  Descriptor2 dc{c.data(), c.data(), 0, {3, 4}, {4, 1}};
  float alpha = 0.5f;
  void *args[] = {&da, &db, &alpha, &dc};
  ASSERT_EQ(pwFamilyLaunch(family, args), PW_SUCCESS)
      << pwGetLastErrorMessage();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_FLOAT_EQ(c[i * 4 + j], std::exp(a[j * 3 + i] + b[j] * alpha))
          << i << "," << j;
}

TEST(CompilerCAPI, VersionNamesLLVM) {
  EXPECT_NE(std::string(pwcGetVersion()).find("LLVM 22"), std::string::npos);
}

TEST(CompilerCAPI, HostTargetNamesTheHost) {
  // "<triple> <cpu> <features>": what compiled host code is for.
  std::string host = pwcGetHostTarget();
  ASSERT_NE(host, "unknown host");
  size_t cpu = host.find(' ');
  ASSERT_NE(cpu, std::string::npos) << host;
  size_t features = host.find(' ', cpu + 1);
  ASSERT_NE(features, std::string::npos) << host;
  EXPECT_NE(host.substr(0, cpu).find("-linux"), std::string::npos) << host;
  EXPECT_GT(features, cpu + 1) << host;             // a CPU name
  EXPECT_EQ(std::string(pwcGetHostTarget()), host); // stable in the process
}

TEST(CompilerCAPI, SavedLibrariesRecordTheHostFingerprint) {
  // The header's second line, which pwLibraryOpen (pwcLoad) compares with
  // this host's.
  std::string fingerprint = pwGetHostFingerprint();
  EXPECT_GE(fingerprint.size(), 9u * 8 - 1) << fingerprint; // vendor, leaf 1..
  EXPECT_EQ(fingerprint, pwGetHostFingerprint());
  pwcLibrary *library = compile(kAxpy, "target=cpu");
  ASSERT_TRUE(library);
  std::string path = ::testing::TempDir() + "/pointwise-host-target.pwlib";
  ASSERT_EQ(pwcSave(library, path.c_str()), PW_SUCCESS) << pwcGetLastError();
  pwcDestroy(library);
  std::ifstream saved(path, std::ios::binary);
  std::string magic, header;
  std::getline(saved, magic);
  EXPECT_EQ(magic, "pointwise-host-objects-2");
  std::getline(saved, header, '\0');
  EXPECT_EQ(header, fingerprint);
  std::remove(path.c_str());
}

TEST(CompilerCAPI, CpuFamilyRunsThroughTheRuntime) {
  pwcLibrary *library = compile(kAxpy, "target=cpu");
  ASSERT_TRUE(library);
  const pwFamily *family = pwcGetFamily(library, "axpy");
  ASSERT_TRUE(family) << pwcGetLastError();
  EXPECT_STREQ(family->name, "axpy");
  EXPECT_EQ(family->numArguments, 4);
  EXPECT_EQ(family->numVariants, 2); // ranks 1 and 2, 64-bit, linear
  for (int i = 0; i < family->numVariants; ++i) {
    EXPECT_EQ(family->variants[i].indexBitwidth, 64);
    EXPECT_EQ(family->variants[i].strategy, PW_STRATEGY_LINEAR);
  }
  runAxpy(family);
  // Broadcasting that does not work is the runtime's layout error.
  std::vector<float> a(12), c(12);
  Descriptor2 da{a.data(), a.data(), 0, {3, 4}, {4, 1}};
  Descriptor2 db{a.data(), a.data(), 0, {2, 4}, {4, 1}};
  Descriptor2 dc{c.data(), c.data(), 0, {3, 4}, {4, 1}};
  float alpha = 1.0f;
  void *args[] = {&da, &db, &alpha, &dc};
  EXPECT_EQ(pwFamilyLaunch(family, args), PW_ERROR_LAYOUT);
  pwcDestroy(library);
}

TEST(CompilerCAPI, SaveAndLoad) {
  pwcLibrary *library = compile(kAxpy, "target=cpu opt-level=2");
  ASSERT_TRUE(library);
  std::string path = temporaryPath("axpy.pwlib");
  ASSERT_EQ(pwcSave(library, path.c_str()), PW_SUCCESS) << pwcGetLastError();
  pwcDestroy(library);
  std::string saved;
  {
    std::ifstream file(path, std::ios::binary);
    saved.assign(std::istreambuf_iterator<char>(file),
                 std::istreambuf_iterator<char>());
  }
  // The header, then the objects: one per lowered part (at least one) and
  // one for the family tables, each behind its 8-byte size.
  size_t headerEnd = saved.find('\0');
  ASSERT_NE(headerEnd, std::string::npos);
  size_t objects = 0;
  for (size_t at = headerEnd + 1; at < saved.size(); ++objects) {
    ASSERT_LE(at + 8, saved.size());
    uint64_t size = 0;
    for (int byte = 7; byte >= 0; --byte)
      size = size << 8 | static_cast<unsigned char>(saved[at + byte]);
    ASSERT_EQ(saved.compare(at + 8, 4,
                            "\x7f"
                            "ELF"),
              0)
        << objects;
    at += 8 + size;
    ASSERT_LE(at, saved.size());
  }
  EXPECT_GE(objects, 2u);

  pwcLibrary *loaded = nullptr;
  ASSERT_EQ(pwcLoad(path.c_str(), &loaded), PW_SUCCESS) << pwcGetLastError();
  const pwFamily *family = pwcGetFamily(loaded, "axpy");
  ASSERT_TRUE(family) << pwcGetLastError();
  runAxpy(family);
  // What pwcLoad read is saved already: it keeps no objects to save again.
  EXPECT_EQ(pwcSave(loaded, path.c_str()), PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwcGetLastError()).find("saved already"),
            std::string::npos)
      << pwcGetLastError();
  pwcDestroy(loaded);

  // A damaged file is an error, not a crash.
  {
    std::ofstream damaged(path, std::ios::binary | std::ios::trunc);
    damaged << "BC\xC0\xDE garbage";
  }
  EXPECT_EQ(pwcLoad(path.c_str(), &loaded), PW_ERROR_INVALID_VALUE);
  EXPECT_EQ(loaded, nullptr);
  EXPECT_NE(std::string(pwcGetLastError()).find("not a saved pointwise"),
            std::string::npos)
      << pwcGetLastError();
  // So is a file of the format before this one, or saved for another CPU.
  {
    std::ofstream other(path, std::ios::binary | std::ios::trunc);
    other << "pointwise-host-objects\npointwise 0.1 (LLVM 22.1.8)" << '\0'
          << "x86_64-unknown-linux-gnu skylake +avx2" << '\0' << "\x7f"
          << "ELF";
  }
  EXPECT_EQ(pwcLoad(path.c_str(), &loaded), PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwcGetLastError()).find("not a saved pointwise"),
            std::string::npos)
      << pwcGetLastError();
  {
    std::ofstream other(path, std::ios::binary | std::ios::trunc);
    other << "pointwise-host-objects-2\n"
          << "00000000.a-cpu-of-elsewhere" << '\0' << "\x7f"
          << "ELF";
  }
  EXPECT_EQ(pwcLoad(path.c_str(), &loaded), PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwcGetLastError()).find("not for this host"),
            std::string::npos)
      << pwcGetLastError();
  // An object whose recorded size runs past the end of the file, and a file
  // of this compiler for this host that holds no object.
  {
    std::ofstream truncated(path, std::ios::binary | std::ios::trunc);
    truncated << saved.substr(0, saved.size() - 1);
  }
  EXPECT_EQ(pwcLoad(path.c_str(), &loaded), PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwcGetLastError()).find("is truncated"),
            std::string::npos)
      << pwcGetLastError();
  {
    std::ofstream empty(path, std::ios::binary | std::ios::trunc);
    empty << saved.substr(0, headerEnd + 1);
  }
  EXPECT_EQ(pwcLoad(path.c_str(), &loaded), PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwcGetLastError()).find("holds no object"),
            std::string::npos)
      << pwcGetLastError();
  std::remove(path.c_str());
  EXPECT_EQ(pwcLoad(path.c_str(), &loaded), PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwcGetLastError()).find("cannot read"),
            std::string::npos);
}

TEST(CompilerCAPI, ThreadsCompilingAtOnceGetWorkingLibraries) {
  // Each compilation lowers its variants on the shared compiler threads.
  constexpr int kThreads = 4;
  std::vector<pwcLibrary *> libraries(kThreads, nullptr);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      std::string source = kAxpy;
      pwcCompile(source.data(), source.size(), "target=cpu", &libraries[i]);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (pwcLibrary *library : libraries) {
    ASSERT_TRUE(library);
    const pwFamily *family = pwcGetFamily(library, "axpy");
    ASSERT_TRUE(family) << pwcGetLastError();
    runAxpy(family);
  }
  for (pwcLibrary *library : libraries)
    pwcDestroy(library);
}

TEST(CompilerCAPI, VariantsLoweredApartOrTogetherGiveOneTable) {
  // A function without a map keeps the module whole when lowering; the
  // family's table must not depend on it.
  std::string together = std::string(kAxpy) + R"mlir(
func.func private @unused_helper(%x: f32) -> f32 {
  return %x : f32
}
)mlir";
  pwcLibrary *apart = compile(kAxpy, "target=cpu");
  pwcLibrary *whole = compile(together, "target=cpu");
  ASSERT_TRUE(apart && whole);
  const pwFamily *a = pwcGetFamily(apart, "axpy");
  const pwFamily *b = pwcGetFamily(whole, "axpy");
  ASSERT_TRUE(a && b);
  ASSERT_EQ(a->numVariants, b->numVariants);
  for (int i = 0; i < a->numVariants; ++i) {
    EXPECT_EQ(a->variants[i].rank, b->variants[i].rank);
    EXPECT_EQ(a->variants[i].indexBitwidth, b->variants[i].indexBitwidth);
    EXPECT_EQ(a->variants[i].strategy, b->variants[i].strategy);
    EXPECT_TRUE(a->variants[i].entry && b->variants[i].entry);
  }
  runAxpy(a);
  runAxpy(b);
  pwcDestroy(apart);
  pwcDestroy(whole);
}

TEST(CompilerCAPI, CudaFamilyTable) {
  // PTX only: no toolkit or GPU needed to compile. By default 32-bit
  // variants; index-bitwidths=32,64 adds the 64-bit ones.
  for (bool wide : {false, true}) {
    SCOPED_TRACE(wide ? "32- and 64-bit" : "default");
    pwcLibrary *library =
        compile(kAxpy, wide ? "target=cuda chip=sm_90 format=isa "
                              "index-bitwidths=32,64"
                            : "target=cuda chip=sm_90 format=isa");
    ASSERT_TRUE(library);
    const pwFamily *family = pwcGetFamily(library, "axpy");
    ASSERT_TRUE(family) << pwcGetLastError();
    // Ranks 1 and 2, and at rank 2 a linear-narrow variant (all elements
    // f32) and a transpose variant per memref input: 1 + 4 per bitwidth.
    int bitwidths = wide ? 2 : 1;
    EXPECT_EQ(family->numVariants, 5 * bitwidths);
    int transposes = 0, narrow = 0, wideVariants = 0;
    for (int i = 0; i < family->numVariants; ++i) {
      transposes += family->variants[i].strategy == PW_STRATEGY_TRANSPOSE;
      wideVariants += family->variants[i].indexBitwidth == 64;
      if (family->variants[i].strategy == PW_STRATEGY_LINEAR_NARROW) {
        ++narrow;
        EXPECT_EQ(family->variants[i].rank, 2);
      }
    }
    EXPECT_EQ(transposes, 2 * bitwidths);
    EXPECT_EQ(narrow, bitwidths);
    EXPECT_EQ(wideVariants, wide ? 5 : 0);
    pwcDestroy(library);
  }

  // The transposes' cap is an option of the compile (no cap here).
  pwcLibrary *library = compile(
      kAxpy, "target=cuda chip=sm_90 format=isa transpose-blocks-per-sm=0");
  ASSERT_TRUE(library);
  pwcDestroy(library);

  // Block size and vector bytes: explicit, or 0 to let pw-tile decide.
  for (const char *shape :
       {"block-size=128 vector-bytes=16", "block-size=0 vector-bytes=0"}) {
    library = compile(
        kAxpy,
        (std::string("target=cuda chip=sm_90 format=isa ") + shape).c_str());
    ASSERT_TRUE(library) << shape;
    EXPECT_TRUE(pwcGetFamily(library, "axpy")) << shape;
    pwcDestroy(library);
  }
}

TEST(CompilerCAPI, DiagnosticsComeBackAsMessages) {
  pwcLibrary *library = nullptr;
  std::string bad = "func.func @f(%a: memref<?xf32>) {\n  return\n";
  EXPECT_EQ(pwcCompile(bad.data(), bad.size(), "target=cpu", &library),
            PW_ERROR_INVALID_VALUE);
  EXPECT_EQ(library, nullptr);
  std::string message = pwcGetLastError();
  EXPECT_NE(message.find("parsing the module failed"), std::string::npos);
  EXPECT_NE(message.find("<pointwise>:2:9: error: "), std::string::npos)
      << message;

  std::string noMap = "func.func @f(%a: memref<?xf32>) {\n  return\n}\n";
  EXPECT_EQ(pwcCompile(noMap.data(), noMap.size(), "target=cpu", &library),
            PW_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(pwcGetLastError()).find("no function holding"),
            std::string::npos)
      << pwcGetLastError();
}

TEST(CompilerCAPI, BadOptions) {
  pwcLibrary *library = nullptr;
  std::string source = kAxpy;
  for (const char *options :
       {"target=tpu", "format=elf", "index-bitwidths=16", "transpose=yes",
        "block-size=-3", "unroll=-1", "opt-level=7", "color=blue", "target",
        "transpose-blocks-per-sm=-1", "transpose-blocks-per-sm=many",
        "vector-bytes=-2", "vector-bytes=wide", "block-size=some",
        // pw-gpu-pipeline's options that a family chooses itself.
        "strategy=general", "index-bitwidth=32", "runtime-verification=1",
        "launch-on-current-stream=0"}) {
    EXPECT_EQ(pwcCompile(source.data(), source.size(), options, &library),
              PW_ERROR_INVALID_VALUE)
        << options;
    EXPECT_NE(std::string(pwcGetLastError()), "") << options;
  }
  EXPECT_EQ(pwcCompile(nullptr, 0, nullptr, &library), PW_ERROR_INVALID_VALUE);
  EXPECT_EQ(pwcCompile(source.data(), source.size(), nullptr, nullptr),
            PW_ERROR_INVALID_VALUE);
}

TEST(CompilerCAPI, UnknownFamily) {
  pwcLibrary *library = compile(kAxpy, "target=cpu");
  ASSERT_TRUE(library);
  EXPECT_EQ(pwcGetFamily(library, "nope"), nullptr);
  EXPECT_NE(std::string(pwcGetLastError()).find("no family named 'nope'"),
            std::string::npos);
  EXPECT_EQ(pwcGetFamily(nullptr, "axpy"), nullptr);
  pwcDestroy(library);
  pwcDestroy(nullptr);
}

} // namespace
