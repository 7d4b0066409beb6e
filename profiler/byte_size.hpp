#pragma once
// Byte counts as nccl-tests' -b/-e flags take them: a number with an optional K, M or G suffix
// (powers of 1024): "8", "64K", "8G". And the sweep of sizes min, min*factor, ... <= max.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::profiler {

std::optional<uint64_t> parse_byte_size(const std::string& text);

// min_bytes, then each size times `factor` (at least one byte more) while <= max_bytes.
// Throws std::invalid_argument for min_bytes 0, max_bytes < min_bytes or factor <= 1.
std::vector<uint64_t> byte_sweep(uint64_t min_bytes, uint64_t max_bytes, double factor);

}  // namespace dtsim::profiler
