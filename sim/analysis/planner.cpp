#include "planner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <chrono>
#include <thread>
#include <map>
#include <tuple>

#include "analytic_model.hpp"
#include "comma_list.hpp"
#include "device_spec.hpp"
#include "input_error.hpp"
#include "memory_model.hpp"
#include "micro_batch_extrapolation.hpp"
#include "scenario_consistency.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "transformer_ops.hpp"

namespace dtsim {

namespace {


double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

// Calls visit(parallelism, micro_batch, recompute) for every layout of the search space on `gpus`
// GPUs (see planner.hpp for the space).
template <class Visit>
void for_each_layout(const TransformerConfig& m, int gpus, int node_gpus, const PlanSearchSpace& space, Visit&& visit) {
  const int max_tp = space.max_tp > 0 ? space.max_tp : node_gpus;
  for (int tp = 1; tp <= max_tp && tp <= gpus; tp *= 2)
    for (int cp : space.cp) {
      if (tp * cp > node_gpus || gpus % (tp * cp) != 0) continue;
      for (int pp : divisors(m.layers)) {
        if ((gpus / (tp * cp)) % pp != 0) continue;
        ParallelismConfig p;
        p.tp = tp, p.cp = cp, p.pp = pp, p.dp = gpus / (tp * cp * pp);
        p.sequence_parallel = tp > 1;
        p.overlap_grad_reduce = true;
        std::vector<std::pair<PipelineScheduleKind, int>> schedules = {{PipelineScheduleKind::one_f_one_b, 1}};
        if (pp >= 2 && space.zero_bubble) schedules.push_back({PipelineScheduleKind::zero_bubble, 1});
        if (pp >= 2 && space.interleaved)
          for (int v = 2; pp * v <= m.layers; ++v)
            if (m.layers % (pp * v) == 0) schedules.push_back({PipelineScheduleKind::interleaved_1f1b, v});
        std::vector<int> zero_stages = {0};
        if (p.dp > 1 && space.zero_1) zero_stages.push_back(1);
        if (p.dp > 1 && pp == 1 && space.zero_3) zero_stages.push_back(3);
        std::vector<int> eps = {1};
        if (m.moe.enabled()) {
          eps.clear();
          for (int ep : divisors(p.dp))
            if (m.moe.experts % ep == 0) eps.push_back(ep);
        }
        for (const auto& [schedule, v] : schedules)
          for (int ep : eps)
            for (int zero : zero_stages)
              for (int mb : space.micro_batches)
                for (Recompute rc : space.recompute) {
                  p.schedule = schedule, p.virtual_stages = v, p.ep = ep, p.zero_stage = zero;
                  visit(p, mb, rc);
                }
      }
    }
}

void check_request(const PlanRequest& r, const TopologySpec& topo) {
  const DeviceSpec* device = find_device(r.gpu);
  if (!device) {
    flag_error("--gpu", fmt::format("one of [{}]", fmt::join(device_ids(), ", ")), "'" + r.gpu + "'");
  }
  if (!(device->peak_flops(r.precision) > 0))
    flag_error("--precision", fmt::format("a precision {} supports", device->id), to_string(r.precision));
  if (r.global_batch <= 0) flag_error("--global-batch", "a positive integer", std::to_string(r.global_batch));
  if (r.finalists < 0) flag_error("--finalists", "an integer >= 0", std::to_string(r.finalists));
  if (r.gpu_counts.empty()) flag_error("--gpus", "at least one GPU count", "none");
  const long capacity = topo.fabric.capacity_nodes();
  for (int n : r.gpu_counts) {
    if (n <= 0 || n % topo.node.gpus != 0)
      flag_error("--gpus", fmt::format("a multiple of {} GPUs per node of {}", topo.node.gpus, topo.name),
                 std::to_string(n));
    if (capacity > 0 && n / topo.node.gpus > capacity)
      flag_error("--gpus", fmt::format("at most {} GPUs ({} nodes, all that {} holds)", capacity * topo.node.gpus,
                                       capacity, topo.name),
                 std::to_string(n));
  }
}

// Ranking key of an estimated row: analytic time, then fewer GPUs, then less memory.
// Within a GPU count: by analytic time, then memory. Counts in increasing order.
bool analytic_before(const PlanRow& a, const PlanRow& b) {
  return std::tie(a.gpus, a.analytic_s, a.memory_bytes) < std::tie(b.gpus, b.analytic_s, b.memory_bytes);
}

// Finalists: simulated ones by simulated time (then as analytic_before), failed simulations last.
bool simulated_before(const PlanRow& a, const PlanRow& b) {
  if (a.simulated_s.has_value() != b.simulated_s.has_value()) return a.simulated_s.has_value();
  if (a.simulated_s && *a.simulated_s != *b.simulated_s) return *a.simulated_s < *b.simulated_s;
  return analytic_before(a, b);
}

void fill_throughput(const Scenario& s, PlanRow& row) {
  const double t = row.simulated_s.value_or(row.analytic_s);
  if (!(t > 0)) return;
  row.tokens_per_s = double(s.training.global_batch) * s.model.seq_len / t;
  row.mfu = model_flops_per_iteration(s) / t / row.gpus / find_device(s.cluster.gpu)->peak_flops(s.training.precision);
}

}  // namespace

std::vector<int> parse_gpu_counts(const std::string& flag, const std::string& text, int gpus_per_node) {
  const std::string expected = "a GPU count (1024), a list (512,1024) or a range of powers of two (256-2048)";
  auto number = [&](const std::string& part) {
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(part) <= 0)
      flag_error(flag, expected, "'" + text + "'");
    return std::stoi(part);
  };
  std::vector<int> counts;
  if (const size_t dash = text.find('-'); dash != std::string::npos) {
    const int low = number(text.substr(0, dash)), high = number(text.substr(dash + 1));
    if (low > high) flag_error(flag, "a range low-high with low <= high", "'" + text + "'");
    for (long n = 1; n <= high; n *= 2)
      if (n >= low && n % gpus_per_node == 0) counts.push_back(int(n));
    if (counts.empty())
      flag_error(flag, fmt::format("a range holding a power of two that is a multiple of {} GPUs per node", gpus_per_node),
                 "'" + text + "'");
    return counts;
  }
  for (const std::string& item : comma_separated(text)) counts.push_back(number(item));
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

TransformerConfig resolve_model(const std::string& flag, const std::string& name_or_path) {
  if (auto preset = find_model_preset(name_or_path)) return *preset;
  if (std::filesystem::is_regular_file(name_or_path)) return load_hf_config(name_or_path);
  flag_error(flag,
             fmt::format("one of [{}] or the path of a Hugging Face config.json", fmt::join(model_preset_names(), ", ")),
             "'" + name_or_path + "'");
}

int PlanResult::rank_in_count(size_t i) const {
  int rank = 1;
  while (rank <= int(i) && rows[i - size_t(rank)].gpus == rows[i].gpus) ++rank;
  return rank;
}

Scenario PlanResult::scenario_of(const PlanRow& row) const {
  Scenario s = base;
  s.parallelism = row.parallelism;
  s.training = row.training;
  s.cluster.nodes = row.gpus / s.cluster.topology.node.gpus;
  s.name = fmt::format("{}-{}x{} {}", s.model.name, row.gpus, s.cluster.gpu, layout_label(row));
  return s;
}

std::vector<FieldOverride> layout_overrides(const Scenario& s) {
  const ParallelismConfig& p = s.parallelism;
  const auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
  return {{"parallelism.tp", std::to_string(p.tp)},
          {"parallelism.cp", std::to_string(p.cp)},
          {"parallelism.pp", std::to_string(p.pp)},
          {"parallelism.dp", std::to_string(p.dp)},
          {"parallelism.ep", std::to_string(p.ep)},
          {"parallelism.schedule", to_string(p.schedule)},
          {"parallelism.virtual_stages", std::to_string(p.virtual_stages)},
          {"parallelism.first_stage_layers", std::to_string(p.first_stage_layers)},
          {"parallelism.last_stage_layers", std::to_string(p.last_stage_layers)},
          {"parallelism.sequence_parallel", flag(p.sequence_parallel)},
          {"parallelism.tp_comm_overlap", flag(p.tp_comm_overlap)},
          {"parallelism.zero_stage", std::to_string(p.zero_stage)},
          {"parallelism.overlap_grad_reduce", flag(p.overlap_grad_reduce)},
          {"parallelism.overlap_param_gather", flag(p.overlap_param_gather)},
          {"parallelism.grad_reduce_in_bf16", flag(p.grad_reduce_in_bf16)},
          {"parallelism.fp8_weight_all_gather", flag(p.fp8_weight_all_gather)},
          {"parallelism.fp8_tp_all_gather", flag(p.fp8_tp_all_gather)},
          {"parallelism.fsdp_prefetch", flag(p.fsdp_prefetch)},
          {"parallelism.fsdp_version", std::to_string(p.fsdp_version)},
          {"parallelism.bucket_mb", fmt::format("{}", p.bucket_mb)},
          {"training.micro_batch", std::to_string(s.training.micro_batch)},
          {"training.recompute", to_string(s.training.recompute)},
          {"training.recompute_layers", std::to_string(s.training.recompute_layers)},
          {"cluster.nodes", std::to_string(s.cluster.nodes)}};
}

std::string layout_label(const ParallelismConfig& p, const TrainingConfig& t) {
  return fmt::format("tp{} cp{} pp{} v{} dp{} ep{} mb{} {} {} zero{}", p.tp, p.cp, p.pp, p.virtual_stages, p.dp,
                     p.ep, t.micro_batch, to_string(p.schedule), to_string(t.recompute), p.zero_stage);
}

std::string layout_label(const PlanRow& row) { return layout_label(row.parallelism, row.training); }

namespace {

// Every layout of the search space at every GPU count: counted as invalid (by the field that
// ruled it out), out of memory, or estimated; the estimated ones in result.rows, fastest first.
void estimate_layouts(const PlanRequest& request, const ResolvedScenario& resolved, PlanResult& result) {
  const Scenario& s = resolved.scenario;
  std::map<std::string, long> invalid_fields;
  std::map<std::string, std::string> invalid_examples;
  Scenario candidate = s;  // mutated in place: no copy of the topology per layout
  for (int gpus : request.gpu_counts) {
    candidate.cluster.nodes = gpus / s.cluster.topology.node.gpus;
    check_cluster_buildable(s.cluster.topology, candidate.cluster.nodes);
    for_each_layout(s.model, gpus, s.cluster.topology.node.gpus, request.space,
                    [&](const ParallelismConfig& p, int micro_batch, Recompute recompute) {
                      ++result.enumerated;
                      candidate.parallelism = p;
                      candidate.training.micro_batch = micro_batch;
                      candidate.training.recompute = recompute;
                      try {
                        check_scenario_consistency(candidate);
                      } catch (const InputError& e) {
                        ++result.invalid;
                        if (++invalid_fields[e.info().field] == 1)
                          invalid_examples[e.info().field] =
                              fmt::format("{}: expected {}, found {}", layout_label(p, candidate.training),
                                          e.info().expected, e.info().found);
                        return;
                      }
                      const MemoryBreakdown memory = peak_memory_per_gpu(candidate);
                      if (!memory.fits()) {
                        ++result.out_of_memory;
                        return;
                      }
                      PlanRow row;
                      row.parallelism = p;
                      row.training = candidate.training;
                      row.gpus = gpus;
                      row.memory_bytes = memory.total_bytes;
                      row.analytic_s = estimate_iteration(candidate, resolved.compute, resolved.node()).iteration_s;
                      result.rows.push_back(row);
                    });
  }
  result.estimated = long(result.rows.size());
  result.invalid_by_field.assign(invalid_fields.begin(), invalid_fields.end());
  std::stable_sort(result.invalid_by_field.begin(), result.invalid_by_field.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [field, n] : result.invalid_by_field) result.invalid_examples.push_back(invalid_examples[field]);
  std::stable_sort(result.rows.begin(), result.rows.end(), analytic_before);
}

// The best `request.finalists` rows of each GPU count simulated (or extrapolated), and re-ranked
// by simulated time within their count.
void simulate_finalists(const PlanRequest& request, const ResolvedScenario& resolved, PlanResult& result) {
  std::vector<size_t> chosen;                       // rows simulated, in row order
  std::vector<std::pair<size_t, size_t>> blocks;    // [first, last) finalists of each count
  for (size_t i = 0; i < result.rows.size();) {
    size_t end = i;
    while (end < result.rows.size() && result.rows[end].gpus == result.rows[i].gpus) ++end;
    const size_t last = std::min(end, i + size_t(request.finalists));
    for (size_t k = i; k < last; ++k) chosen.push_back(k);
    if (last > i) blocks.emplace_back(i, last);
    i = end;
  }
  std::vector<ResolvedScenario> finalist_scenarios;
  for (size_t i : chosen) finalist_scenarios.push_back(resolve_variant(resolved, result.scenario_of(result.rows[i])));
  // One simulation per core at a time: each runs in its own forked process.
  const int cores = std::max(1, int(std::thread::hardware_concurrency()));
  SimulationBatchRunner run;  // or on Slurm
  if (request.slurm) run = slurm_runner(*request.slurm, std::clog, result.slurm.emplace());
  const std::vector<SimulationOutcome> outcomes =
      request.extrapolate_micro_batches ? simulate_many_extrapolated(finalist_scenarios, cores, run)
      : run                             ? run(finalist_scenarios)
                                        : simulate_many(finalist_scenarios, cores);
  if (outcomes.size() != chosen.size()) return;  // submitted to Slurm, not waited for: dtsim collect
  result.simulation_method =
      request.extrapolate_micro_batches
          ? "SimGrid at pp and 2 pp micro-batches per replica, extrapolated linearly to the layout's count "
            "(in full where that is no dearer)"
          : "SimGrid, every micro-batch";
  for (size_t k = 0; k < chosen.size(); ++k) {
    PlanRow& row = result.rows[chosen[k]];
    if (outcomes[k].result) {
      row.simulated_s = outcomes[k].result->engine.iteration_s;
      ++result.simulated;
    } else {
      row.simulation_error = outcomes[k].error;
    }
  }
  for (const auto& [first, last] : blocks)
    std::stable_sort(result.rows.begin() + long(first), result.rows.begin() + long(last), simulated_before);
}

}  // namespace

PlanResult plan_layouts(const PlanRequest& request) {
  const auto search_start = std::chrono::steady_clock::now();
  PlanResult result;
  result.gpu_counts = request.gpu_counts;
  Scenario& s = result.base;
  s.model = request.model;
  s.training.global_batch = request.global_batch;
  s.training.precision = request.precision;
  s.cluster.gpu = request.gpu;
  s.cluster.topology_file = request.topology_file;
  s.cluster.topology = load_topology(request.topology_file);
  check_request(request, s.cluster.topology);
  check_gpu_matches_topology(s.cluster, [&](const std::string& expected, const std::string& found) {
    throw InputError({"<command line>", 0, "--gpu", expected + " (or a --topology for it)", found});
  });
  const DeviceSpec& device = *find_device(request.gpu);
  result.memory_capacity_bytes = device.hbm_bytes;
  const ResolvedScenario resolved = resolve_scenario(s);  // datasheet defaults: no calibration file

  estimate_layouts(request, resolved, result);
  result.search_wall_s = seconds_since(search_start);

  const auto simulation_start = std::chrono::steady_clock::now();
  simulate_finalists(request, resolved, result);
  result.simulation_wall_s = seconds_since(simulation_start);

  Scenario candidate = s;
  for (PlanRow& row : result.rows) {
    candidate.parallelism = row.parallelism;
    candidate.training = row.training;
    fill_throughput(candidate, row);
  }
  return result;
}

nlohmann::json plan_to_json(const PlanResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const PlanRow& row = r.rows[i];
    const ParallelismConfig& p = row.parallelism;
    nlohmann::json j = {
        {"rank", i + 1}, {"rank_in_gpu_count", r.rank_in_count(i)}, {"gpus", row.gpus}, {"tp", p.tp}, {"cp", p.cp}, {"pp", p.pp},
        {"virtual_stages", p.virtual_stages}, {"dp", p.dp}, {"ep", p.ep},
        {"micro_batch", row.training.micro_batch}, {"schedule", to_string(p.schedule)},
        {"recompute", to_string(row.training.recompute)}, {"zero_stage", p.zero_stage},
        {"sequence_parallel", p.sequence_parallel}, {"overlap_grad_reduce", p.overlap_grad_reduce},
        {"memory_per_gpu_bytes", row.memory_bytes}, {"analytic_iteration_s", row.analytic_s},
        {"simulated_iteration_s", row.simulated_s ? nlohmann::json(*row.simulated_s) : nlohmann::json(nullptr)},
        {"tokens_per_s", row.tokens_per_s}, {"mfu", row.mfu}};
    if (!row.simulation_error.empty()) j["simulation_error"] = row.simulation_error;
    rows.push_back(j);
  }
  nlohmann::json invalid = nlohmann::json::object();
  for (const auto& [field, n] : r.invalid_by_field) invalid[field] = n;
  const Scenario& s = r.base;
  return {{"model", s.model.name},
          {"gpu", s.cluster.gpu},
          {"topology", s.cluster.topology_file.string()},
          {"global_batch", s.training.global_batch},
          {"seq_len", s.model.seq_len},
          {"precision", to_string(s.training.precision)},
          {"memory_capacity_bytes", r.memory_capacity_bytes},
          {"search",
           {{"enumerated", r.enumerated}, {"invalid", r.invalid}, {"invalid_by_field", invalid},
            {"invalid_examples", r.invalid_examples},
            {"out_of_memory", r.out_of_memory}, {"estimated", r.estimated}, {"simulated", r.simulated},
            {"simulation_method", r.simulation_method}}},  // wall times in the text only, as for run
          {"rows", rows}};
}

}  // namespace dtsim
