#include "copy_bandwidth.hpp"

#include <cuda_runtime_api.h>

#include <vector>

#include "gpu_check.hpp"
#include "kernel_records.hpp"

namespace dtsim::profiler::gpu {

namespace {

// Owns the buffers, stream and events; frees them on every path (allocate() may throw half way).
struct CopyResources {
  void* device_a = nullptr;
  void* device_b = nullptr;
  void* host = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  CopyResources() = default;
  void allocate(size_t bytes) {
    PROFILE_CUDA(cudaMalloc(&device_a, bytes));
    PROFILE_CUDA(cudaMalloc(&device_b, bytes));
    PROFILE_CUDA(cudaMallocHost(&host, bytes));
    PROFILE_CUDA(cudaMemset(device_a, 1, bytes));
    PROFILE_CUDA(cudaMemset(device_b, 2, bytes));
    PROFILE_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    PROFILE_CUDA(cudaEventCreate(&start));
    PROFILE_CUDA(cudaEventCreate(&stop));
  }
  ~CopyResources() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (stream) cudaStreamDestroy(stream);
    if (host) cudaFreeHost(host);
    if (device_b) cudaFree(device_b);
    if (device_a) cudaFree(device_a);
  }
  CopyResources(const CopyResources&) = delete;
  CopyResources& operator=(const CopyResources&) = delete;
};

RawCopy time_copy(CopyResources& r, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, int iterations,
                  int warmup) {
  for (int i = 0; i < warmup; ++i) PROFILE_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, r.stream));
  PROFILE_CUDA(cudaStreamSynchronize(r.stream));
  std::vector<double> times_s;
  for (int i = 0; i < iterations; ++i) {
    PROFILE_CUDA(cudaEventRecord(r.start, r.stream));
    PROFILE_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, r.stream));
    PROFILE_CUDA(cudaEventRecord(r.stop, r.stream));
    PROFILE_CUDA(cudaEventSynchronize(r.stop));
    float ms = 0;
    PROFILE_CUDA(cudaEventElapsedTime(&ms, r.start, r.stop));
    times_s.push_back(double(ms) * 1e-3);
  }
  return {double(bytes), median(times_s)};
}

}  // namespace

RawCopies measure_copies(size_t bytes, int iterations, int warmup) {
  PROFILE_CUDA(cudaSetDevice(0));
  CopyResources r;
  r.allocate(bytes);
  RawCopies c;
  c.d2d = time_copy(r, r.device_b, r.device_a, bytes, cudaMemcpyDeviceToDevice, iterations, warmup);
  c.h2d = time_copy(r, r.device_a, r.host, bytes, cudaMemcpyHostToDevice, iterations, warmup);
  c.d2h = time_copy(r, r.host, r.device_a, bytes, cudaMemcpyDeviceToHost, iterations, warmup);
  return c;
}

}  // namespace dtsim::profiler::gpu
