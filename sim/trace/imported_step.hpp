#pragma once
// A recorded job's step as `dtsim import` and the GUI's Trace tab take it in: the files named
// (folders standing for their trace files), read (trace_files.hpp), one step summarized per rank
// in rank order, and what each rank's PyTorch ET adds (et_pairing.hpp).
#include <filesystem>
#include <string>
#include <vector>

#include "et_pairing.hpp"
#include "step_summary.hpp"
#include "trace_files.hpp"

namespace dtsim {

// The files named, a folder standing for its trace files (trace_files.hpp) in name order. Throws
// InputError for no path, or a folder without trace files.
std::vector<std::filesystem::path> expand_trace_paths(const std::vector<std::string>& paths);

struct RankPairing {
  int rank = -1;
  std::filesystem::path file;  // the ET
  EtPairing pairing;
};

struct ImportedStep {
  std::string step;                    // "ProfilerStep#10"
  int world_size = 0;                  // recorded (distributedInfo or an ET's process group); 0: unknown
  std::vector<RankStep> ranks;         // in rank order
  std::vector<RankPairing> pairings;   // ranks given an ET, what it added
  int traced_world() const { return std::max(world_size, int(ranks.size())); }
};

// `step` empty: the latest step every timed trace has. Needs a timed trace (Kineto or Chakra) in
// `files`; throws InputError naming the file for a step a trace lacks.
ImportedStep import_step(const TraceFiles& files, const std::string& step);

}  // namespace dtsim
