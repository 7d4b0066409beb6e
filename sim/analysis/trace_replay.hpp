#pragma once
// Replaying a recorded step (sim/trace) on the hardware it was recorded on: the ranks' programs
// (replay_program.hpp) simulated on a topology of that GPU's usual node, and what came out
// against what was measured, per rank.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine.hpp"
#include "kernel_class.hpp"
#include "replay_groups.hpp"
#include "scenario.hpp"
#include "step_summary.hpp"
#include "topology_spec.hpp"

namespace dtsim {

struct RankReplay {
  int rank = -1;
  double measured_step_s = 0;   // the rank's step annotation
  double replayed_step_s = 0;   // when the rank's replayed program ended, less its start offset
  double replayed_communication_s = 0;  // in collectives, waiting for late ranks included
};

struct TraceReplay {
  std::filesystem::path topology_file;
  std::string topology_reason;  // why this topology ("the usual node of Tesla V100-SXM2-32GB")
  int nodes = 0;
  int simulated_ranks = 0;      // the world size replayed, or the ranks scaled out to
  double measured_step_s = 0;   // the slowest traced rank's
  double replayed_step_s = 0;   // the longest of all simulated ranks' replayed steps
  double mean_replayed_communication_s = 0;  // over all simulated ranks
  std::vector<RankReplay> ranks;  // the traced ones
  std::vector<std::string> assumed;
  int gpus_per_node = 0;
  std::optional<EngineResult> engine;  // with ReplaySetup::record_spans: the simulated ranks' spans
  double error() const { return replayed_step_s / measured_step_s - 1; }  // + replayed slower
};

// The stock topology of the node a GPU (as CUDA names it: "Tesla V100-SXM2-32GB", "NVIDIA
// A100-SXM4-80GB", or as device_spec.hpp does: "NVIDIA H100 SXM5 80GB") comes in, from
// `topologies_dir`; empty when dtsim knows no such node.
std::filesystem::path topology_for_gpu_name(const std::string& gpu_name, const std::filesystem::path& topologies_dir);

// How to replay: on how many ranks and which fabric, with which what-if events.
struct ReplaySetup {
  int world_size = 0;                   // ranks simulated (at least the traced ones)
  std::filesystem::path topology_file{};   // empty: the traced GPU's usual node
  std::filesystem::path topologies_dir{};  // where the usual nodes' files are
  std::vector<Event> events{};
  std::string events_source = "<command line>";  // the file they came from, for errors
  KernelTimeScale scale{};                 // the kernels as on another GPU (gpu_change.hpp)
  bool record_spans = false;            // keep the replay's spans (TraceReplay::engine), for a timeline
  ReplayLayout layout{};                // --layout: where the trace records no process groups
  int traced_world = 0;                 // the job's ranks when traced (0: world_size, no scaling out)
};

// Where a replay of `ranks` with `setup` runs, found and checked as replay_steps does (InputError:
// no usual node for the GPU, not whole nodes, events out of range, collectives whose group is
// open, replay_groups.hpp) without simulating: to check a
// replay before reporting anything.
struct ReplayPlatform {
  std::filesystem::path topology_file;
  std::string topology_reason;  // "given", or "the usual node of <GPU>"
  TopologySpec topology;        // its node cut to the ranks where they fill less than one
  int ranks = 0, nodes = 0;
  CollectiveGroups groups;      // which collectives grow to all ranks, which keep their group
};
ReplayPlatform replay_platform(const std::vector<RankStep>& ranks, const ReplaySetup& setup);

// `topology_file` empty: the GPU's usual node (an InputError when there is none). `ranks` in rank
// order. With fewer traces than `world_size` ranks (a job that traced rank 0 alone, or a job
// scaled out to more data-parallel ranks), rank k runs the program of trace k % traces, said in
// `assumed`: data parallelism's ranks do the same work, and with the batch per GPU kept (weak
// scaling) their collectives keep their bytes (a DDP bucket; an embedding all-to-all, whose rank
// sends its batch's lookups of all tables, however many ranks hold them).
// `events`: what-if events on the replay (a straggler rank, a slow link, a failure), as a
// scenario's, their targets checked against the replayed nodes (InputError naming
// `events_source`), their times from the earliest rank's step start; a straggler's from its own
// rank's. A straggler slows
// its rank's replayed compute, which is everything between its collectives (GPU and host time).
// `scale`: the kernels as on another GPU (gpu_change.hpp; replay_program.hpp says how).
TraceReplay replay_steps(const std::vector<RankStep>& ranks, const ReplaySetup& setup);

}  // namespace dtsim
