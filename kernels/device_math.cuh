#pragma once
// Device-side helpers shared by the elementwise kernels: fp32 math on fp32 / fp16 / bf16 storage,
// 16-byte packed loads, block reductions and grid sizing.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace dtsim::kernels {

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// V consecutive elements moved with one load / store (V * sizeof(T) <= 16 bytes, aligned to it).
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};
template <class T>
inline constexpr int kPackWidth = 16 / sizeof(T);  // elements per 16-byte pack

template <class T, int V>
__device__ __forceinline__ Pack<T, V> load_pack(const T* p) { return *reinterpret_cast<const Pack<T, V>*>(p); }
template <class T, int V>
__device__ __forceinline__ void store_pack(T* p, const Pack<T, V>& pack) { *reinterpret_cast<Pack<T, V>*>(p) = pack; }

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Sum over the block, returned to every thread (same order everywhere, so the same value).
template <int kThreads>
__device__ float block_sum(float v) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024);
  __shared__ float partial[kThreads / 32];
  v = warp_sum(v);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  float total = 0;
  for (int w = 0; w < kThreads / 32; ++w) total += partial[w];
  __syncthreads();  // `partial` may be reused by the next call
  return total;
}

// Blocks for a grid-stride loop over `items`: enough to fill the GPU, at least one.
inline unsigned grid_blocks(std::int64_t items, int threads) {
  const std::int64_t wanted = (items + threads - 1) / threads;
  constexpr std::int64_t kMaxBlocks = 1 << 18;
  return static_cast<unsigned>(wanted < 1 ? 1 : wanted > kMaxBlocks ? kMaxBlocks : wanted);
}

}  // namespace dtsim::kernels

#include <stdexcept>
#include <type_traits>

#include "host_values.hpp"

namespace dtsim::kernels {

// Host side: calls f(std::type_identity<T>{}) with T the device type of storage s.
template <class F>
void with_storage_type(Storage s, F&& f) {
  switch (s) {
    case Storage::f32: f(std::type_identity<float>{}); return;
    case Storage::f16: f(std::type_identity<__half>{}); return;
    case Storage::bf16: f(std::type_identity<__nv_bfloat16>{}); return;
    case Storage::e4m3: break;
  }
  throw std::logic_error("with_storage_type: elementwise kernels take f32, f16 or bf16");
}

}  // namespace dtsim::kernels
