// dtsim-profile record [--out DIR] [--step-range NAME] -- COMMAND...: runs a CUDA job unchanged
// with dtsim's recorder injected and writes one Kineto trace per rank that dtsim import reads.
#pragma once

#include <string>
#include <vector>

namespace dtsim::profiler::gpu {

struct RecordOptions {
  std::string out_dir = "dtsim-recording";
  std::string step_range;             // NVTX range marking a step (empty: ProfilerStep#N, else inferred)
  bool convert_only = false;          // only turn OUT/raw/ into traces again
  std::vector<std::string> command;   // after "--"
};

// Exit code: the job's own when it failed, else 0; 2 for bad input (no command, unreadable files).
int run_record_command(const RecordOptions& o);

}  // namespace dtsim::profiler::gpu
