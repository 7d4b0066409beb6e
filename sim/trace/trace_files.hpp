#pragma once
// The trace files a user hands `dtsim import`, each read by what it holds: a PyTorch profiler
// (Kineto) trace or a PyTorch execution trace (JSON), or a Chakra trace (*.et); gzipped or not.
#include <filesystem>
#include <vector>

#include "kineto_trace.hpp"
#include "pytorch_et.hpp"

namespace dtsim {

struct TraceFiles {
  std::vector<KinetoTrace> timed;            // traces with GPU times (Kineto, Chakra), one per rank
  std::vector<PyTorchEt> execution_traces;   // host-side, without times
};

// Whether a file's name is one of a trace: *.json, *.json.gz, *.et, *.et.gz.
bool is_trace_file_name(const std::filesystem::path& file);

// Throws InputError naming a file that is none of them.
TraceFiles read_trace_files(const std::vector<std::filesystem::path>& files);

}  // namespace dtsim
