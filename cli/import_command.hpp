#pragma once
// `dtsim import TRACE... | DIR`: reads one PyTorch profiler (Kineto) trace per rank, gzipped or
// not, and prints one profiler step of each as recorded: its time, how busy the GPU was computing
// and in NCCL, the communication no compute hid, and the collectives with their sizes and where
// the sizes came from (sim/trace); then replays the step on the hardware it was recorded on and
// prints measured against replayed per rank (sim/analysis/trace_replay.hpp). Scaling out comes
// next (issue 19).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dtsim {

struct ImportOptions {
  std::vector<std::string> paths;  // trace files, or folders of *.json / *.json.gz
  std::string step;                // "5" or "ProfilerStep#5"; empty: the latest step every trace has
  std::string json_file;
  std::string topology;        // the node and fabric to replay on; empty: the traced GPU's usual node
  std::optional<std::string> ranks;  // scale out to this many data-parallel ranks; none: the world size
  std::optional<std::string> nodes;  // or to this many nodes of the replay's topology
  std::string layout;          // "tp=T[,dp=D]": the traced job's tensor-parallel size (and the replay's dp)
  std::string straggler;       // "RANK:SLOWDOWN": also replay with that rank's compute this much slower
  std::string gpu;             // a device id: also replay with the kernels as on that GPU, on its usual node
  std::string calibration;     // a calibration measured on that GPU (its efficiencies); empty: the defaults
  std::string events;          // a YAML file of events (as a scenario's): also replay with them
  std::string topologies_dir;  // where the usual nodes' files are
  bool replay = true;          // --no-replay: only read the traces
};

void add_import_options(CLI::App& command, ImportOptions& options, const std::string& topologies_dir);
int run_import_command(const ImportOptions& options);

}  // namespace dtsim
