// dtsim-profile record's two halves that need no GPU: running the user's command with the
// recorder injected (CUDA_INJECTION64_PATH, NCCL_PROFILER_PLUGIN, NVTX_INJECTION64_PATH, all
// pointing at dtsim's recording library) and turning the raw process files it left into one
// Kineto trace per rank.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "kineto_from_recording.hpp"

namespace dtsim::profiler::record {

struct RecordSettings {
  std::filesystem::path out_dir;       // the raw files go to out_dir/raw/, the traces to out_dir/
  std::filesystem::path library;       // libdtsim_record.so (CUPTI injection and NCCL plugin)
  std::filesystem::path cupti_library; // libcupti.so, which takes NVTX ranges (empty: no ranges)
};

// The variables the command runs with, added to (and replacing in) this process's environment.
std::vector<std::pair<std::string, std::string>> recording_environment(const RecordSettings& s);

// Runs `command` (argv[0] looked up in PATH) with recording_environment() and waits for it:
// its exit status, 128 + the signal that ended it, or 127 when it could not be started.
int run_recorded(const std::vector<std::string>& command, const RecordSettings& s);

struct RankTrace {
  std::filesystem::path file;  // out_dir/rank<R>.pt.trace.json
  ConvertedRecording summary;
};

// Every out_dir/raw/process-*.jsonl that recorded GPU work, written as out_dir/rank<R>.pt.trace.json
// (atomically). Two processes with one rank: InputError naming both files.
std::vector<RankTrace> write_rank_traces(const std::filesystem::path& out_dir, const ConversionOptions& options);

}  // namespace dtsim::profiler::record
