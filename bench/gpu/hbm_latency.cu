// Load-to-use latency of one GPU thread chasing pointers through a random cycle of 128-byte
// lines, in regions that fit the L2 and regions far larger (HBM). Writes CSV rows to stdout.
//
// Why: roofsim's hbm.access_latency_ns is an assumption (500 ns); with the read probe of
// hbm_inflight.cu (bandwidth against bytes in flight) this measures what a lone access costs.
//
// Build and run: nvcc -O3 -arch=sm_90 -o hbm_latency bench/gpu/hbm_latency.cu && ./hbm_latency
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cuda_check.cuh"

constexpr long kLine = 128;  // bytes between the slots: one L2 line each

__global__ void chase(const long* next, long steps, long* out, long long* cycles) {
  long p = 0;
  const long long t0 = clock64();
  for (long i = 0; i < steps; ++i) p = next[p];
  const long long t1 = clock64();
  out[0] = p;
  cycles[0] = t1 - t0;
}

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# device,%s,l2_bytes,%d\n", prop.name, prop.l2CacheSize);
  std::printf("region_bytes,steps,ns_per_access,cycles_per_access\n");
  const long steps = 200000;
  long* out = nullptr;
  long long* cycles = nullptr;
  CHECK(cudaMalloc(&out, sizeof(long)));
  CHECK(cudaMalloc(&cycles, sizeof(long long)));
  for (long region : {8L << 20, 32L << 20, 256L << 20, 1L << 30, 4L << 30}) {
    const long slots = region / kLine;
    const long stride = kLine / sizeof(long);  // next[] indices are in longs
    // One random cycle over every slot (Sattolo's shuffle), seeded: the same walk every run.
    std::vector<long> order(slots);
    for (long i = 0; i < slots; ++i) order[i] = i;
    std::mt19937_64 rng(42);
    for (long i = slots - 1; i > 0; --i) std::swap(order[i], order[std::uniform_int_distribution<long>(0, i - 1)(rng)]);
    std::vector<long> host(region / sizeof(long), 0);
    for (long i = 0; i < slots; ++i) host[order[i] * stride] = order[(i + 1) % slots] * stride;
    long* next = nullptr;
    CHECK(cudaMalloc(&next, region));
    CHECK(cudaMemcpy(next, host.data(), region, cudaMemcpyHostToDevice));
    chase<<<1, 1>>>(next, 20000, out, cycles);  // a first walk: module load and launch out of the timing
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaEventRecord(a));
    chase<<<1, 1>>>(next, steps, out, cycles);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    long long c = 0;
    CHECK(cudaMemcpy(&c, cycles, sizeof(c), cudaMemcpyDeviceToHost));
    std::printf("%ld,%ld,%.1f,%.1f\n", region, steps, ms * 1e6 / steps, static_cast<double>(c) / steps);
    std::fflush(stdout);
    CHECK(cudaFree(next));
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
  }
  CHECK(cudaFree(out));
  CHECK(cudaFree(cycles));
  return 0;
}
