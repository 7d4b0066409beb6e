#include "import_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "comma_list.hpp"
#include "critical_path.hpp"
#include "flag_values.hpp"
#include "gpu_change.hpp"
#include "imported_step.hpp"
#include "input_error.hpp"
#include "input_file.hpp"
#include "scenario_loader.hpp"
#include "size_limits.hpp"
#include "step_summary.hpp"
#include "trace_replay.hpp"

namespace dtsim {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string step_name(const std::string& flag) {
  if (flag.empty()) return "";
  return flag.find_first_not_of("0123456789") == std::string::npos ? "ProfilerStep#" + flag : flag;
}

std::string bytes_text(const TraceCollective& c) {
  if (c.size_source == SizeSource::unknown) return "size unknown";
  return fmt::format("{:.0f} B ({})", c.bytes, to_string(c.size_source));
}

std::string group_text(const TraceCollective& c) { return c.group_size > 0 ? std::to_string(c.group_size) : "?"; }

// The rank whose GPU ran its step furthest behind the step's annotation, where that is over 1% of
// the step: a CPU that runs ahead (nothing waits for the GPU each step) queues the step's work behind
// the earlier steps'.
void print_gpu_lag(const std::vector<RankStep>& ranks) {
  const auto most = std::max_element(ranks.begin(), ranks.end(), [](const RankStep& a, const RankStep& b) {
    return a.gpu_lag_s() < b.gpu_lag_s();
  });
  if (most == ranks.end() || most->gpu_lag_s() <= 0.01 * most->step_s) return;
  std::cout << fmt::format("GPU step       {:.3f} ms on rank {}, {:.3f} ms behind its annotation (the CPU ran ahead): "
                           "from the end of the work launched before the step to the end of the step's own; the "
                           "replay runs this window\n",
                           1e3 * most->gpu_step_s(), most->rank < 0 ? std::string("?") : std::to_string(most->rank),
                           1e3 * most->gpu_lag_s());
}

void print(const std::vector<RankStep>& ranks, int world_size, const std::vector<CriticalCollective>& path) {
  const RankStep& first = ranks.front();
  std::cout << fmt::format("import         {} trace{} of {}, world size {}, step {}\n", ranks.size(),
                           ranks.size() == 1 ? "" : "s", fs::path(first.file).parent_path().string(),
                           world_size > 0 ? std::to_string(world_size) : "unrecorded", first.step);
  std::cout << fmt::format("{:>4}  {:<24} {:>9} {:>11} {:>10} {:>8} {:>12} {:>7} {:>9}\n", "rank", "GPU", "step ms",
                           "GPU span ms", "compute ms", "NCCL ms", "exposed NCCL", "kernels", "colls");
  for (const RankStep& r : ranks) {
    std::cout << fmt::format("{:>4}  {:<24} {:>9.3f} {:>11.3f} {:>10.3f} {:>8.3f} {:>12.3f} {:>7} {:>9}\n",
                             r.rank < 0 ? std::string("?") : std::to_string(r.rank),
                             r.gpu_name.empty() ? "unrecorded" : r.gpu_name.substr(0, 24), 1e3 * r.step_s,
                             1e3 * r.gpu_span_s, 1e3 * r.compute_s, 1e3 * r.collective_s,
                             1e3 * r.exposed_collective_s, r.kernels, r.collectives.size());
  }
  std::cout << fmt::format("kernel classes rank {}: GEMM {:.3f} ms, attention {:.3f} ms, memory-bound {:.3f} ms, "
                           "optimizer {:.3f} ms; the rest of its GPU step (gaps, waits on the host) {:.3f} ms\n",
                           first.rank < 0 ? std::string("?") : std::to_string(first.rank),
                           1e3 * first.classes[OperatorKind::gemm], 1e3 * first.classes[OperatorKind::attention_gemm],
                           1e3 * first.classes[OperatorKind::elementwise], 1e3 * first.classes[OperatorKind::optimizer],
                           1e3 * first.classes.launch_s);
  if (first.times_recorded && first.step == kWholeTraceStep)
    std::cout << fmt::format("measured step  {:.3f} ms (the slowest rank's whole trace, first launch to last GPU "
                             "work's end: no ProfilerStep annotation)\n",
                             1e3 * slowest_step_s(ranks));
  else if (first.times_recorded)
    std::cout << fmt::format("measured step  {:.3f} ms (the slowest rank's {} annotation)\n",
                             1e3 * slowest_step_s(ranks), first.step);
  else
    std::cout << fmt::format("measured step  not recorded: the trace has durations, no start times; its GPU work "
                             "laid end to end takes {:.3f} ms\n",
                             1e3 * slowest_step_s(ranks));
  print_gpu_lag(ranks);
  std::cout << fmt::format("collectives of rank {} (kind, input bytes, where the size came from, kernel µs):\n",
                           first.rank < 0 ? std::string("?") : std::to_string(first.rank));
  for (const StepCollective& c : first.collectives)
    std::cout << fmt::format("  {:<15} {:<32} group {:<4} stream {:<5} {:>10.1f}\n", to_string(c.collective.kind),
                             bytes_text(c.collective), group_text(c.collective), c.stream, c.duration_us);
  if (!path.empty()) {
    std::cout << "critical path  (as recorded: the rank each collective waited for, its work before it, the "
                 "first-to-last start spread)\n";
    std::cout << fmt::format("  {:>3} {:<15} {:>12} {:>9} {:>12} {:>10} {:>14}\n", "#", "collective", "bytes",
                             "last rank", "its work ms", "spread ms", "collective ms");
    for (const CriticalCollective& c : path)
      std::cout << fmt::format("  {:>3} {:<15} {:>12.0f} {:>9} {:>12.3f} {:>10.3f} {:>14.3f}\n", c.index + 1,
                               to_string(c.kind), c.bytes, c.last_rank, 1e3 * c.gap_before_s, 1e3 * c.spread_s,
                               1e3 * c.duration_s);
  }
  int unknown = 0;
  for (const RankStep& r : ranks) unknown += r.unknown_sizes();
  if (unknown > 0)
    std::cout << fmt::format("assumed        {} collective{} without a recorded size (a TensorList's dims are not "
                             "in Kineto traces before PyTorch 2.3): give the ranks' PyTorch ETs too\n",
                             unknown, unknown == 1 ? "" : "s");
}

json collective_json(const TraceCollective& c) {
  return {{"kind", to_string(c.kind)},
          {"bytes", c.size_source == SizeSource::unknown ? json(nullptr) : json(c.bytes)},
          {"size_source", to_string(c.size_source)},
          {"group_size", c.group_size > 0 ? json(c.group_size) : json(nullptr)},
          {"process_group", c.process_group}};
}

json to_json(const std::vector<RankStep>& ranks) {
  json out = json::array();
  for (const RankStep& r : ranks) {
    json collectives = json::array();
    for (const StepCollective& c : r.collectives) {
      json one = collective_json(c.collective);
      one["stream"] = c.stream;
      one["kernel_us"] = c.duration_us;
      collectives.push_back(one);
    }
    out.push_back({{"file", r.file},
                   {"rank", r.rank >= 0 ? json(r.rank) : json(nullptr)},
                   {"gpu", r.gpu_name},
                   {"step_s", r.step_s},
                   {"gpu_step_s", r.gpu_step_s()},
                   {"gpu_lag_s", r.gpu_lag_s()},
                   {"gpu_span_s", r.gpu_span_s},
                   {"compute_s", r.compute_s},
                   {"kernel_classes_s",
                    {{"gemm", r.classes[OperatorKind::gemm]},
                     {"attention", r.classes[OperatorKind::attention_gemm]},
                     {"memory_bound", r.classes[OperatorKind::elementwise]},
                     {"optimizer", r.classes[OperatorKind::optimizer]},
                     {"rest_of_gpu_step", r.classes.launch_s}}},
                   {"collective_s", r.collective_s},
                   {"exposed_collective_s", r.exposed_collective_s},
                   {"kernels", r.kernels},
                   {"collectives", collectives}});
  }
  return out;
}

// "3:1.5": rank 3's compute 1.5 times slower; nullopt when not given.
// --layout tp=T[,dp=D]: 0 where not given.
struct LayoutFlag {
  int tp = 0, dp = 0;
};
LayoutFlag layout_flag(const std::string& text) {
  LayoutFlag out;
  if (text.empty()) return out;
  const std::string expected = "tp=T or tp=T,dp=D (whole numbers from 1)";
  for (const std::string& part : comma_separated(text)) {
    const size_t eq = part.find('=');
    const std::string key = part.substr(0, eq);
    if (eq == std::string::npos || (key != "tp" && key != "dp")) flag_error("--layout", expected, text);
    int& value = key == "tp" ? out.tp : out.dp;
    if (value != 0) flag_error("--layout", expected + ", each once", text);
    value = int(integer_flag("--layout", part.substr(eq + 1), 1, kMaxGpus, expected));
  }
  if (out.tp == 0) flag_error("--layout", expected, text);
  return out;
}

std::optional<StragglerEvent> straggler_flag(const std::string& text, int ranks) {
  if (text.empty()) return std::nullopt;
  const size_t colon = text.find(':');
  if (colon == std::string::npos)
    flag_error("--straggler", "RANK:SLOWDOWN, e.g. 3:1.5", "'" + text + "'");
  StragglerEvent e;
  e.gpu = int(integer_flag("--straggler", text.substr(0, colon), 0, ranks - 1,
                           fmt::format("a rank from 0 to {} before the ':'", ranks - 1)));
  e.slowdown = number_flag("--straggler", text.substr(colon + 1), 1, 100, "a slowdown from 1 to 100 after the ':'");
  return e;
}

void print_replay(const TraceReplay& r, bool scaled, bool times_recorded) {
  std::cout << fmt::format("\nreplay         {} rank{} on {} node{} of {} ({})\n", r.simulated_ranks,
                           r.simulated_ranks == 1 ? "" : "s", r.nodes, r.nodes == 1 ? "" : "s",
                           r.topology_file.filename().string(), r.topology_reason);
  if (r.simulated_ranks == 1)
    std::cout << "assumed        one rank, as the trace records no world size: its collectives move nothing (give "
                 "--ranks N)\n";
  if (scaled || !times_recorded) {
    std::cout << fmt::format("step           {:.3f} ms{} ({} {:.3f} ms on {} rank{}), {:.3f} ms in collectives per "
                             "rank on average\n",
                             1e3 * r.replayed_step_s, scaled ? " scaled out" : "",
                             times_recorded ? "measured" : "GPU work end to end", 1e3 * r.measured_step_s,
                             r.ranks.size(), r.ranks.size() == 1 ? "" : "s", 1e3 * r.mean_replayed_communication_s);
    std::cout << (times_recorded ? "measured       the time between collectives of each traced rank, as recorded\n"
                                 : "measured       the GPU nodes' durations between collectives, summed\n")
              << "modelled       the collectives on this fabric, and the waiting for late ranks\n";
    for (const std::string& a : r.assumed) std::cout << "assumed        " << a << "\n";
    return;
  }
  std::cout << fmt::format("{:>4}  {:>12} {:>12} {:>8} {:>16}\n", "rank", "measured ms", "replayed ms", "error",
                           "replayed NCCL ms");
  for (const RankReplay& k : r.ranks)
    std::cout << fmt::format("{:>4}  {:>12.3f} {:>12.3f} {:>+7.1f}% {:>16.3f}\n", k.rank, 1e3 * k.measured_step_s,
                             1e3 * k.replayed_step_s, 100 * (k.replayed_step_s / k.measured_step_s - 1),
                             1e3 * k.replayed_communication_s);
  std::cout << fmt::format("step           measured {:.3f} ms, replayed {:.3f} ms ({:+.1f}%; + replayed slower)\n",
                           1e3 * r.measured_step_s, 1e3 * r.replayed_step_s, 100 * r.error());
  for (const std::string& a : r.assumed) std::cout << "assumed        " << a << "\n";
}

json replay_json(const TraceReplay& r) {
  json ranks = json::array();
  for (const RankReplay& k : r.ranks)
    ranks.push_back({{"rank", k.rank},
                     {"measured_step_s", k.measured_step_s},
                     {"replayed_step_s", k.replayed_step_s},
                     {"replayed_communication_s", k.replayed_communication_s}});
  return {{"topology", r.topology_file.string()}, {"topology_reason", r.topology_reason}, {"nodes", r.nodes},
          {"simulated_ranks", r.simulated_ranks}, {"mean_replayed_communication_s", r.mean_replayed_communication_s},
          {"ranks", ranks}, {"assumed", r.assumed}};
}

// Execution traces alone: their collectives, nothing to replay (an ET holds no times).
int report_execution_traces(const std::vector<PyTorchEt>& ets, const ImportOptions& o) {
  json out = {{"measured_step_s", nullptr}, {"execution_traces", json::array()}};
  std::cout << fmt::format("import         {} PyTorch execution trace{}: host-side, without GPU times, so nothing "
                           "to replay (give the ranks' Kineto traces with them)\n",
                           ets.size(), ets.size() == 1 ? "" : "s");
  for (const PyTorchEt& et : ets) {
    std::cout << fmt::format("rank {:<3} {} (schema {}, world size {})\n", et.rank < 0 ? "?" : std::to_string(et.rank),
                             et.file.filename().string(), et.schema,
                             et.world_size > 0 ? std::to_string(et.world_size) : "unrecorded");
    json steps = json::array();
    for (const EtStep& step : et.steps) {
      if (!o.step.empty() && step.name != step_name(o.step)) continue;
      std::cout << fmt::format("  {} ({} collectives)\n", step.name.empty() ? "the whole trace" : step.name,
                               step.collectives.size());
      json collectives = json::array();
      for (const TraceCollective& c : step.collectives) {
        std::cout << fmt::format("    {:<15} {:<28} group {:<4} process group {}\n", to_string(c.kind),
                                 bytes_text(c), group_text(c), c.process_group.empty() ? "?" : c.process_group);
        collectives.push_back(collective_json(c));
      }
      steps.push_back({{"name", step.name}, {"collectives", collectives}});
    }
    out["execution_traces"].push_back({{"file", et.file.string()},
                                       {"rank", et.rank >= 0 ? json(et.rank) : json(nullptr)},
                                       {"schema", et.schema},
                                       {"world_size", et.world_size > 0 ? json(et.world_size) : json(nullptr)},
                                       {"steps", steps}});
  }
  if (!o.json_file.empty()) write_announced_output("--json", o.json_file, out.dump(2) + "\n");
  return 0;
}

// Execution traces alone replay nothing: a flag that asks for a replay is an error, not ignored.
void refuse_replay_flags(const ImportOptions& o) {
  const std::string ranks = o.ranks ? "--ranks" : "", nodes = o.nodes ? "--nodes" : "";
  const std::pair<const char*, const std::string*> flags[] = {
      {"--topology", &o.topology}, {"--ranks", &ranks},       {"--nodes", &nodes},    {"--layout", &o.layout},
      {"--straggler", &o.straggler}, {"--gpu", &o.gpu},       {"--events", &o.events},
      {"--calibration", &o.calibration}};
  for (const auto& [flag, value] : flags)
    if (!value->empty())
      flag_error(flag, "a Kineto or Chakra trace to replay with it (PyTorch execution traces hold no times)",
                 std::string(flag) + " with execution traces only");
}

json print_pairings(const std::vector<RankPairing>& pairings) {
  json out = json::array();
  for (const auto& [rank, file, p] : pairings) {
    if (p.unpaired.empty())
      std::cout << fmt::format("PyTorch ET     rank {}: {} collective sizes taken from {}, {} agree with the "
                               "profiler trace's, {} differ (the profiler trace's kept)\n",
                               rank, p.filled, file.filename().string(), p.agreed, p.differed);
    else
      std::cout << fmt::format("PyTorch ET     rank {}: {} not used: {}\n", rank, file.filename().string(),
                               p.unpaired);
    out.push_back({{"rank", rank}, {"file", file.string()}, {"filled", p.filled}, {"agreed", p.agreed},
                   {"differed", p.differed}, {"unpaired", p.unpaired}});
  }
  return out;
}

// The node the target GPU comes in, or the --topology given; an InputError when there is neither.
fs::path gpu_topology(const GpuChange& change, const ImportOptions& o) {
  const fs::path usual = topology_for_gpu_name(change.target->display_name, o.topologies_dir);
  if (!usual.empty()) return usual;
  if (!o.topology.empty()) return o.topology;
  throw InputError({"<command line>", 0, "--topology",
                    "a topology for " + change.target->id + " (dtsim knows no usual node for it)", "none"});
}

json replay_on_gpu(const std::vector<RankStep>& ranks, const ReplaySetup& setup, const TraceReplay& base,
                   const GpuChange& change) {
  const TraceReplay moved = replay_steps(ranks, setup);
  const fs::path& topology = setup.topology_file;
  std::cout << fmt::format("what-if        on {} ({}): step {:.3f} ms ({:+.1f}% against the replay)\n",
                           change.target->display_name, topology.filename().string(), 1e3 * moved.replayed_step_s,
                           100 * (moved.replayed_step_s / base.replayed_step_s - 1));
  const std::array<double, kKernelClassCount> time_s = kernel_time_by_class_s(ranks);
  double total_s = 0;
  for (double t : time_s) total_s += t;
  std::string factors, shares;
  json scale = json::object(), kernel_time = json::object();
  for (int c = 0; c < kKernelClassCount; ++c) {
    const auto k = KernelClass(c);
    factors += fmt::format("{}x{:.3g} {}", c == 0 ? "" : ", ", change.scale[k], to_string(k));
    shares += fmt::format("{}{:.0f}% {}", c == 0 ? "" : ", ", total_s > 0 ? 100 * time_s[size_t(c)] / total_s : 0,
                          to_string(k));
    scale[key_of(k)] = change.scale[k];
    kernel_time[key_of(k)] = time_s[size_t(c)];
  }
  std::cout << fmt::format("               kernel time on it against {}: {} ({})\n", change.recorded->display_name,
                           factors, change.efficiency_source);
  std::cout << fmt::format("               the traced ranks' kernels, {:.3f} ms: {}; idle and host time as recorded\n",
                           1e3 * total_s, shares);
  return {{"gpu", change.target->id}, {"recorded_gpu", change.recorded->id}, {"topology", topology.string()},
          {"efficiency_source", change.efficiency_source}, {"time_scale", scale}, {"kernel_time_s", kernel_time},
          {"replayed_step_s", moved.replayed_step_s}};
}

}  // namespace

void add_import_options(CLI::App& command, ImportOptions& o, const std::string& topologies_dir) {
  o.topologies_dir = topologies_dir;
  command
      .add_option("paths", o.paths,
                  "PyTorch profiler (Kineto) traces, one per rank, gzipped or not, and the ranks' PyTorch execution "
                  "traces if any; or folders of them")
      ->required();
  command.add_option("--step", o.step, "the profiler step: N or ProfilerStep#N (default: the latest all traces have)");
  command.add_option("--json", o.json_file, "also write the steps as JSON to this file");
  command.add_option("--topology", o.topology, "topology to replay on (default: the traced GPU's usual node)");
  command.add_flag("!--no-replay", o.replay, "only read the traces, do not replay the step");
  command.add_option("--nodes", o.nodes, "replay scaled out to this many nodes of the replay's topology (or --ranks)");
  command.add_option("--ranks", o.ranks,
                     "replay scaled out to this many data-parallel ranks (the same work and bytes per rank)");
  command.add_option("--layout", o.layout,
                     "tp=T[,dp=D]: the traced job's tensor-parallel size, for collectives whose process group the "
                     "trace does not record (tp=8: the traced ranks are one TP group, they keep 8 ranks when "
                     "scaled out); dp=D: replay D data-parallel replicas (tp x dp ranks)");
  command.add_option("--straggler", o.straggler,
                     "RANK:SLOWDOWN, e.g. 3:1.5: also replay with that rank's compute slower");
  command.add_option("--gpu", o.gpu,
                     "a GPU (dtsim's device id, e.g. h100-sxm): also replay with the kernels as on it, on its "
                     "usual node");
  command.add_option("--events", o.events,
                     "a YAML file with an events: list, as a scenario's (slow links, failures, stragglers): also "
                     "replay with them");
  command.add_option("--calibration", o.calibration,
                     "with --gpu: a calibration measured on that GPU (default: datasheet peaks and default "
                     "efficiencies)");
}

int run_import_command(const ImportOptions& o) {
  check_output_path("--json", o.json_file);
  // The flags first: a mistake in one costs no parse of a large trace. Bounds that depend on the
  // traces (--ranks at least the traced ranks, the straggler's rank) are checked again after.
  if (o.ranks) integer_flag("--ranks", *o.ranks, 1, kMaxGpus);
  if (o.nodes) integer_flag("--nodes", *o.nodes, 1, kMaxGpus);
  if (o.ranks && o.nodes) flag_error("--nodes", "--ranks or --nodes, not both", "both");
  const LayoutFlag layout = layout_flag(o.layout);
  if (layout.dp > 0 && (o.ranks || o.nodes))
    flag_error("--layout", "dp= or --ranks or --nodes, one of them", "dp= with " + std::string(o.ranks ? "--ranks" : "--nodes"));
  straggler_flag(o.straggler, int(kMaxGpus));
  if (!o.calibration.empty() && o.gpu.empty()) flag_error("--calibration", "--gpu with it", "--calibration alone");
  if (!o.replay && (!o.straggler.empty() || !o.events.empty() || !o.gpu.empty()))
    flag_error("--no-replay", "no what-if with it (--straggler, --events and --gpu replay the step)",
               "--no-replay with a what-if");
  if (!o.topology.empty() && !is_existing_file(o.topology)) flag_error("--topology", "an existing file", o.topology);
  const std::vector<Event> events = o.events.empty() ? std::vector<Event>{} : load_events_file(o.events);
  const TraceFiles files = read_trace_files(expand_trace_paths(o.paths));
  if (files.timed.empty()) {
    refuse_replay_flags(o);
    return report_execution_traces(files.execution_traces, o);
  }
  const ImportedStep imported = import_step(files, step_name(o.step));
  const std::vector<RankStep>& ranks = imported.ranks;
  const std::string& step = imported.step;
  const int world_size = imported.world_size;
  const int traced = imported.traced_world();
  int scaled = o.ranks ? int(integer_flag("--ranks", *o.ranks, traced, kMaxGpus)) : traced;
  if (layout.dp > 0) {
    if (long(layout.tp) * layout.dp < traced || long(layout.tp) * layout.dp > kMaxGpus)
      flag_error("--layout", fmt::format("tp x dp from {} (the traced ranks) to {} ranks", traced, kMaxGpus), o.layout);
    scaled = layout.tp * layout.dp;
  }
  if (o.nodes) {  // whole nodes of the topology the replay runs on (its file's, not the traced part of one)
    const std::filesystem::path file =
        replay_platform(ranks, {.world_size = traced,
                                .topology_file = o.topology,
                                .topologies_dir = o.topologies_dir,
                                .traced_world = traced})
            .topology_file;
    const int per_node = load_topology(file).node.gpus, fewest = (traced + per_node - 1) / per_node;
    scaled = per_node * int(integer_flag("--nodes", *o.nodes, fewest, kMaxGpus / per_node,
                                         fmt::format("{} to {} nodes of {} GPUs ({})", fewest, kMaxGpus / per_node,
                                                     per_node, file.filename().string())));
  }
  const std::optional<StragglerEvent> straggler = straggler_flag(o.straggler, scaled);
  // The replays asked for, each checked (topology, whole nodes, event targets) before any output.
  const ReplaySetup setup{.world_size = scaled,
                          .topology_file = o.topology,
                          .topologies_dir = o.topologies_dir,
                          .layout = {.tp = layout.tp},
                          .traced_world = traced};
  ReplaySetup slowed_setup = setup, events_setup = setup, moved_setup = setup;
  if (straggler) slowed_setup.events = {*straggler};
  if (!events.empty()) {
    events_setup.events = events;
    events_setup.events_source = o.events;
  }
  std::optional<GpuChange> change;
  if (!o.gpu.empty() && o.replay) {
    change = gpu_change(ranks.front().gpu_name, ranks.front().gpu_memory_bytes, o.gpu, o.calibration);
    moved_setup.topology_file = gpu_topology(*change, o);
    moved_setup.scale = change->scale;
  }
  if (o.replay) {
    replay_platform(ranks, setup);
    if (!events_setup.events.empty()) replay_platform(ranks, events_setup);
    if (change) replay_platform(ranks, moved_setup);  // the straggler's rank was checked by straggler_flag
  }
  const std::vector<CriticalCollective> path = critical_path(ranks);
  print(ranks, world_size, path);
  const json pairing = print_pairings(imported.pairings);
  json out = {{"step", step},
              {"world_size", world_size},
              {"measured_step_s", ranks.front().times_recorded ? json(slowest_step_s(ranks)) : json(nullptr)},
              {"ranks", to_json(ranks)}};
  json path_json = json::array();
  for (const CriticalCollective& c : path)
    path_json.push_back({{"kind", to_string(c.kind)}, {"bytes", c.bytes}, {"last_rank", c.last_rank},
                    {"work_before_s", c.gap_before_s}, {"spread_s", c.spread_s}, {"duration_s", c.duration_s}});
  out["critical_path"] = path_json;
  if (!files.execution_traces.empty()) out["execution_trace_pairing"] = pairing;
  if (o.replay) {
    const TraceReplay replay = replay_steps(ranks, setup);
    print_replay(replay, scaled > traced, ranks.front().times_recorded);
    out["replayed_step_s"] = replay.replayed_step_s;
    out["replay"] = replay_json(replay);
    // Scaled out faster than measured: never without the reason. The replay at the traced size
    // tells the replay's own error from what scaling out adds.
    if (scaled > traced && ranks.front().times_recorded && replay.replayed_step_s < replay.measured_step_s) {
      ReplaySetup traced_setup = setup;
      traced_setup.world_size = traced;
      const TraceReplay at_traced = replay_steps(ranks, traced_setup);
      std::cout << fmt::format(
          "why faster     replayed at the traced size ({} ranks) the step is {:.3f} ms, {:+.1f}% against the measured "
          "one: the replay's own error; scaling out to {} ranks adds {:+.3f} ms\n",
          at_traced.simulated_ranks, 1e3 * at_traced.replayed_step_s, 100 * at_traced.error(), scaled,
          1e3 * (replay.replayed_step_s - at_traced.replayed_step_s));
      out["replay"]["traced_size_replayed_step_s"] = at_traced.replayed_step_s;
    }
    if (straggler) {
      const TraceReplay slowed = replay_steps(ranks, slowed_setup);
      std::cout << fmt::format("what-if        rank {} {:g}x slower: step {:.3f} ms ({:+.1f}% against the replay)\n",
                               straggler->gpu, straggler->slowdown, 1e3 * slowed.replayed_step_s,
                               100 * (slowed.replayed_step_s / replay.replayed_step_s - 1));
      out["what_if"] = {{"straggler_rank", straggler->gpu},
                        {"slowdown", straggler->slowdown},
                        {"replayed_step_s", slowed.replayed_step_s}};
    }
    if (!events.empty()) {
      const TraceReplay r = replay_steps(ranks, events_setup);
      std::cout << fmt::format("what-if        the {} event{} of {}: step {:.3f} ms ({:+.1f}% against the replay)\n",
                               events.size(), events.size() == 1 ? "" : "s", o.events, 1e3 * r.replayed_step_s,
                               100 * (r.replayed_step_s / replay.replayed_step_s - 1));
      out["events_what_if"] = {{"events_file", o.events}, {"replayed_step_s", r.replayed_step_s}};
    }
    if (change) out["gpu_what_if"] = replay_on_gpu(ranks, moved_setup, replay, *change);
  }
  if (!o.json_file.empty()) write_announced_output("--json", o.json_file, out.dump(2) + "\n");
  return 0;
}

}  // namespace dtsim
