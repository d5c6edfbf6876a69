// bf16_chain_probe.cu - how the kernel shape moves an instruction-bound
// bf16 chain against the copy rate.
//
// The fused tanh-GELU of nine bf16 ops (benchmarks/pipeline_modules.py,
// gelu9 bf16) computes 2 bytes in and 2 bytes out per element with about
// 15 PTX instructions per element, two of them MUFU (ex2, rcp). This probe
// computes the same element function (packed bf16x2 multiplies and adds,
// the bf16 tanh of Bf16MathToNVVM.cpp) in kernels of different shapes and
// prints each one's rate as % of a 16-byte copy of the same bytes, measured
// in one process, interleaved, median of the rounds:
//
//   oneshot-U     one chunk per block, U 16-byte vectors per thread (what
//                 pw-tile emits: row `linear-grid`), 128 threads
//   loop-U        persistent grid (blocks resident on every SM), grid-stride
//                 loop over chunks of U vectors per thread
//   pipe-U        the same loop with the next chunk's loads issued before
//                 the current chunk's arithmetic (software pipelining)
//   f32sel-U      oneshot-U with the tanh's small-argument select done in
//                 f32 and two results packed by one cvt.rn.bf16x2.f32
//
// Every kernel's output is compared bit for bit with oneshot-2's.
//
//   nvcc -O3 -arch=sm_90 -o bf16_chain_probe bf16_chain_probe.cu
//   ./bf16_chain_probe [log2 elements = 26] [rounds = 9]

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t status = (call);                                               \
    if (status != cudaSuccess) {                                               \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                   cudaGetErrorString(status));                                \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

namespace {

constexpr int kThreads = 128;

__device__ __forceinline__ float ex2Approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float rcpApprox(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/// tanh of a bf16 number rounded to bf16 (Bf16MathToNVVM.cpp's sequence),
/// before the small-argument select: 1 - 2 / (2^(2x / ln 2) + 1).
__device__ __forceinline__ float tanhLarge(float x) {
  float e = ex2Approx(x * 2.88539004f);
  return fmaf(rcpApprox(e + 1.0f), -2.0f, 1.0f);
}

/// Two bf16 tanhs: select on b16 halves, as LLVM emits it.
__device__ __forceinline__ __nv_bfloat162 tanh2Halves(__nv_bfloat162 v) {
  float2 f = __bfloat1622float2(v);
  __nv_bfloat16 lo =
      fabsf(f.x) < 0.0625f ? v.x : __float2bfloat16_rn(tanhLarge(f.x));
  __nv_bfloat16 hi =
      fabsf(f.y) < 0.0625f ? v.y : __float2bfloat16_rn(tanhLarge(f.y));
  return __halves2bfloat162(lo, hi);
}

/// Two bf16 tanhs: select in f32 (x is exact in f32), one packing cvt.
__device__ __forceinline__ __nv_bfloat162 tanh2F32(__nv_bfloat162 v) {
  float2 f = __bfloat1622float2(v);
  float lo = fabsf(f.x) < 0.0625f ? f.x : tanhLarge(f.x);
  float hi = fabsf(f.y) < 0.0625f ? f.y : tanhLarge(f.y);
  return __floats2bfloat162_rn(lo, hi);
}

template <bool F32Select>
__device__ __forceinline__ uint32_t gelu2(uint32_t bits) {
  __nv_bfloat162 x = *reinterpret_cast<__nv_bfloat162 *>(&bits);
  const __nv_bfloat162 c0 = __float2bfloat162_rn(0.044715f);
  const __nv_bfloat162 c1 = __float2bfloat162_rn(0.7978845608f);
  const __nv_bfloat162 one = __float2bfloat162_rn(1.0f);
  const __nv_bfloat162 half = __float2bfloat162_rn(0.5f);
  __nv_bfloat162 x2 = __hmul2(x, x);
  __nv_bfloat162 x3 = __hmul2(x2, x);
  __nv_bfloat162 u = __hmul2(__hadd2(x, __hmul2(x3, c0)), c1);
  __nv_bfloat162 t = F32Select ? tanh2F32(u) : tanh2Halves(u);
  __nv_bfloat162 r = __hmul2(__hmul2(x, half), __hadd2(t, one));
  return *reinterpret_cast<uint32_t *>(&r);
}

template <bool F32Select> __device__ __forceinline__ uint4 gelu8(uint4 v) {
  return make_uint4(gelu2<F32Select>(v.x), gelu2<F32Select>(v.y),
                    gelu2<F32Select>(v.z), gelu2<F32Select>(v.w));
}

// ---- one chunk per block -------------------------------------------------

template <int U, bool F32Select, bool Copy>
__global__ void __launch_bounds__(kThreads)
    oneshot(const uint4 *__restrict__ in, uint4 *__restrict__ out) {
  size_t first = size_t(blockIdx.x) * U * kThreads + threadIdx.x;
  uint4 v[U];
#pragma unroll
  for (int u = 0; u < U; ++u)
    v[u] = in[first + u * kThreads];
#pragma unroll
  for (int u = 0; u < U; ++u)
    out[first + u * kThreads] = Copy ? v[u] : gelu8<F32Select>(v[u]);
}

// ---- persistent grid-stride loops ----------------------------------------

template <int U, bool Pipelined>
__global__ void __launch_bounds__(kThreads)
    loop(const uint4 *__restrict__ in, uint4 *__restrict__ out, size_t chunks) {
  size_t stride = size_t(gridDim.x) * U * kThreads;
  size_t first = size_t(blockIdx.x) * U * kThreads + threadIdx.x;
  size_t end = chunks * U * kThreads;
  if (!Pipelined) {
    for (size_t at = first; at < end; at += stride) {
      uint4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        v[u] = in[at + u * kThreads];
#pragma unroll
      for (int u = 0; u < U; ++u)
        out[at + u * kThreads] = gelu8<false>(v[u]);
    }
    return;
  }
  if (first >= end)
    return;
  uint4 next[U];
#pragma unroll
  for (int u = 0; u < U; ++u)
    next[u] = in[first + u * kThreads];
  for (size_t at = first; at < end; at += stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      v[u] = next[u];
    if (at + stride < end) {
#pragma unroll
      for (int u = 0; u < U; ++u)
        next[u] = in[at + stride + u * kThreads];
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      out[at + u * kThreads] = gelu8<false>(v[u]);
  }
}

// ---- bias + GELU + dropout, bf16 ------------------------------------------
//
// x[rows, 1024] + bias[1024] rounded to bf16, tanh-GELU in f32 op math
// (libdevice's tanhf) rounded to bf16, times the i8 keep mask rounded to
// bf16, times 1.1111111: the fused chain of pipeline_modules.py, one
// 16-byte vector of x per thread. The variants change how the f32 -> bf16
// roundings and the i8 -> f32 conversion are computed, not what they give:
//
//   bias-cvt       one cvt.rn.bf16.f32 per rounding, cvt.rn.f32.s8 for the
//                  mask (what LLVM emits for scalar truncf / sitofp)
//   bias-magic     the mask through the bits of 1.5 * 2^23 + m, less 1.5 * 2^23
//   bias-pairs     roundings two at a time (cvt.rn.bf16x2.f32)
//   bias-both      both

constexpr int kColumns = 1024;

__device__ __forceinline__ float roundBf16(float x) {
  return __bfloat162float(__float2bfloat16_rn(x));
}

__device__ __forceinline__ float2 roundBf16Pair(float a, float b) {
  return __bfloat1622float2(__floats2bfloat162_rn(a, b));
}

__device__ __forceinline__ float maskToFloat(int8_t m, bool magic) {
  if (!magic)
    return float(m);
  return __int_as_float(0x4B400000 + int(m)) - 12582912.0f;
}

__device__ __forceinline__ float geluF32(float s) {
  float x3 = s * s * s;
  float u = 0.7978845608f * (s + 0.044715f * x3);
  return 0.5f * s * (1.0f + tanhf(u));
}

template <bool Magic, bool Pairs, bool Copy>
__global__ void __launch_bounds__(kThreads)
    biasGelu(const uint4 *__restrict__ x, const uint4 *__restrict__ bias,
             const uint2 *__restrict__ mask, uint4 *__restrict__ out) {
  size_t vector = size_t(blockIdx.x) * kThreads + threadIdx.x;
  uint4 xv = x[vector];
  if (Copy) { // the same bytes: 16 in and 16 out, plus the mask's 8 in
    uint2 mv = mask[vector];
    xv.x ^= mv.x;
    out[vector] = xv;
    return;
  }
  uint4 bv = bias[vector % (kColumns / 8)];
  uint2 mv = mask[vector];
  const __nv_bfloat16 *xs = reinterpret_cast<const __nv_bfloat16 *>(&xv);
  const __nv_bfloat16 *bs = reinterpret_cast<const __nv_bfloat16 *>(&bv);
  const int8_t *ms = reinterpret_cast<const int8_t *>(&mv);
  float r[8];
#pragma unroll
  for (int lane = 0; lane < 8; lane += 2) {
    float s0 = __bfloat162float(xs[lane]) + __bfloat162float(bs[lane]);
    float s1 = __bfloat162float(xs[lane + 1]) + __bfloat162float(bs[lane + 1]);
    if (Pairs) {
      float2 s = roundBf16Pair(s0, s1);
      float2 g = roundBf16Pair(geluF32(s.x), geluF32(s.y));
      float2 k = roundBf16Pair(g.x * maskToFloat(ms[lane], Magic),
                               g.y * maskToFloat(ms[lane + 1], Magic));
      r[lane] = k.x * 1.1111111f;
      r[lane + 1] = k.y * 1.1111111f;
    } else {
      float g0 = roundBf16(geluF32(roundBf16(s0)));
      float g1 = roundBf16(geluF32(roundBf16(s1)));
      r[lane] = roundBf16(g0 * maskToFloat(ms[lane], Magic)) * 1.1111111f;
      r[lane + 1] =
          roundBf16(g1 * maskToFloat(ms[lane + 1], Magic)) * 1.1111111f;
    }
  }
  uint4 result;
  uint32_t *words = reinterpret_cast<uint32_t *>(&result);
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    __nv_bfloat162 pair = __floats2bfloat162_rn(r[2 * w], r[2 * w + 1]);
    words[w] = *reinterpret_cast<uint32_t *>(&pair);
  }
  out[vector] = result;
}

struct Probe {
  std::string name;
  std::function<void(const uint4 *, uint4 *)> launch;
  bool copy = false;
  std::vector<float> ms;
};

template <int U, bool F32Select, bool Copy>
Probe makeOneshot(const char *prefix, size_t vectors) {
  unsigned blocks = unsigned(vectors / (U * kThreads));
  return {std::string(prefix) + std::to_string(U),
          [=](const uint4 *in, uint4 *out) {
            oneshot<U, F32Select, Copy><<<blocks, kThreads>>>(in, out);
          },
          Copy};
}

template <int U, bool Pipelined>
Probe makeLoop(const char *prefix, size_t vectors, int blocksPerSm) {
  int device = 0, sms = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int resident = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &resident, loop<U, Pipelined>, kThreads, 0));
  int perSm = blocksPerSm ? std::min(blocksPerSm, resident) : resident;
  size_t chunks = vectors / (U * kThreads);
  unsigned blocks = unsigned(std::min<size_t>(chunks, size_t(sms) * perSm));
  return {std::string(prefix) + std::to_string(U) + "/" +
              std::to_string(perSm) + "perSM",
          [=](const uint4 *in, uint4 *out) {
            loop<U, Pipelined><<<blocks, kThreads>>>(in, out, chunks);
          }};
}

/// The output buffers of one set of probes: `out` for timing, `reference`
/// for the output every other probe is compared with.
struct Outputs {
  uint4 *out;
  uint4 *reference;
  size_t bytes;
};

/// Runs probes[referenceIndex] into the reference buffer, then every probe
/// but the copies, and prints those whose output differs from it.
void compareOutputs(std::vector<Probe> &probes, size_t referenceIndex,
                    const uint4 *in, const Outputs &outputs) {
  probes[referenceIndex].launch(in, outputs.reference);
  CHECK(cudaDeviceSynchronize());
  size_t words = outputs.bytes / 2;
  std::vector<uint16_t> expected(words), got(words);
  CHECK(cudaMemcpy(expected.data(), outputs.reference, outputs.bytes,
                   cudaMemcpyDeviceToHost));
  for (Probe &probe : probes) {
    if (probe.copy)
      continue;
    CHECK(cudaMemset(outputs.out, 0, outputs.bytes));
    probe.launch(in, outputs.out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), outputs.out, outputs.bytes,
                     cudaMemcpyDeviceToHost));
    size_t mismatches = 0;
    for (size_t i = 0; i < words; ++i)
      mismatches += got[i] != expected[i];
    if (mismatches)
      std::printf("%-22s %zu mismatches against %s\n", probe.name.c_str(),
                  mismatches, probes[referenceIndex].name.c_str());
  }
}

/// Times every probe in `rounds` interleaved rounds of 20 launches each.
void timeRounds(std::vector<Probe> &probes, int rounds, const uint4 *in,
                uint4 *out) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const int reps = 20;
  for (int round = 0; round < rounds; ++round)
    for (Probe &probe : probes) {
      probe.launch(in, out); // warm-up
      CHECK(cudaEventRecord(start));
      for (int rep = 0; rep < reps; ++rep)
        probe.launch(in, out);
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      probe.ms.push_back(ms / reps);
    }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
}

float median(std::vector<float> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// Each probe's median time, bandwidth for `movedBytes` and % of the rate
/// of probes[0], a copy of the same bytes.
void printTable(const std::vector<Probe> &probes, double movedBytes,
                const char *note) {
  float copyMs = median(probes[0].ms);
  std::printf("\n%-22s %10s %10s %10s   %s\n", "kernel", "us", "GB/s",
              "% of copy", note);
  for (const Probe &probe : probes) {
    float ms = median(probe.ms);
    std::printf("%-22s %10.1f %10.0f %10.1f\n", probe.name.c_str(), ms * 1e3,
                movedBytes / (ms * 1e6), 100.0 * copyMs / ms);
  }
}

} // namespace

int main(int argc, char **argv) {
  int log2 = argc > 1 ? std::atoi(argv[1]) : 26;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 9;
  size_t elements = size_t(1) << log2;
  size_t bytes = elements * 2;
  size_t vectors = bytes / 16;

  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs; %zu bf16 elements (%.0f MiB in, the same "
              "out); %d rounds, interleaved\n",
              prop.name, prop.multiProcessorCount, elements, bytes / 1048576.0,
              rounds);

  // Inputs: bf16 values spread over [-6, 6], where both tanh paths run.
  std::vector<uint16_t> host(elements);
  uint32_t state = 12345;
  for (size_t i = 0; i < elements; ++i) {
    state = state * 1664525u + 1013904223u;
    float value = (int32_t(state >> 8) / float(1 << 23)) * 6.0f;
    uint32_t word;
    std::memcpy(&word, &value, 4);
    host[i] = uint16_t((word + 0x7fff + ((word >> 16) & 1)) >> 16);
  }
  uint4 *in;
  Outputs outputs{nullptr, nullptr, bytes};
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&outputs.out, bytes));
  CHECK(cudaMalloc(&outputs.reference, bytes));
  CHECK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));

  // ---- tanh-GELU as nine ops ----
  std::vector<Probe> probes;
  probes.push_back(makeOneshot<2, false, true>("copy-oneshot-", vectors));
  probes.push_back(makeOneshot<2, false, false>("oneshot-", vectors));
  probes.push_back(makeOneshot<1, false, false>("oneshot-", vectors));
  probes.push_back(makeOneshot<4, false, false>("oneshot-", vectors));
  probes.push_back(makeOneshot<2, true, false>("f32sel-", vectors));
  probes.push_back(makeOneshot<4, true, false>("f32sel-", vectors));
  probes.push_back(makeLoop<2, false>("loop-", vectors, 0));
  probes.push_back(makeLoop<1, true>("pipe-", vectors, 0));
  probes.push_back(makeLoop<2, true>("pipe-", vectors, 0));
  probes.push_back(makeLoop<2, true>("pipe-", vectors, 8));
  probes.push_back(makeLoop<4, true>("pipe-", vectors, 0));
  compareOutputs(probes, 1, in, outputs);
  timeRounds(probes, rounds, in, outputs.out);
  printTable(probes, 2.0 * bytes, "(4 bytes per element)");

  // ---- bias + GELU + dropout ----
  uint4 *bias;
  uint2 *mask;
  CHECK(cudaMalloc(&bias, kColumns * 2));
  CHECK(cudaMalloc(&mask, elements));
  std::vector<int8_t> keep(elements);
  for (size_t i = 0; i < elements; ++i) {
    state = state * 1664525u + 1013904223u;
    keep[i] = (state >> 16) % 10 != 0;
  }
  CHECK(cudaMemcpy(bias, host.data(), kColumns * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(mask, keep.data(), elements, cudaMemcpyHostToDevice));
  unsigned blocks = unsigned(vectors / kThreads);
  auto make = [&](const char *name, auto kernel, bool copy) {
    return Probe{name,
                 [=](const uint4 *x, uint4 *y) {
                   kernel<<<blocks, kThreads>>>(x, bias, mask, y);
                 },
                 copy};
  };
  std::vector<Probe> chain;
  chain.push_back(make("bias-copy", biasGelu<false, false, true>, true));
  chain.push_back(make("bias-cvt", biasGelu<false, false, false>, false));
  chain.push_back(make("bias-magic", biasGelu<true, false, false>, false));
  chain.push_back(make("bias-pairs", biasGelu<false, true, false>, false));
  chain.push_back(make("bias-both", biasGelu<true, true, false>, false));
  compareOutputs(chain, 1, in, outputs);
  timeRounds(chain, rounds, in, outputs.out);
  printTable(chain, 2.5 * bytes, "(5 bytes per element)");
  return 0;
}
