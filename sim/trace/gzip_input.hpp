#pragma once
// A trace file's text, gunzipped when it is gzipped (Kineto writes `*.pt.trace.json.gz`): read
// with read_input_file's checks, inflated with zlib up to a cap, so that a corrupt or enormous file
// is an InputError naming it, not a crash or a full memory.
#include <cstddef>
#include <filesystem>
#include <string>

namespace dtsim {

// Decompressed traces larger than this are refused: the largest shipped trace is 26 MB, and a JSON
// document takes about ten times its size in memory once parsed.
constexpr std::size_t kMaxTraceBytes = std::size_t(512) << 20;

// The file's bytes, inflated when they start with gzip's magic number (1f 8b).
std::string read_maybe_gzipped(const std::filesystem::path& file);

}  // namespace dtsim
