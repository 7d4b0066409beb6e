#pragma once
// Host-side operand values: seeded random inputs, rounded to the device storage format so that a
// CPU reference sees exactly the numbers the GPU sees, and their encoding to / from device bytes.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "operator.hpp"

namespace dtsim::kernels {

enum class Storage { f32, f16, bf16, e4m3 };
std::size_t storage_bytes(Storage s);
const char* to_string(Storage s);

// Values uniform in (-scale, scale), never exactly zero before rounding, element i a hash of
// (seed, i), each rounded (nearest even) to `s`: elements first .. first + n - 1, so that a part
// (one row of a matrix) can be recomputed alone.
std::vector<float> random_values(std::size_t n, std::uint64_t seed, Storage s, float scale = 1.0f,
                                 std::size_t first = 0);

// encode(random_values(n, seed, s, scale), s) in one pass: what operators upload.
std::vector<unsigned char> random_encoded(std::size_t n, std::uint64_t seed, Storage s, float scale = 1.0f);

// `values` must already be representable in `s` (random_values' output is).
std::vector<unsigned char> encode(const std::vector<float>& values, Storage s);
std::vector<float> decode(const std::vector<unsigned char>& bytes, Storage s);
double decode_one(const unsigned char* element, Storage s);

// n integers uniform in [0, bound), element i a hash of (seed, i).
std::vector<std::int32_t> random_indices(std::size_t n, std::uint64_t seed, std::int64_t bound);

}  // namespace dtsim::kernels
