#include "import_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "critical_path.hpp"
#include "flag_values.hpp"
#include "input_error.hpp"
#include "size_limits.hpp"
#include "step_summary.hpp"
#include "trace_replay.hpp"

namespace dtsim {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool is_trace_name(const fs::path& p) {
  const std::string name = p.filename().string();
  const auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".json") || ends_with(".json.gz");
}

// The files named, a folder standing for its *.json and *.json.gz files in name order.
std::vector<fs::path> trace_files(const std::vector<std::string>& paths) {
  if (paths.empty()) flag_error("paths", "one trace file per rank, or a folder of them", "none");
  std::vector<fs::path> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      files.emplace_back(p);
      continue;
    }
    std::vector<fs::path> in_folder;
    for (const fs::directory_entry& e : fs::directory_iterator(p, ec))
      if (e.is_regular_file() && is_trace_name(e.path())) in_folder.push_back(e.path());
    if (in_folder.empty()) throw InputError({p, 0, "", "a folder holding *.json or *.json.gz traces", "none"});
    std::sort(in_folder.begin(), in_folder.end());
    files.insert(files.end(), in_folder.begin(), in_folder.end());
  }
  return files;
}

std::string step_name(const std::string& flag) {
  if (flag.empty()) return "";
  return flag.find_first_not_of("0123456789") == std::string::npos ? "ProfilerStep#" + flag : flag;
}

std::string bytes_text(const StepCollective& c) {
  if (c.collective.size_source == SizeSource::unknown) return "size unknown";
  return fmt::format("{:.0f} B ({})", c.collective.bytes, to_string(c.collective.size_source));
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
  std::cout << fmt::format("measured step  {:.3f} ms (the slowest rank's {} annotation)\n",
                           1e3 * slowest_step_s(ranks), first.step);
  std::cout << fmt::format("collectives of rank {} (kind, input bytes, where the size came from, kernel µs):\n",
                           first.rank);
  for (const StepCollective& c : first.collectives)
    std::cout << fmt::format("  {:<15} {:<32} group {:<4} stream {:<5} {:>10.1f}\n", to_string(c.collective.kind),
                             bytes_text(c),
                             c.collective.group_size > 0 ? std::to_string(c.collective.group_size) : "?", c.stream,
                             c.duration_us);
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
                             "in Kineto traces before PyTorch 2.3): the matched PyTorch ET has them\n",
                             unknown, unknown == 1 ? "" : "s");
}

json to_json(const std::vector<RankStep>& ranks) {
  json out = json::array();
  for (const RankStep& r : ranks) {
    json collectives = json::array();
    for (const StepCollective& c : r.collectives)
      collectives.push_back({{"kind", to_string(c.collective.kind)},
                             {"bytes", c.collective.size_source == SizeSource::unknown ? json(nullptr)
                                                                                       : json(c.collective.bytes)},
                             {"size_source", to_string(c.collective.size_source)},
                             {"group_size", c.collective.group_size > 0 ? json(c.collective.group_size) : json(nullptr)},
                             {"process_group", c.collective.process_group},
                             {"stream", c.stream},
                             {"kernel_us", c.duration_us}});
    out.push_back({{"file", r.file},
                   {"rank", r.rank >= 0 ? json(r.rank) : json(nullptr)},
                   {"gpu", r.gpu_name},
                   {"step_s", r.step_s},
                   {"gpu_span_s", r.gpu_span_s},
                   {"compute_s", r.compute_s},
                   {"collective_s", r.collective_s},
                   {"exposed_collective_s", r.exposed_collective_s},
                   {"kernels", r.kernels},
                   {"collectives", collectives}});
  }
  return out;
}

// "3:1.5": rank 3's compute 1.5 times slower; nullopt when not given.
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

void print_replay(const TraceReplay& r, bool scaled) {
  std::cout << fmt::format("\nreplay         {} ranks on {} node{} of {} ({})\n", r.simulated_ranks, r.nodes,
                           r.nodes == 1 ? "" : "s", r.topology_file.filename().string(), r.topology_reason);
  if (scaled) {
    std::cout << fmt::format("step           {:.3f} ms scaled out (measured {:.3f} ms on {} ranks), {:.3f} ms in "
                             "collectives per rank on average\n",
                             1e3 * r.replayed_step_s, 1e3 * r.measured_step_s, r.ranks.size(),
                             1e3 * r.mean_replayed_communication_s);
    std::cout << "measured       the time between collectives of each traced rank, as recorded\n"
                 "modelled       the collectives on this fabric, and the waiting for late ranks\n";
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

}  // namespace

void add_import_options(CLI::App& command, ImportOptions& o, const std::string& topologies_dir) {
  o.topologies_dir = topologies_dir;
  command.add_option("paths", o.paths, "PyTorch profiler (Kineto) traces, one per rank, gzipped or not; or a folder")
      ->required();
  command.add_option("--step", o.step, "the profiler step: N or ProfilerStep#N (default: the latest all traces have)");
  command.add_option("--json", o.json_file, "also write the steps as JSON to this file");
  command.add_option("--topology", o.topology, "topology to replay on (default: the traced GPU's usual node)");
  command.add_flag("!--no-replay", o.replay, "only read the traces, do not replay the step");
  command.add_option("--ranks", o.ranks,
                     "replay scaled out to this many data-parallel ranks (the same work and bytes per rank)");
  command.add_option("--straggler", o.straggler, "RANK:SLOWDOWN, e.g. 3:1.5: also replay with that rank's compute slower");
}

int run_import_command(const ImportOptions& o) {
  check_output_path("--json", o.json_file);
  std::vector<KinetoTrace> traces;
  for (const fs::path& file : trace_files(o.paths)) traces.push_back(read_kineto_trace(file));
  const std::string step = o.step.empty() ? common_step(traces) : step_name(o.step);
  std::vector<RankStep> ranks;
  int world_size = 0;
  for (const KinetoTrace& t : traces) {
    ranks.push_back(summarize_step(t, step));
    world_size = std::max(world_size, t.world_size);
  }
  std::stable_sort(ranks.begin(), ranks.end(), [](const RankStep& a, const RankStep& b) { return a.rank < b.rank; });
  const int traced = std::max(world_size, int(ranks.size()));
  const int scaled = o.ranks.empty() ? traced : int(integer_flag("--ranks", o.ranks, traced, kMaxGpus));
  const std::optional<StragglerEvent> straggler = straggler_flag(o.straggler, scaled);
  const std::vector<CriticalCollective> path = critical_path(ranks);
  print(ranks, world_size, path);
  json out = {{"step", step},
              {"world_size", world_size},
              {"measured_step_s", slowest_step_s(ranks)},
              {"ranks", to_json(ranks)}};
  json path_json = json::array();
  for (const CriticalCollective& c : path)
    path_json.push_back({{"kind", to_string(c.kind)}, {"bytes", c.bytes}, {"last_rank", c.last_rank},
                    {"work_before_s", c.gap_before_s}, {"spread_s", c.spread_s}, {"duration_s", c.duration_s}});
  out["critical_path"] = path_json;
  if (o.replay) {
    const TraceReplay replay = replay_steps(ranks, scaled, o.topology, o.topologies_dir);
    print_replay(replay, scaled > traced);
    out["replayed_step_s"] = replay.replayed_step_s;
    out["replay"] = replay_json(replay);
    if (straggler) {
      const TraceReplay slowed = replay_steps(ranks, scaled, o.topology, o.topologies_dir, {*straggler});
      std::cout << fmt::format("what-if        rank {} {:g}x slower: step {:.3f} ms ({:+.1f}% against the replay)\n",
                               straggler->gpu, straggler->slowdown, 1e3 * slowed.replayed_step_s,
                               100 * (slowed.replayed_step_s / replay.replayed_step_s - 1));
      out["what_if"] = {{"straggler_rank", straggler->gpu},
                        {"slowdown", straggler->slowdown},
                        {"replayed_step_s", slowed.replayed_step_s}};
    }
  }
  if (!o.json_file.empty()) write_announced_output("--json", o.json_file, out.dump(2) + "\n");
  return 0;
}

}  // namespace dtsim
