#include "trace_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "input_error.hpp"
#include "replay_program.hpp"
#include "scenario_consistency.hpp"
#include "simulation.hpp"
#include "topology_spec.hpp"

namespace dtsim {

namespace {
constexpr double kGpuSpeedFlops = 1e12;  // compute tasks are given in seconds; any speed will do

int traced_world(const std::vector<RankStep>& traced, const ReplaySetup& setup) {
  return std::max(setup.traced_world > 0 ? setup.traced_world : setup.world_size, int(traced.size()));
}
}  // namespace

std::filesystem::path topology_for_gpu_name(const std::string& gpu_name, const std::filesystem::path& topologies_dir) {
  const auto has = [&](const char* part) { return gpu_name.find(part) != std::string::npos; };
  if (has("V100-SXM2") || has("V100 SXM2")) return topologies_dir / "dgx1-v100-edr-fattree.yaml";
  if (has("A100")) return topologies_dir / "dgx-a100-hdr-fattree.yaml";
  if (has("H100")) return topologies_dir / "dgx-h100-ndr-fattree.yaml";
  if (has("H200")) return topologies_dir / "hgx-h200-ndr-rail.yaml";
  if (has("GB200")) return topologies_dir / "gb200-nvl72-fattree.yaml";
  if (has("B200")) return topologies_dir / "dgx-b200-ndr-fattree.yaml";
  return {};
}

ReplayPlatform replay_platform(const std::vector<RankStep>& traced, const ReplaySetup& setup) {
  ReplayPlatform out;
  if (traced.empty()) return out;
  const std::string& gpu_name = traced.front().gpu_name;
  out.topology_file = setup.topology_file;
  out.topology_reason = "given";
  if (out.topology_file.empty()) {
    out.topology_file = topology_for_gpu_name(gpu_name, setup.topologies_dir);
    if (out.topology_file.empty())
      throw InputError({"<command line>", 0, "--topology",
                        "a topology file (dtsim knows no usual node for the traced GPU)", "'" + gpu_name + "'"});
    out.topology_reason = "the usual node of " + gpu_name;
  }
  out.topology = load_topology(out.topology_file);
  out.ranks = std::max(setup.world_size, int(traced.size()));
  if (out.ranks < out.topology.node.gpus) out.topology.node.gpus = out.ranks;  // part of one node
  if (out.ranks % out.topology.node.gpus != 0)
    throw InputError({"<command line>", 0, "--ranks",
                      fmt::format("whole nodes of {} GPUs ({})", out.topology.node.gpus,
                                  out.topology_file.filename().string()),
                      std::to_string(out.ranks)});
  out.nodes = out.ranks / out.topology.node.gpus;
  check_cluster_buildable(out.topology, out.nodes);
  out.groups = collective_groups(traced.front(), traced_world(traced, setup), out.ranks, setup.layout);
  check_events(setup.events, out.topology, out.nodes, out.ranks,
               [&](const std::string& field, const std::string& expected, const std::string& found) {
                 throw InputError({setup.events_source, 0, field, expected, found});
               });
  return out;
}

TraceReplay replay_steps(const std::vector<RankStep>& traced, const ReplaySetup& setup) {
  TraceReplay out;
  if (traced.empty()) return out;
  const ReplayPlatform platform = replay_platform(traced, setup);
  const TopologySpec& topology = platform.topology;
  const int count = platform.ranks;
  std::vector<RankStep> ranks = traced;
  for (int k = int(traced.size()); k < count; ++k) {
    ranks.push_back(traced[size_t(k) % traced.size()]);
    ranks.back().rank = k;
  }
  out.topology_file = platform.topology_file;
  out.topology_reason = platform.topology_reason;
  out.nodes = platform.nodes;
  out.simulated_ranks = count;
  out.gpus_per_node = topology.node.gpus;
  ReplayProgram program = replay_program(ranks, setup.scale, platform.groups.fixed_size);
  out.assumed = platform.groups.assumed;
  out.assumed.insert(out.assumed.end(), program.assumed.begin(), program.assumed.end());
  if (ranks.size() > traced.size())
    out.assumed.insert(out.assumed.begin(),
                       fmt::format("{} ranks, {} traced: rank k runs the program of traced rank k % {}", count,
                                   traced.size(), traced.size()));
  // A straggler slows its rank from when that rank's step began, not the wait before it.
  std::vector<Event> shifted = setup.events;
  for (Event& e : shifted)
    if (auto* s = std::get_if<StragglerEvent>(&e); s && s->node < 0 && s->gpu >= 0 && s->gpu < count)
      s->start_s += program.start_offset_s[size_t(s->gpu)];
  SimulationOptions options;
  options.record_trace = setup.record_spans;
  SimulationResult sim = simulate_workload(topology, out.nodes, kGpuSpeedFlops, program.workload, shifted, options);
  double communication_s = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const RankReplay k{ranks[r].rank, ranks[r].step_s, sim.engine.ranks[r].finish_s - program.start_offset_s[r],
                       sim.engine.ranks[r].communication_s};
    out.replayed_step_s = std::max(out.replayed_step_s, k.replayed_step_s);
    communication_s += k.replayed_communication_s;
    if (r < traced.size()) out.ranks.push_back(k);
  }
  out.measured_step_s = slowest_step_s(traced);
  out.mean_replayed_communication_s = communication_s / double(ranks.size());
  if (setup.record_spans) out.engine = std::move(sim.engine);
  return out;
}

}  // namespace dtsim
