// Memory bandwidth against bytes in flight on a real GPU (Little's law), and the 1x128 fp8
// quantization kernel's two launch shapes in TensorRT-LLM. Writes CSV rows to stdout.
//
// Why: roofsim's DMA window (dma.max_inflight_bytes) and HBM latency (hbm.access_latency_ns)
// decide how fast a kernel that keeps few bytes in flight streams memory. TensorRT-LLM's MoE
// with fp8 block scales quantizes each grouped GEMM's input with a kernel of min(SMs, ...)
// blocks of 256 threads, each warp quantizing one 128-element group at a time (4 two-byte loads
// per lane, then a warp max, then the stores), while its dense GEMM path launches SMs x 8 such
// blocks. This program times both launch shapes of that access pattern (written here from the
// description above, not copied), and a read probe over warps x loads in flight.
//
// Build and run (any CUDA 12+ toolkit, sm_90):
//   nvcc -O3 -arch=sm_90 -o hbm_inflight bench/gpu/hbm_inflight.cu && ./hbm_inflight
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "cuda_check.cuh"

// Each lane loads U independent 16-byte vectors, then uses them before the next iteration's
// loads (unroll 1 keeps iterations apart): a warp keeps 32 x 16 x U bytes in flight.
template <int U>
__global__ void read_probe(const uint4* in, long n_vec, unsigned* sink) {
  const long threads = static_cast<long>(gridDim.x) * blockDim.x;
  const long t = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
#pragma unroll 1
  for (long base = 0; base + U * threads <= n_vec; base += U * threads) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = in[base + u * threads + t];
#pragma unroll
    for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;  // never true on the random data; keeps the loads
}

// One warp per 128-element group per iteration: 4 bf16 loads per lane, a warp max, the scale,
// 4 fp8 stores. No __restrict__: the stores may alias the next loads, so iterations stay apart.
__global__ void quant_1x128(const __nv_bfloat16* in, __nv_fp8_e4m3* out, float* scales, long groups) {
  const long warps = static_cast<long>(gridDim.x) * blockDim.x / 32;
  const int lane = threadIdx.x % 32;
  for (long g = (static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; g < groups; g += warps) {
    const __nv_bfloat16* p = in + g * 128;
    float v[4];
    for (int i = 0; i < 4; ++i) v[i] = __bfloat162float(p[i * 32 + lane]);
    float m = fmaxf(fmaxf(fabsf(v[0]), fabsf(v[1])), fmaxf(fabsf(v[2]), fabsf(v[3])));
    for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    const float s = m != 0.f ? 448.f / m : 1.f;
    if (lane == 0) scales[g] = 1.f / s;
    for (int i = 0; i < 4; ++i) out[g * 128 + i * 32 + lane] = __nv_fp8_e4m3(v[i] * s);
  }
}

__global__ void fill_random(unsigned* p, long n, unsigned seed) {
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += static_cast<long>(gridDim.x) * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    // Keep bf16 halves finite: clear each half's top exponent bit.
    p[i] = x & 0xbfffbfffu;
  }
}

template <typename Launch>
static float median_ms(Launch launch, int reps) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) launch();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return t[t.size() / 2];
}

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  const int sms = prop.multiProcessorCount;
  std::printf("# device,%s,sms,%d,l2_bytes,%d,cuda_driver,%d,cuda_runtime,%d\n", prop.name, sms, prop.l2CacheSize, driver,
              runtime);
  std::printf("kernel,blocks,threads,loads_per_lane,inflight_bytes,bytes_moved,median_us,gb_per_s\n");

  // Read probe over a 2 GiB buffer (40x L2).
  const long bytes = 2L << 30;
  void* buf = nullptr;
  CHECK(cudaMalloc(&buf, bytes));
  unsigned* sink = nullptr;
  CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  fill_random<<<sms * 8, 256>>>(static_cast<unsigned*>(buf), bytes / 4, 1u);
  CHECK(cudaGetLastError());
  const long n_vec = bytes / 16;
  const int threads = 256;
  for (int blocks_per_sm : {1, 2, 4, 8}) {
    const int blocks = sms * blocks_per_sm;
    auto run_u = [&](auto u_tag) {
      constexpr int U = decltype(u_tag)::value;
      const long per_iter = static_cast<long>(U) * blocks * threads;
      const long moved = n_vec / per_iter * per_iter * 16;
      const float ms = median_ms([&] { read_probe<U><<<blocks, threads>>>(static_cast<const uint4*>(buf), n_vec, sink); }, 10);
      const long inflight = static_cast<long>(blocks) * threads * 16 * U;
      std::printf("read_probe,%d,%d,%d,%ld,%ld,%.2f,%.1f\n", blocks, threads, U, inflight, moved, ms * 1e3, moved / (ms * 1e6));
    };
    run_u(std::integral_constant<int, 1>{});
    run_u(std::integral_constant<int, 2>{});
    run_u(std::integral_constant<int, 4>{});
    run_u(std::integral_constant<int, 8>{});
  }

  // The 1x128 quantization: rows x hidden of an MoE layer's expanded rows.
  const long shapes[][2] = {{16384, 7168}, {131072, 6144}, {8192, 2048}, {65536, 512}};
  for (auto& s : shapes) {
    const long elements = s[0] * s[1];
    const long groups = elements / 128;
    if (elements * 2 > bytes) continue;
    __nv_fp8_e4m3* out = nullptr;
    float* scales = nullptr;
    CHECK(cudaMalloc(&out, elements));
    CHECK(cudaMalloc(&scales, groups * sizeof(float)));
    const auto* in = static_cast<const __nv_bfloat16*>(buf);
    for (int blocks : {sms, 2 * sms, 4 * sms, 8 * sms}) {
      const float ms = median_ms([&] { quant_1x128<<<blocks, 256>>>(in, out, scales, groups); }, 10);
      const long moved = elements * 3 + groups * 4;
      const long inflight = static_cast<long>(blocks) * 8 * 256;  // warps x 4 loads x 32 lanes x 2 B
      std::printf("quant_1x128_%ldx%ld,%d,256,4,%ld,%ld,%.2f,%.1f\n", s[0], s[1], blocks, inflight, moved, ms * 1e3,
                  moved / (ms * 1e6));
    }
    CHECK(cudaFree(out));
    CHECK(cudaFree(scales));
  }
  CHECK(cudaFree(buf));
  CHECK(cudaFree(sink));
  return 0;
}
