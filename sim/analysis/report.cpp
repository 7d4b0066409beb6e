#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analytic_model.hpp"
#include "device_spec.hpp"
#include "layer_model_costs.hpp"
#include "transformer_ops.hpp"
#include "workload_builder.hpp"

namespace dtsim {

double ServerSummary::mean_staleness() const {
  double sum = 0, count = 0;
  for (const auto& [versions, n] : staleness_counts) sum += double(versions) * double(n), count += double(n);
  return count > 0 ? sum / count : 0;
}

namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[size_t(std::lround(q * double(v.size() - 1)))];
}

ServerSummary server_summary(const Scenario& s, const EngineResult& e) {
  const ParameterServerStats& ps = e.servers;
  ServerSummary sum;
  sum.mode = to_string(s.data_parallel.mode);
  sum.servers = int(ps.server_received_bytes.size());
  sum.iterations = e.iterations;
  const std::vector<double> steps = ps.steady_steps_s();
  sum.step_p50_s = quantile(steps, 0.5);
  sum.step_p95_s = quantile(steps, 0.95);
  sum.step_max_s = quantile(steps, 1.0);
  sum.staleness_counts = ps.staleness_counts;
  sum.dropped_gradients = ps.dropped_gradients;
  for (int server = 0; server < sum.servers; ++server)
    if (ps.server_received_bytes[size_t(server)] > ps.server_received_bytes[size_t(sum.busiest_server)])
      sum.busiest_server = server;
  const size_t busiest = size_t(sum.busiest_server);
  sum.busiest_received_bytes = sum.servers > 0 ? ps.server_received_bytes[busiest] / e.iterations : 0;
  sum.busiest_update_s = sum.servers > 0 ? ps.server_update_s[busiest] / e.iterations : 0;
  return sum;
}

std::string format_server_summary(const ServerSummary& s) {
  std::string out =
      fmt::format("parameter servers   {} servers, {} updates, {} iterations simulated (steps after the first)\n",
                  s.servers, s.mode, s.iterations);
  out += fmt::format("  worker steps      p50 {:.4f} s, p95 {:.4f} s, max {:.4f} s\n", s.step_p50_s, s.step_p95_s,
                     s.step_max_s);
  long gradients = 0;
  for (const auto& [versions, n] : s.staleness_counts) gradients += n;
  // A few values are listed with their shares; a wide spread (async over many workers) as quantiles.
  std::string spread;
  if (s.staleness_counts.size() <= 6) {
    for (const auto& [versions, n] : s.staleness_counts)
      spread += fmt::format("{}{}: {:.0f}%", spread.empty() ? "" : ", ", versions,
                            100.0 * double(n) / double(gradients));
  } else {
    std::vector<double> each;
    for (const auto& [versions, n] : s.staleness_counts) each.insert(each.end(), size_t(n), double(versions));
    spread = fmt::format("p50 {:g}, p95 {:g}, max {:g}", quantile(each, 0.5), quantile(each, 0.95), each.back());
  }
  out += fmt::format("  staleness         {} (versions behind, over {} applied gradients), mean {:.2f}\n", spread,
                     gradients, s.mean_staleness());
  if (s.dropped_gradients > 0)
    out += fmt::format("  dropped           {} late gradients (backup workers)\n", s.dropped_gradients);
  out += fmt::format("  busiest server    server {}: {:.3f} GB received and {:.4f} s of updates per iteration\n",
                     s.busiest_server, s.busiest_received_bytes / 1e9, s.busiest_update_s);
  return out;
}

// The input pipeline: what each node loads per step, at what rate and why, and what the GPUs wait.
std::string format_input_pipeline(const InputPipelineStep& p, const std::string& unit) {
  const std::string storage = std::isfinite(p.rates.storage_samples_per_s)
                                  ? fmt::format("{:.0f}/s", p.rates.storage_samples_per_s)
                                  : std::string("none read, all cached");
  std::string out = fmt::format("input pipeline      {:.0f} {}s per node per step in {:.4f} s: {:.0f} {}s/s, {}-bound "
                                "(storage {}, decode {:.0f}/s)\n",
                                p.node_samples, unit, p.load_s, p.rates.samples_per_s(), unit, p.rates.limit(),
                                storage, p.rates.decode_samples_per_s);
  out += fmt::format("  GPUs wait         {:.4f} s per step for data (step {:.4f} s with data always ready); "
                     "first step {:.4f} s\n",
                     p.input_wait_s(), p.gpu_step_s, p.first_step_s);
  return out;
}

nlohmann::json input_pipeline_to_json(const std::optional<InputPipelineStep>& p) {
  if (!p) return nullptr;
  auto finite_or_null = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  return {{"node_samples_per_step", p->node_samples},
          {"load_s", p->load_s},
          {"node_samples_per_s", p->rates.samples_per_s()},
          {"storage_samples_per_s", finite_or_null(p->rates.storage_samples_per_s)},
          {"decode_samples_per_s", p->rates.decode_samples_per_s},
          {"limit", p->rates.limit()},
          {"gpu_step_s", p->gpu_step_s},
          {"input_wait_s", p->input_wait_s()},
          {"first_step_s", p->first_step_s}};
}

}  // namespace

Report make_report(const ResolvedScenario& resolved, const SimulationResult& r) {
  const Scenario& s = resolved.scenario;
  Report rep;
  rep.scenario = s.name;
  rep.gpu = s.cluster.gpu;
  rep.gpus = s.gpu_count();
  rep.gpus_per_node = s.cluster.topology.node.gpus;
  rep.gpu_board_power_w = find_device(s.cluster.gpu)->board_power_w;
  rep.node_power_w = s.cluster.topology.node.power_w;
  rep.micro_batches = s.micro_batches_per_replica();
  rep.iteration_s = r.engine.iteration_s;
  const bool servers = !r.engine.servers.worker_ranks.empty();
  if (servers)
    rep.servers = server_summary(s, r.engine);
  else
    rep.analytic_iteration_s = estimate_iteration(resolved).iteration_s;
  rep.samples_per_s = double(s.training.global_batch) / rep.iteration_s;
  if (s.layer_model) {
    rep.layer_model = true;
    rep.sample_unit = s.layer_model->graph.sample_unit;
    rep.model_flops = rep.hardware_flops = layer_model_flops_per_iteration(s);
    if (s.reference) {
      rep.reference_compute_scale = reference_compute_scale(s, resolved.compute);
      rep.reference_gpus = s.reference->gpus;
    }
  } else {
    rep.tokens_per_s = double(s.training.global_batch) * s.model.seq_len / rep.iteration_s;
    rep.model_flops = model_flops_per_iteration(s);
    rep.hardware_flops = hardware_flops_per_iteration(s);
  }
  rep.model_tflops_per_gpu = rep.model_flops / rep.iteration_s / rep.gpus / 1e12;
  rep.hardware_tflops_per_gpu = rep.hardware_flops / rep.iteration_s / rep.gpus / 1e12;
  rep.mfu = rep.model_tflops_per_gpu * 1e12 / find_device(s.cluster.gpu)->peak_flops(s.training.precision);
  Breakdown& b = rep.mean_breakdown;
  rep.input = r.input;
  const double input_wait_s = r.input ? r.input->input_wait_s() : 0;
  const double gpu_step_s = rep.iteration_s - input_wait_s;  // with data always ready
  for (const RankTimes& t : r.engine.ranks) {
    b.compute_s += t.compute_s;
    b.communication_s += t.communication_s;
    // Time after a rank's last task is pipeline drain: bubble too. With parameter servers the
    // times are means over iterations whose steps vary: what is left is "other".
    b.bubble_s += t.bubble_s + (servers ? 0 : gpu_step_s - t.finish_s);
    b.other_s += (servers ? gpu_step_s : t.finish_s) - (t.compute_s + t.communication_s + t.bubble_s);
    for (const auto& [kind, c] : t.communication_by_kind) {
      b.communication_by_kind[kind].total_s += c.total_s;
      b.communication_by_kind[kind].exposed_s += c.exposed_s;
    }
  }
  const double n = double(r.engine.ranks.size());
  b.compute_s /= n, b.communication_s /= n, b.bubble_s /= n, b.other_s /= n;
  b.input_wait_s = input_wait_s;
  for (auto& [kind, c] : b.communication_by_kind) c.total_s /= n, c.exposed_s /= n;
  rep.compute_classes = iteration_kernel_classes(s, resolved.compute);
  rep.compression = compression_summary(resolved);
  rep.memory = peak_memory_per_gpu(s);
  rep.efficiency_source = r.efficiency_source;
  rep.simulated_activities = r.engine.activities;
  rep.folding = folding_description(int(r.engine.ranks.size()), r.engine.simulated_ranks());
  rep.simulation_wall_s = r.simulation_wall_s;
  rep.simulation_peak_memory_bytes = r.peak_memory_bytes;
  return rep;
}

std::string folding_description(int gpus, int simulated_ranks) {
  if (simulated_ranks >= gpus) return kNoFolding;
  return fmt::format("data-parallel replicas: {} of {} GPUs ran their own program; each other GPU repeated one of "
                     "them and took its own part in the collectives across replicas (--no-fold: every GPU)",
                     simulated_ranks, gpus);
}

namespace {

// The classes' names for people and for JSON, in the order reports list them.
struct ClassName {
  OperatorKind kind;
  const char* text;
  const char* key;
};
constexpr ClassName kClassNames[] = {{OperatorKind::gemm, "GEMM", "gemm"},
                                     {OperatorKind::attention_gemm, "attention", "attention"},
                                     {OperatorKind::elementwise, "memory-bound", "memory_bound"},
                                     {OperatorKind::optimizer, "optimizer", "optimizer"}};

std::string format_compute_classes(const KernelClassTimes& c) {
  if (c.total_s() <= 0) return "";
  std::string out = "compute by kernel class (busiest stage, one iteration, no communication)\n";
  const auto line = [&](const char* name, double s) {
    out += fmt::format("  {:<22}  {:9.4f} s  {:5.1f} %\n", name, s, 100 * s / c.total_s());
  };
  for (const ClassName& n : kClassNames) line(n.text, c[n.kind]);
  line("host/launch", c.launch_s);
  return out;
}

nlohmann::json compute_classes_to_json(const KernelClassTimes& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const ClassName& n : kClassNames) j[n.key] = c[n.kind];
  j["host_launch"] = c.launch_s;
  j["total"] = c.total_s();
  return j;
}

}  // namespace

std::string format_report_text(const Report& r) {
  auto pct = [&](double part) { return 100.0 * part / r.iteration_s; };
  const Breakdown& b = r.mean_breakdown;
  std::string out;
  out += fmt::format("scenario            {}  ({} x {}, {} micro-batches per replica)\n", r.scenario, r.gpus, r.gpu,
                     r.micro_batches);
  out += fmt::format("iteration time      {:.4f} s\n", r.iteration_s);
  if (r.analytic_iteration_s > 0)
    out += fmt::format("analytic estimate   {:.4f} s  ({:+.2f}% vs simulated; closed form, no contention)\n",
                       r.analytic_iteration_s, 100 * (r.analytic_iteration_s / r.iteration_s - 1));
  if (r.tokens_per_s > 0)
    out += fmt::format("throughput          {:.0f} tokens/s\n", r.tokens_per_s);
  else
    out += fmt::format("throughput          {:.1f} {}s/s\n", r.samples_per_s, r.sample_unit);
  if (r.reference_compute_scale)
    out += fmt::format("compute             scaled x{:.3f} so that {} takes what the reference measured\n",
                       *r.reference_compute_scale,
                       r.reference_gpus > 1 ? fmt::format("the step of {} GPUs of one node", r.reference_gpus)
                                            : std::string("one GPU's step"));
  out += fmt::format("model TFLOP/s/GPU   {:.1f}  (the model's FLOPs: attention in full, no recompute; MFU's convention)\n",
                     r.model_tflops_per_gpu);
  out += fmt::format("hardware TFLOP/s/GPU {:.1f}  (what the GPUs compute: with recompute, without the masked half of "
                     "causal attention a fused kernel skips)\n",
                     r.hardware_tflops_per_gpu);
  out += fmt::format("MFU                 {:.1f} %\n", 100 * r.mfu);
  out += "breakdown (mean over GPUs)\n";
  out += fmt::format("  compute                 {:9.4f} s  {:5.1f} %\n", b.compute_s, pct(b.compute_s));
  out += fmt::format("  exposed communication   {:9.4f} s  {:5.1f} %\n", b.communication_s, pct(b.communication_s));
  for (const auto& [kind, c] : b.communication_by_kind)
    out += fmt::format("    {:<4} {:9.4f} s exposed, {:.4f} s hidden under compute\n", kind, c.exposed_s, c.hidden_s());
  out += fmt::format("  pipeline bubble         {:9.4f} s  {:5.1f} %\n", b.bubble_s, pct(b.bubble_s));
  if (r.input)
    out += fmt::format("  waiting for data        {:9.4f} s  {:5.1f} %\n", b.input_wait_s, pct(b.input_wait_s));
  if (b.other_s > 1e-9 * r.iteration_s)
    out += fmt::format("  other                   {:9.4f} s  {:5.1f} %\n", b.other_s, pct(b.other_s));
  out += format_compute_classes(r.compute_classes);
  if (r.compression) out += format_compression_summary(*r.compression);
  if (r.input) out += format_input_pipeline(*r.input, r.sample_unit);
  if (r.servers) out += format_server_summary(*r.servers);
  out += "memory per GPU (peak stage)\n" + format_memory(r.memory);
  out += fmt::format("efficiencies from   {}\n", r.efficiency_source);
  out += fmt::format("rank folding        {}\n", r.folding);
  out += fmt::format("simulated           {} activities in {:.2f} s wall, {:.2f} GB peak memory\n",
                     r.simulated_activities, r.simulation_wall_s, r.simulation_peak_memory_bytes / 1e9);
  return out;
}

namespace {

nlohmann::json memory_to_json(const MemoryBreakdown& m) {
  return {
      {"pipeline_stage", m.stage},
      {"weights_bytes", m.weights_bytes},
      {"gradients_bytes", m.gradients_bytes},
      {"optimizer_bytes", m.optimizer_bytes},
      {"activations_bytes", m.activations_bytes},
      {"micro_batches_in_flight", m.micro_batches_in_flight},
      {"chunk_passes_in_flight", m.chunk_passes_in_flight},
      {"allowance_bytes", m.fragmentation_bytes},
      {"total_bytes", m.total_bytes},
      {"capacity_bytes", m.capacity_bytes},
      {"fits", m.fits()},
  };
}

nlohmann::json communication_to_json(const std::map<std::string, CommunicationTimes>& by_kind) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [kind, c] : by_kind)
    j[kind] = {{"total", c.total_s}, {"exposed", c.exposed_s}, {"hidden", c.hidden_s()}};
  return j;
}

nlohmann::json servers_to_json(const std::optional<ServerSummary>& s) {
  if (!s) return nullptr;
  nlohmann::json staleness = nlohmann::json::object();
  for (const auto& [versions, n] : s->staleness_counts) staleness[std::to_string(versions)] = n;
  return {{"servers", s->servers},
          {"mode", s->mode},
          {"iterations", s->iterations},
          {"worker_step_s", {{"p50", s->step_p50_s}, {"p95", s->step_p95_s}, {"max", s->step_max_s}}},
          {"staleness_counts", staleness},
          {"mean_staleness", s->mean_staleness()},
          {"dropped_gradients", s->dropped_gradients},
          {"busiest_server", {{"index", s->busiest_server},
                              {"received_bytes_per_iteration", s->busiest_received_bytes},
                              {"update_s_per_iteration", s->busiest_update_s}}}};
}

}  // namespace

nlohmann::json report_to_json(const Report& r) {
  const Breakdown& b = r.mean_breakdown;
  return {
      {"scenario", r.scenario},
      {"gpu", r.gpu},
      {"gpus", r.gpus},
      {"micro_batches_per_replica", r.micro_batches},
      {"iteration_time_s", r.iteration_s},
      {"analytic_iteration_time_s", r.analytic_iteration_s},
      {"tokens_per_s", r.tokens_per_s},
      {"samples_per_s", r.samples_per_s},
      {"sample_unit", r.sample_unit},
      {"reference_compute_scale", r.reference_compute_scale ? nlohmann::json(*r.reference_compute_scale) : nullptr},
      {"reference_gpus", r.reference_compute_scale ? nlohmann::json(r.reference_gpus) : nullptr},
      {"model_flops_per_iteration", r.model_flops},
      {"hardware_flops_per_iteration", r.hardware_flops},
      {"model_tflops_per_gpu", r.model_tflops_per_gpu},
      {"hardware_tflops_per_gpu", r.hardware_tflops_per_gpu},
      {"mfu", r.mfu},
      {"breakdown_mean_s",
       {{"compute", b.compute_s}, {"exposed_communication", b.communication_s}, {"pipeline_bubble", b.bubble_s},
        {"input_wait", b.input_wait_s}, {"other", b.other_s}}},
      {"communication_by_kind_mean_s", communication_to_json(b.communication_by_kind)},
      {"compute_by_class_s", compute_classes_to_json(r.compute_classes)},
      {"memory_per_gpu", memory_to_json(r.memory)},
      {"efficiency_source", r.efficiency_source},
      {"rank_folding", r.folding},
      {"parameter_servers", servers_to_json(r.servers)},
      {"gradient_compression", compression_to_json(r.compression)},
      {"input_pipeline", input_pipeline_to_json(r.input)},
      {"simulated_activities", r.simulated_activities},
      // No wall-clock time: the same scenario gives the same file, byte for byte.
  };
}

}  // namespace dtsim
