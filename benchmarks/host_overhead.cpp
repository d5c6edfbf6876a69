//===- host_overhead.cpp - Host time per family call, from C++ ------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The host cost of one cached call of a compiled family, without Python: the
// C entry point `add_f32` of benchmarks/workloads.mlir (pw-compile output)
// on 1024-element float vectors padded to rank 4. Prints
//
//   warm-up: µs per call of the first and the last 1000 calls of half a
//           second of calls made before anything is measured;
//   launch: mean host µs per call over N calls of the 1024-element add,
//           the device synchronized at the end (launches are asynchronous:
//           once the launch queue is full this is bounded by how fast the
//           GPU retires tiny kernels, as in PyTorch's small-op figures);
//   launch-issue: the same, the time before the final synchronize;
//   dispatch: mean host µs per call of the same family on empty tensors
//           (size 0): the layout analysis and variant choice, no launch;
//   launch-direct: like launch, through pwFamilyLaunch(&pw_family_add_f32,
//           args) as the Python bindings call it, not the C entry point;
//   burst-*: the best of 20 bursts of 256 launches, host only, for the
//           family and for the driver's own launch of an empty kernel;
//   burst-length-*-N: the median of 200 bursts of N launches (1 to 256),
//           each after a synchronize, host only;
//   launch-driver-*: the driver's launches in launch's mode (N calls,
//           synchronized at the end): the floor under launch's figure.
//   rounds-*-first, rounds-*-last: launch's mode in 21 rounds of N/10
//           calls that alternate between the family, its variant's entry
//           called directly (the generated launch code without
//           pwFamilyLaunch's dispatch) and the driver's empty kernel: the
//           median of each and of the per-round differences, and every
//           round in order (rounds-each). First right after the warm-up,
//           last after everything else, then with the thread pinned to the
//           CPU it runs on (-pinned): alternating rounds compare the three
//           under the same state of the host, whose speed drifts within a
//           process (the lines above, measured one after another, have
//           differed by over 1 µs between repeats in one run).
//
// Built by test/gpu-bundle/gpu-bundle.sh: g++ -O2, linked with
// libPointwiseRuntime.so and workloads.so, rpath $ORIGIN.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Runtime/Runtime.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

/// A rank-4 memref descriptor, as MLIR lays it out.
struct Descriptor4 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[4];
  int64_t strides[4];
};

} // namespace

extern "C" {
/// benchmarks/workloads.mlir's @add_f32: out = x + y.
int32_t add_f32(Descriptor4 *x, Descriptor4 *y, Descriptor4 *out);
/// Its family table.
extern const pwFamily pw_family_add_f32;
/// The runtime's mgpu ABI entry (lib/Runtime/MgpuAbi.h), for a launch with
/// a packed parameter buffer.
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemoryBytes, void *stream,
                      void **params, void **extra, size_t paramsCount);
}

// cuda.h's markers of a packed parameter buffer (this file does not include
// cuda.h).
#define CU_LAUNCH_PARAM_END_VALUE reinterpret_cast<void *>(0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER_VALUE reinterpret_cast<void *>(0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE_VALUE reinterpret_cast<void *>(0x02)

namespace {

void check(pwStatus status, const char *what) {
  if (status == PW_SUCCESS)
    return;
  std::fprintf(stderr, "host_overhead: %s failed: %s: %s\n", what,
               pwGetStatusName(status), pwGetLastErrorMessage());
  std::exit(1);
}

Descriptor4 vector(float *data, int64_t n) {
  Descriptor4 d{};
  d.allocated = d.aligned = data;
  d.offset = 0;
  d.sizes[0] = d.sizes[1] = d.sizes[2] = 1;
  d.sizes[3] = n;
  d.strides[0] = d.strides[1] = d.strides[2] = n;
  d.strides[3] = 1;
  return d;
}

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

int main(int argc, char **argv) {
  long calls = argc > 1 ? std::atol(argv[1]) : 100000;
  const int64_t n = 1024;

  int count = 0;
  check(pwGetDeviceCount(&count), "pwGetDeviceCount");
  if (count == 0) {
    std::fprintf(stderr, "host_overhead: no CUDA device\n");
    return 1;
  }
  char name[256];
  check(pwGetDeviceName(0, name, sizeof name), "pwGetDeviceName");
  std::printf("device: %s\n", name);

  float *x, *y, *out;
  check(pwMalloc(reinterpret_cast<void **>(&x), n * sizeof(float)), "pwMalloc");
  check(pwMalloc(reinterpret_cast<void **>(&y), n * sizeof(float)), "pwMalloc");
  check(pwMalloc(reinterpret_cast<void **>(&out), n * sizeof(float)),
        "pwMalloc");
  std::vector<float> hx(n), hy(n), hout(n);
  for (int64_t i = 0; i < n; ++i) {
    hx[i] = 0.5f * i;
    hy[i] = 3.0f - i;
  }
  check(pwMemcpyHostToDevice(x, hx.data(), n * sizeof(float)), "copy");
  check(pwMemcpyHostToDevice(y, hy.data(), n * sizeof(float)), "copy");
  check(pwMemsetBytes(out, 0xFF, n * sizeof(float)), "pwMemsetBytes");

  Descriptor4 dx = vector(x, n), dy = vector(y, n), dout = vector(out, n);
  // Warm up for half a second (loads the module, picks and caches the
  // variant's function, and brings host and GPU to a steady state: on a
  // machine just started, the first calls have cost twice the later ones),
  // printing the first and the last 1000 calls' time.
  auto thousandCalls = [&] {
    double start = now();
    for (int i = 0; i < 1000; ++i)
      check(static_cast<pwStatus>(add_f32(&dx, &dy, &dout)), "add_f32");
    check(pwDeviceSynchronize(), "pwDeviceSynchronize");
    return (now() - start) / 1000 * 1e6;
  };
  double warmupStart = now(), firstThousand = thousandCalls(), lastThousand;
  do
    lastThousand = thousandCalls();
  while (now() - warmupStart < 0.5);
  int variant = pwGetLastVariant();
  check(pwMemcpyDeviceToHost(hout.data(), out, n * sizeof(float)), "copy");
  for (int64_t i = 0; i < n; ++i)
    if (hout[i] != hx[i] + hy[i]) {
      std::fprintf(stderr, "host_overhead: wrong result at %ld: %g != %g\n",
                   static_cast<long>(i), hout[i], hx[i] + hy[i]);
      return 1;
    }
  std::printf("warm-up: %.3f us/call over the first 1000 calls, %.3f over "
              "the last 1000 of %.1f s\n",
              firstThousand, lastThousand, now() - warmupStart);
  if (variant >= 0 && variant < pw_family_add_f32.numVariants) {
    const pwVariant &v = pw_family_add_f32.variants[variant];
    std::printf("variant: %d (rank %d, i%d, %s)\n", variant, v.rank,
                v.indexBitwidth,
                v.strategy == PW_STRATEGY_TRANSPOSE       ? "transpose"
                : v.strategy == PW_STRATEGY_LINEAR_NARROW ? "linear-narrow"
                                                          : "linear");
  }

  // The driver's own cost: an empty kernel through pwLaunchKernel.
  static const char kEmptyPtx[] = ".version 8.0\n.target sm_90\n"
                                  ".address_size 64\n"
                                  ".visible .entry pw_empty() { ret; }\n";
  pwModule module;
  pwFunction empty;
  check(pwModuleLoad(&module, kEmptyPtx, sizeof(kEmptyPtx)), "pwModuleLoad");
  check(pwModuleGetFunction(&empty, module, "pw_empty"), "pwModuleGetFunction");

  // The variant's entry on rank-1 descriptors of the same vectors: the
  // generated host code (module function lookup, launch) without the
  // dispatch of pwFamilyLaunch.
  struct Descriptor1 {
    float *allocated, *aligned;
    int64_t offset, size, stride;
  };
  Descriptor1 ex1{x, x, 0, n, 1}, ey1{y, y, 0, n, 1}, eout1{out, out, 0, n, 1};
  void *entryArgs[3] = {&ex1, &ey1, &eout1};
  void (*variantEntry)(void **) = nullptr;
  if (variant >= 0 && variant < pw_family_add_f32.numVariants &&
      pw_family_add_f32.variants[variant].rank == 1)
    variantEntry = pw_family_add_f32.variants[variant].entry;

  // Interleaved rounds: the family and the driver's empty kernel in turn,
  // each round `calls / 10` calls synchronized at its end, as `launch`.
  auto rounds = [&](const char *suffix) {
    constexpr int kRounds = 21;
    long perRound = std::max(1L, calls / 10);
    auto round = [&](auto &&launch) {
      check(pwDeviceSynchronize(), "pwDeviceSynchronize");
      double start = now();
      for (long i = 0; i < perRound; ++i)
        launch();
      check(pwDeviceSynchronize(), "pwDeviceSynchronize");
      return (now() - start) / perRound * 1e6;
    };
    std::vector<double> family, entry, driver, difference;
    for (int r = 0; r < kRounds; ++r) {
      family.push_back(round([&] {
        if (int32_t s = add_f32(&dx, &dy, &dout))
          check(static_cast<pwStatus>(s), "add_f32");
      }));
      if (variantEntry)
        entry.push_back(round([&] { variantEntry(entryArgs); }));
      driver.push_back(round([&] {
        check(pwLaunchKernel(empty, 1, 1, 1, 128, 1, 1, 0, pwGetStream(),
                             nullptr),
              "pwLaunchKernel");
      }));
      difference.push_back(family.back() - driver.back());
    }
    auto median = [](std::vector<double> values) {
      std::sort(values.begin(), values.end());
      return values[values.size() / 2];
    };
    auto [familyMin, familyMax] =
        std::minmax_element(family.begin(), family.end());
    std::printf("rounds-family%s: %.3f us/call (median of %d rounds of %ld "
                "calls, synchronized at each round's end, alternating with "
                "the driver's empty kernel; rounds %.3f to %.3f)\n",
                suffix, median(family), kRounds, perRound, *familyMin,
                *familyMax);
    if (!entry.empty())
      std::printf("rounds-variant-entry%s: %.3f us/call (median of the same "
                  "rounds: the chosen variant's entry called directly, "
                  "without pwFamilyLaunch)\n",
                  suffix, median(entry));
    std::printf("rounds-driver-empty-kernel%s: %.3f us/call (median of the "
                "same rounds)\n",
                suffix, median(driver));
    std::printf("rounds-family-minus-driver%s: %+.3f us/call (median of the "
                "per-round differences)\n",
                suffix, median(difference));
    std::printf("rounds-each%s (family/driver us/call, in order):", suffix);
    for (int r = 0; r < kRounds; ++r)
      std::printf(" %.2f/%.2f", family[r], driver[r]);
    std::printf("\n");
  };
  rounds("-first");

  // Cached launches.
  double t0 = now();
  for (long i = 0; i < calls; ++i)
    if (int32_t s = add_f32(&dx, &dy, &dout))
      check(static_cast<pwStatus>(s), "add_f32");
  double t1 = now();
  check(pwDeviceSynchronize(), "pwDeviceSynchronize");
  double t2 = now();
  std::printf("launch: %.3f us/call (1024-element f32 add, %ld calls, "
              "synchronized at the end)\n",
              (t2 - t0) / calls * 1e6, calls);
  std::printf("launch-issue: %.3f us/call (before the final synchronize)\n",
              (t1 - t0) / calls * 1e6);

  // Through pwFamilyLaunch directly (what the Python bindings call).
  void *args[3] = {&dx, &dy, &dout};
  t0 = now();
  for (long i = 0; i < calls; ++i)
    if (pwStatus s = pwFamilyLaunch(&pw_family_add_f32, args))
      check(s, "pwFamilyLaunch");
  check(pwDeviceSynchronize(), "pwDeviceSynchronize");
  t1 = now();
  std::printf("launch-direct: %.3f us/call (pwFamilyLaunch(&pw_family_add_f32,"
              " args), synchronized at the end)\n",
              (t1 - t0) / calls * 1e6);

  // Short bursts stay below the driver's launch queue depth, so they time
  // the host alone (long runs of tiny kernels end up waiting for the GPU).
  auto burst = [&](const char *what, auto &&launch) {
    constexpr int kBurst = 256;
    double best = 1e30;
    for (int round = 0; round < 20; ++round) {
      check(pwDeviceSynchronize(), "pwDeviceSynchronize");
      double start = now();
      for (int i = 0; i < kBurst; ++i)
        launch();
      best = std::min(best, (now() - start) / kBurst * 1e6);
    }
    check(pwDeviceSynchronize(), "pwDeviceSynchronize");
    std::printf("%s: %.3f us/call (best of 20 bursts of %d, host only)\n", what,
                best, kBurst);
  };
  // Long runs like the first line's, for launches other than the family's:
  // the driver's floor in the same mode as `launch`.
  auto sustained = [&](const char *what, auto &&launch) {
    check(pwDeviceSynchronize(), "pwDeviceSynchronize");
    double start = now();
    for (long i = 0; i < calls; ++i)
      launch();
    check(pwDeviceSynchronize(), "pwDeviceSynchronize");
    std::printf("%s: %.3f us/call (%ld calls, synchronized at the end)\n", what,
                (now() - start) / calls * 1e6, calls);
  };
  burst("burst-family", [&] {
    if (int32_t s = add_f32(&dx, &dy, &dout))
      check(static_cast<pwStatus>(s), "add_f32");
  });
  // Shorter bursts, each after a synchronize: whether the per-call cost of
  // a burst of 256 is the host's alone or grows with the launches queued.
  // The median over 200 bursts (the best of few is biased low).
  auto burstLength = [&](const char *what, int length, auto &&launch) {
    std::vector<double> perCall;
    for (int round = 0; round < 200; ++round) {
      check(pwDeviceSynchronize(), "pwDeviceSynchronize");
      double start = now();
      for (int i = 0; i < length; ++i)
        launch();
      perCall.push_back((now() - start) / length * 1e6);
    }
    check(pwDeviceSynchronize(), "pwDeviceSynchronize");
    std::sort(perCall.begin(), perCall.end());
    std::printf("%s-%d: %.3f us/call (median of 200 bursts of %d, host only;"
                " best %.3f)\n",
                what, length, perCall[perCall.size() / 2], length,
                perCall.front());
  };
  for (int length : {1, 8, 32, 256})
    burstLength("burst-length-family", length, [&] {
      if (int32_t s = add_f32(&dx, &dy, &dout))
        check(static_cast<pwStatus>(s), "add_f32");
    });
  burst("burst-driver-empty-kernel", [&] {
    check(pwLaunchKernel(empty, 1, 1, 1, 128, 1, 1, 0, pwGetStream(), nullptr),
          "pwLaunchKernel");
  });
  for (int length : {1, 8, 32, 256})
    burstLength("burst-length-driver-empty-kernel", length, [&] {
      check(
          pwLaunchKernel(empty, 1, 1, 1, 128, 1, 1, 0, pwGetStream(), nullptr),
          "pwLaunchKernel");
    });
  sustained("launch-driver-empty-kernel", [&] {
    check(pwLaunchKernel(empty, 1, 1, 1, 128, 1, 1, 0, pwGetStream(), nullptr),
          "pwLaunchKernel");
  });
  // The same with the parameter list of the rank-1 i32 add kernel (8 u32,
  // 3 pointers, 1 u32, 4 u8): what the driver charges for copying
  // parameters, passed one by one or as one packed buffer.
  static const char kParamsPtx[] =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry pw_params(.param .u32 p0, .param .u32 p1, .param .u32 "
      "p2, .param .u32 p3, .param .u32 p4, .param .u32 p5, .param .u32 p6, "
      ".param .u32 p7, .param .u64 p8, .param .u64 p9, .param .u64 p10, "
      ".param .u32 p11, .param .u8 p12, .param .u8 p13, .param .u8 p14, "
      ".param .u8 p15) { ret; }\n";
  pwModule paramsModule;
  pwFunction params;
  check(pwModuleLoad(&paramsModule, kParamsPtx, sizeof(kParamsPtx)),
        "pwModuleLoad");
  check(pwModuleGetFunction(&params, paramsModule, "pw_params"),
        "pwModuleGetFunction");
  alignas(8) unsigned char packed[64] = {};
  void *parameterPointers[16];
  for (int i = 0; i < 8; ++i)
    parameterPointers[i] = packed + 4 * i;
  for (int i = 0; i < 3; ++i)
    parameterPointers[8 + i] = packed + 32 + 8 * i;
  parameterPointers[11] = packed + 56;
  for (int i = 0; i < 4; ++i)
    parameterPointers[12 + i] = packed + 60 + i;
  burst("burst-driver-16-params", [&] {
    check(pwLaunchKernel(params, 1, 1, 1, 128, 1, 1, 0, pwGetStream(),
                         parameterPointers),
          "pwLaunchKernel");
  });
  sustained("launch-driver-16-params", [&] {
    check(pwLaunchKernel(params, 1, 1, 1, 128, 1, 1, 0, pwGetStream(),
                         parameterPointers),
          "pwLaunchKernel");
  });
  size_t packedSize = sizeof(packed);
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER_VALUE, packed,
                   CU_LAUNCH_PARAM_BUFFER_SIZE_VALUE, &packedSize,
                   CU_LAUNCH_PARAM_END_VALUE};
  burst("burst-driver-16-params-one-buffer", [&] {
    mgpuLaunchKernel(params, 1, 1, 1, 128, 1, 1, 0, pwGetStream(), nullptr,
                     extra, 16);
  });
  check(pwModuleUnload(paramsModule), "pwModuleUnload");

  pwStream stream;
  check(pwStreamCreate(&stream), "pwStreamCreate");
  pwSetStream(stream);
  burst("burst-family-own-stream", [&] {
    if (int32_t s = add_f32(&dx, &dy, &dout))
      check(static_cast<pwStatus>(s), "add_f32");
  });
  burst("burst-driver-empty-kernel-own-stream", [&] {
    check(pwLaunchKernel(empty, 1, 1, 1, 128, 1, 1, 0, stream, nullptr),
          "pwLaunchKernel");
  });
  pwSetStream(nullptr);
  check(pwStreamSynchronize(stream), "pwStreamSynchronize");
  check(pwStreamDestroy(stream), "pwStreamDestroy");

  // The first measurements again, last: how much the host's state moves
  // them within one process (the family against the driver's empty kernel,
  // and the synchronized run of the first line).
  burst("burst-family-again", [&] {
    if (int32_t s = add_f32(&dx, &dy, &dout))
      check(static_cast<pwStatus>(s), "add_f32");
  });
  burst("burst-driver-empty-kernel-again", [&] {
    check(pwLaunchKernel(empty, 1, 1, 1, 128, 1, 1, 0, pwGetStream(), nullptr),
          "pwLaunchKernel");
  });
  rounds("-last");
  cpu_set_t original;
  int cpu = sched_getcpu();
  if (cpu >= 0 && sched_getaffinity(0, sizeof original, &original) == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) == 0) {
      rounds("-pinned");
      sched_setaffinity(0, sizeof original, &original);
    }
  }

  check(pwModuleUnload(module), "pwModuleUnload");
  t0 = now();
  for (long i = 0; i < calls; ++i)
    if (int32_t s = add_f32(&dx, &dy, &dout))
      check(static_cast<pwStatus>(s), "add_f32");
  check(pwDeviceSynchronize(), "pwDeviceSynchronize");
  t1 = now();
  std::printf("launch-again: %.3f us/call (the first line's calls, last)\n",
              (t1 - t0) / calls * 1e6);

  // Empty operands: the whole dispatch, no launch.
  Descriptor4 ex = vector(x, 0), ey = vector(y, 0), eout = vector(out, 0);
  for (int i = 0; i < 1000; ++i)
    check(static_cast<pwStatus>(add_f32(&ex, &ey, &eout)), "add_f32 (empty)");
  if (pwGetLastVariant() != -1) {
    std::fprintf(stderr, "host_overhead: an empty call launched variant %d\n",
                 pwGetLastVariant());
    return 1;
  }
  t0 = now();
  for (long i = 0; i < calls; ++i)
    if (int32_t s = add_f32(&ex, &ey, &eout))
      check(static_cast<pwStatus>(s), "add_f32 (empty)");
  t1 = now();
  std::printf("dispatch: %.3f us/call (size 0: layout checks and dispatch, "
              "no launch)\n",
              (t1 - t0) / calls * 1e6);

  check(pwFree(x), "pwFree");
  check(pwFree(y), "pwFree");
  check(pwFree(out), "pwFree");
  return 0;
}
