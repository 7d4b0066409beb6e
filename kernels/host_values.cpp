#include "host_values.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace dtsim::kernels {

namespace {

// SplitMix64 finaliser: a counter-based hash, so values need no sequential generator state.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t hash(std::uint64_t seed, std::uint64_t index) { return mix(mix(seed) ^ index); }

// fn(begin, end) over [0, n) in contiguous chunks on all cores: inputs of large operators run to
// hundreds of millions of elements (a 50k x 8k embedding table), ~20 ns each on one core.
// Every element is a function of its index only, so the result does not depend on the split.
template <class F>
void parallel_for(std::size_t n, F fn) {
  constexpr std::size_t kSerialBelow = std::size_t(1) << 20;
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 32);
  if (n < kSerialBelow || threads == 1) {
    fn(std::size_t(0), n);
    return;
  }
  const std::size_t chunk = (n + threads - 1) / threads;
  std::vector<std::jthread> workers;
  for (std::size_t begin = 0; begin < n; begin += chunk) workers.emplace_back(fn, begin, std::min(n, begin + chunk));
}  // the jthreads join here

float random_value(std::uint64_t seed, std::size_t i, float scale) {
  // (2j + 1) / 2^24 - 1 for j in [0, 2^24): odd numerators keep every value away from zero.
  const auto j = static_cast<std::uint32_t>(hash(seed, i) >> 40);
  const float unit = static_cast<float>(2 * j + 1) * 0x1p-24f - 1.0f;
  return unit * scale;
}

float round_to(float x, Storage s) {
  switch (s) {
    case Storage::f32: return x;
    case Storage::f16: return __half2float(__float2half_rn(x));
    case Storage::bf16: return __bfloat162float(__float2bfloat16_rn(x));
    case Storage::e4m3: {
      const __nv_fp8_storage_t q = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
      return __half2float(__half(__nv_cvt_fp8_to_halfraw(q, __NV_E4M3)));
    }
  }
  throw std::logic_error("round_to: unknown storage");
}

void store(float x, Storage s, unsigned char* out) {
  switch (s) {
    case Storage::f32: std::memcpy(out, &x, 4); return;
    case Storage::f16: { const __half h = __float2half_rn(x); std::memcpy(out, &h, 2); return; }
    case Storage::bf16: { const __nv_bfloat16 b = __float2bfloat16_rn(x); std::memcpy(out, &b, 2); return; }
    case Storage::e4m3: *out = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); return;
  }
}

}  // namespace

std::size_t storage_bytes(Storage s) {
  switch (s) {
    case Storage::f32: return 4;
    case Storage::f16: return 2;
    case Storage::bf16: return 2;
    case Storage::e4m3: return 1;
  }
  return 0;
}

const char* to_string(Storage s) {
  switch (s) {
    case Storage::f32: return "f32";
    case Storage::f16: return "f16";
    case Storage::bf16: return "bf16";
    case Storage::e4m3: return "e4m3";
  }
  return "?";
}

std::vector<float> random_values(std::size_t n, std::uint64_t seed, Storage s, float scale, std::size_t first) {
  std::vector<float> values(n);
  parallel_for(n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) values[i] = round_to(random_value(seed, first + i, scale), s);
  });
  return values;
}

std::vector<unsigned char> random_encoded(std::size_t n, std::uint64_t seed, Storage s, float scale) {
  const std::size_t width = storage_bytes(s);
  std::vector<unsigned char> bytes(n * width);
  parallel_for(n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) store(random_value(seed, i, scale), s, bytes.data() + i * width);
  });
  return bytes;
}

std::vector<unsigned char> encode(const std::vector<float>& values, Storage s) {
  const std::size_t width = storage_bytes(s);
  std::vector<unsigned char> bytes(values.size() * width);
  parallel_for(values.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) store(values[i], s, bytes.data() + i * width);
  });
  return bytes;
}

double decode_one(const unsigned char* element, Storage s) {
  switch (s) {
    case Storage::f32: { float x; std::memcpy(&x, element, 4); return x; }
    case Storage::f16: { __half h; std::memcpy(&h, element, 2); return __half2float(h); }
    case Storage::bf16: { __nv_bfloat16 b; std::memcpy(&b, element, 2); return __bfloat162float(b); }
    case Storage::e4m3: return __half2float(__half(__nv_cvt_fp8_to_halfraw(*element, __NV_E4M3)));
  }
  throw std::logic_error("decode_one: unknown storage");
}

std::vector<float> decode(const std::vector<unsigned char>& bytes, Storage s) {
  const std::size_t width = storage_bytes(s);
  std::vector<float> values(bytes.size() / width);
  parallel_for(values.size(), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) values[i] = static_cast<float>(decode_one(bytes.data() + i * width, s));
  });
  return values;
}

std::vector<std::int32_t> random_indices(std::size_t n, std::uint64_t seed, std::int64_t bound) {
  std::vector<std::int32_t> indices(n);
  for (std::size_t i = 0; i < n; ++i) indices[i] = static_cast<std::int32_t>(hash(seed, i) % static_cast<std::uint64_t>(bound));
  return indices;
}

}  // namespace dtsim::kernels
