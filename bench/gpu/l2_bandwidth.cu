// Read bandwidth of the L2: every SM's warps read a buffer that fits the L2, many passes in one
// launch, 16-byte loads, 4 in flight per lane. Writes CSV rows to stdout.
//
// Why: onchip.l2.bandwidth_gb_per_s in configs/hardware/h100_sxm5.toml is a number roofsim does
// not serve yet (docs/calibration.md, "Other known limits"); grouped fp8 GEMMs with small tiles
// may be bound by it. This measures it. (H100's L2 has two partitions: a buffer of a few MB is
// served by the near one, a larger one crosses; both sizes are timed.)
//
// Build and run: nvcc -O3 -arch=sm_90 -o l2_bandwidth bench/gpu/l2_bandwidth.cu && ./l2_bandwidth
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.cuh"

__global__ void read_passes(const uint4* in, long n_vec, int passes, unsigned* sink) {
  const long threads = static_cast<long>(gridDim.x) * blockDim.x;
  const long t = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (int p = 0; p < passes; ++p) {
    // Each pass starts at a different offset so that no thread rereads its own lines.
    const long shift = (static_cast<long>(p) * 7919 * 4) % n_vec;
#pragma unroll 1
    for (long base = 0; base + 4 * threads <= n_vec; base += 4 * threads) {
      uint4 v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        long i = base + u * threads + t + shift;
        if (i >= n_vec) i -= n_vec;
        v[u] = in[i];
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;
}

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("# device,%s,sms,%d,l2_bytes,%d\n", prop.name, sms, prop.l2CacheSize);
  std::printf("buffer_bytes,blocks,threads,passes,bytes_read,median_us,gb_per_s\n");
  unsigned* sink = nullptr;
  CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  for (long bytes : {8L << 20, 16L << 20, 24L << 20, 32L << 20}) {
    void* buf = nullptr;
    CHECK(cudaMalloc(&buf, bytes));
    CHECK(cudaMemset(buf, 0x5a, bytes));
    const long n_vec = bytes / 16;
    const int passes = static_cast<int>((8L << 30) / bytes);  // 8 GiB read per launch
    for (int blocks_per_sm : {2, 4, 8}) {
      const int blocks = sms * blocks_per_sm;
      const long per_pass = n_vec / (4L * blocks * 256) * (4L * blocks * 256) * 16;
      if (per_pass < bytes / 2) continue;  // too many threads for the buffer: most would idle
      std::vector<float> t;
      cudaEvent_t a, b;
      CHECK(cudaEventCreate(&a));
      CHECK(cudaEventCreate(&b));
      for (int rep = 0; rep < 8; ++rep) {
        CHECK(cudaEventRecord(a));
        read_passes<<<blocks, 256>>>(static_cast<const uint4*>(buf), n_vec, passes, sink);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaGetLastError());
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (rep >= 2) t.push_back(ms);  // two warm-ups
      }
      std::sort(t.begin(), t.end());
      const float ms = t[t.size() / 2];
      const double moved = static_cast<double>(per_pass) * passes;
      std::printf("%ld,%d,256,%d,%.0f,%.1f,%.1f\n", bytes, blocks, passes, moved, ms * 1e3, moved / (ms * 1e6));
      std::fflush(stdout);
      CHECK(cudaEventDestroy(a));
      CHECK(cudaEventDestroy(b));
    }
    CHECK(cudaFree(buf));
  }
  CHECK(cudaFree(sink));
  return 0;
}
