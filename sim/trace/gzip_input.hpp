#pragma once
// A trace file's text, gunzipped when it is gzipped (Kineto writes `*.pt.trace.json.gz`): read
// with read_input_file's checks, inflated with zlib up to a cap, so that a corrupt or enormous file
// is an InputError naming it, not a crash or a full memory.
#include <cstddef>
#include <filesystem>
#include <string>

namespace dtsim {

// Decompressed traces larger than this are refused. A JSON document takes about 15 times its size
// in memory once parsed (3,000,000 small kernel events, 290 MB: 4.38 GB; the 7.5 MB trace of a
// GPT 1.3B step: 99 MB for the whole `dtsim import`), so 128 MiB keeps a trace's import near 2 GB,
// half the memory budget (sim/base/size_limits.hpp). The traced H100 steps of 2026-11-26 inflate to
// 2.7 to 8.7 MB.
constexpr std::size_t kMaxTraceBytes = std::size_t(128) << 20;

// The file's bytes, inflated when they start with gzip's magic number (1f 8b).
std::string read_maybe_gzipped(const std::filesystem::path& file);

}  // namespace dtsim
