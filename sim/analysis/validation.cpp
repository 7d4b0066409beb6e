#include "validation.hpp"

#include <fmt/format.h>

#include <cmath>

#include "analytic_model.hpp"
#include "collective_sweep.hpp"
#include "device_spec.hpp"
#include "memory_model.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "size_limits.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

std::filesystem::path default_topology_for(const std::string& gpu, const std::filesystem::path& topologies_dir) {
  if (gpu.rfind("a100", 0) == 0) return topologies_dir / "dgx-a100-hdr-fattree.yaml";
  return topologies_dir / "dgx-h100-ndr-fattree.yaml";
}

double sc21_flops_per_iteration(const TransformerConfig& m, int global_batch) {
  const double B = global_batch, s = m.seq_len, l = m.layers, h = m.hidden, V = m.vocab;
  return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

namespace {

struct PublishedRun {
  Scenario scenario;
  std::string metric;
  double measured = 0;
  std::string not_modelled;
};

Precision precision_from(const std::string& p) {
  if (p == "fp16") return Precision::fp16;
  if (p == "fp8") return Precision::fp8;
  if (p == "fp32") return Precision::fp32;
  return Precision::bf16;
}

Recompute recompute_from(const std::string& r) {
  if (r == "full") return Recompute::full;
  if (r == "selective") return Recompute::selective;
  return Recompute::none;
}

// Where a source does not publish the micro-batch, its authors tuned it (SC21 Sec. 5 reports
// the best configuration found): take the size, among 1, 2, 4, 8, that fits in memory and that
// the analytic model predicts fastest.
int fastest_fitting_micro_batch(const Scenario& published) {
  ResolvedScenario r = resolve_scenario(published);
  Scenario& s = r.scenario;  // only the micro-batch changes: the resolution holds
  int best = kDefaultMicroBatchWhenUnpublished;
  double best_s = 0;
  for (int mb : {1, 2, 4, 8}) {
    s.training.micro_batch = mb;
    if (s.training.global_batch % (s.parallelism.dp * mb) != 0 || !peak_memory_per_gpu(s).fits()) continue;
    const double t = estimate_iteration(r).iteration_s;
    if (best_s == 0 || t < best_s) best = mb, best_s = t;
  }
  return best;
}

PublishedRun read_run(const YamlFields& f, const YAML::Node& run, const std::string& path,
                      const std::filesystem::path& topologies_dir) {
  PublishedRun out;
  Scenario& s = out.scenario;
  f.require_known_keys(run, path, {"id", "source", "gpu", "gpus", "model", "training", "parallelism", "measured"});
  f.string(run, path, "source");  // every measurement names where it was published
  s.name = f.string(run, path, "id");
  s.source_file = f.file();
  s.cluster.gpu = f.string(run, path, "gpu");
  const int gpus = f.positive_int(run, path, "gpus");

  const std::string mp = YamlFields::join(path, "model");
  const YAML::Node model = f.child(run, path, "model");
  f.require_known_keys(model, mp, {"layers", "hidden", "heads", "kv_heads", "ffn_hidden", "seq_len", "vocab"});
  TransformerConfig& m = s.model;
  m.name = s.name;
  m.layers = f.positive_int(model, mp, "layers");
  m.hidden = f.positive_int(model, mp, "hidden");
  m.heads = f.positive_int(model, mp, "heads");
  m.kv_heads = f.positive_int_or(model, mp, "kv_heads", m.heads);
  m.ffn_hidden = f.positive_int_or(model, mp, "ffn_hidden", 4 * m.hidden);
  m.seq_len = f.positive_int(model, mp, "seq_len");
  m.vocab = f.positive_int(model, mp, "vocab");

  const std::string tp_ = YamlFields::join(path, "training");
  const YAML::Node training = f.child(run, path, "training");
  f.require_known_keys(training, tp_, {"global_batch", "micro_batch", "precision", "recompute"});
  s.training.global_batch = f.positive_int(training, tp_, "global_batch");
  s.training.micro_batch = f.positive_int_or(training, tp_, "micro_batch", kDefaultMicroBatchWhenUnpublished);
  s.training.precision = precision_from(f.choice(training, tp_, "precision", {"bf16", "fp16", "fp8", "fp32"}, "bf16"));
  s.training.recompute = recompute_from(f.choice(training, tp_, "recompute", {"none", "selective", "full"}, "none"));

  const std::string pp_ = YamlFields::join(path, "parallelism");
  const YAML::Node par = f.child(run, path, "parallelism");
  f.require_known_keys(par, pp_, {"tp", "pp", "dp", "virtual_stages", "sequence_parallel"});
  s.parallelism.tp = f.positive_int_or(par, pp_, "tp", 1);
  s.parallelism.pp = f.positive_int_or(par, pp_, "pp", 1);
  s.parallelism.dp = f.positive_int_or(par, pp_, "dp", 1);
  std::vector<std::string> missing;
  s.parallelism.virtual_stages = f.positive_int_or(par, pp_, "virtual_stages", 1);
  if (s.parallelism.virtual_stages > 1) s.parallelism.schedule = PipelineScheduleKind::interleaved_1f1b;
  s.parallelism.sequence_parallel = f.boolean_or(par, pp_, "sequence_parallel", false);
  for (const auto& x : missing) out.not_modelled += (out.not_modelled.empty() ? "" : "; ") + x;

  s.cluster.topology_file = default_topology_for(s.cluster.gpu, topologies_dir);
  s.cluster.topology = load_topology(s.cluster.topology_file);
  if (gpus % s.cluster.topology.node.gpus != 0)
    f.fail(run["gpus"], YamlFields::join(path, "gpus"),
           fmt::format("a multiple of {} GPUs per node", s.cluster.topology.node.gpus), std::to_string(gpus));
  s.cluster.nodes = gpus / s.cluster.topology.node.gpus;

  const std::string mep = YamlFields::join(path, "measured");
  const YAML::Node measured = f.child(run, path, "measured");
  f.require_known_keys(measured, mep, {"iteration_time_s", "tflops_per_gpu", "flop_convention"});
  if (f.has(measured, "iteration_time_s")) {
    out.metric = "iteration_time_s";
    out.measured = f.positive_number(measured, mep, "iteration_time_s");
  } else {
    out.metric = "tflops_per_gpu";
    out.measured = f.positive_number(measured, mep, "tflops_per_gpu");
    f.choice(measured, mep, "flop_convention", {"sc21"});
  }
  check_scenario_consistency(s);
  if (!f.has(training, "micro_batch")) {
    s.training.micro_batch = fastest_fitting_micro_batch(s);
    out.not_modelled = fmt::format("micro-batch unpublished: {} (fastest that fits)", s.training.micro_batch);
  }
  return out;
}

// nccl-tests runs: the same collective predicted on the topology of the run's GPU type, with
// the algorithm the run forced, at each published size.
std::vector<CollectiveValidationRow> validate_collective(const YamlFields& f, const YAML::Node& c,
                                                         const std::string& path,
                                                         const std::filesystem::path& topologies_dir) {
  f.require_known_keys(c, path, {"id", "source", "gpu", "gpus", "nodes", "collective", "algorithm", "points"});
  const std::string id = f.string(c, path, "id");
  const TopologySpec topo = load_topology(default_topology_for(f.choice(c, path, "gpu", device_ids()), topologies_dir));
  CollectiveSweepRequest request;
  request.gpus = f.int_in(c, path, "gpus", 2, int(kMaxGpus));
  f.choice(c, path, "collective", {"all_reduce"});
  const std::string algorithm = f.choice(c, path, "algorithm", {"ring", "tree", "nvls", "nvls_tree"});
  request.algorithm = algorithm == "ring"   ? CollectiveAlgorithm::ring
                      : algorithm == "tree" ? CollectiveAlgorithm::tree
                      : algorithm == "nvls" ? CollectiveAlgorithm::nvls
                                            : CollectiveAlgorithm::nvls_tree;
  f.string(c, path, "source");
  const YAML::Node points = f.child(c, path, "points");
  f.require_list(points, path + ".points", "a list of {bytes, busbw_GBps}");
  std::vector<double> measured;
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string at = fmt::format("{}.points[{}]", path, i);
    f.require_known_keys(points[i], at, {"bytes", "busbw_GBps"});
    request.sizes_bytes.push_back(f.positive_number(points[i], at, "bytes"));
    measured.push_back(f.positive_number(points[i], at, "busbw_GBps"));
  }
  std::vector<CollectiveValidationRow> rows;
  const std::vector<CollectivePoint> predicted = simulate_collective_sweep(topo, request);
  for (size_t i = 0; i < predicted.size(); ++i) {
    const double busbw_GBps = predicted[i].busbw_Bps / 1e9;
    rows.push_back({id, algorithm, predicted[i].bytes, measured[i], busbw_GBps,
                    std::abs(busbw_GBps - measured[i]) / measured[i]});
  }
  return rows;
}

}  // namespace

ValidationSummary validate_published_runs(const std::filesystem::path& runs_file,
                                          const std::filesystem::path& topologies_dir) {
  const YamlFields f(runs_file, NullValues::unpublished);  // null: the source does not say
  const YAML::Node root = f.load();
  f.require_known_keys(root, "", {"runs", "collectives"});
  const YAML::Node runs = f.child(root, "", "runs");
  f.require_list(runs, "runs", "a list of runs");

  ValidationSummary summary;
  double error_sum = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const PublishedRun run = read_run(f, runs[i], fmt::format("runs[{}]", i), topologies_dir);
    const SimulationResult sim = simulate(run.scenario);
    const double iteration_s = sim.engine.iteration_s;
    const double predicted =
        run.metric == "iteration_time_s"
            ? iteration_s
            : sc21_flops_per_iteration(run.scenario.model, run.scenario.training.global_batch) / iteration_s /
                  run.scenario.gpu_count() / 1e12;
    ValidationRow row{run.scenario.name, run.metric, run.measured, predicted,
                      std::abs(predicted - run.measured) / run.measured, run.not_modelled};
    error_sum += row.relative_error;
    summary.rows.push_back(row);
  }
  if (f.has(root, "collectives")) {
    const YAML::Node collectives = root["collectives"];
    f.require_list(collectives, "collectives", "a list of nccl-tests runs");
    for (size_t i = 0; i < collectives.size(); ++i)
      for (const CollectiveValidationRow& row :
           validate_collective(f, collectives[i], fmt::format("collectives[{}]", i), topologies_dir))
        summary.collective_rows.push_back(row);
  }
  if (!summary.rows.empty()) summary.mean_absolute_percentage_error = 100 * error_sum / summary.rows.size();
  return summary;
}

std::string format_validation_table(const ValidationSummary& s) {
  std::string out = fmt::format("{:<34} {:<17} {:>10} {:>10} {:>8}  {}\n", "run", "metric", "measured", "predicted",
                                "error", "not modelled yet");
  for (const ValidationRow& r : s.rows)
    out += fmt::format("{:<34} {:<17} {:>10.3f} {:>10.3f} {:>7.1f}%  {}\n", r.id, r.metric, r.measured, r.predicted,
                       100 * r.relative_error, r.not_modelled);
  out += fmt::format("mean absolute percentage error: {:.1f}% over {} runs\n", s.mean_absolute_percentage_error,
                     s.rows.size());
  for (const std::string& skipped : s.skipped) out += "skipped " + skipped + "\n";
  if (s.collective_rows.empty()) return out;
  out += fmt::format("\n{:<20} {:<10} {:>12} {:>15} {:>16} {:>8}\n", "nccl-tests run", "algorithm", "bytes",
                     "measured busbw", "predicted busbw", "error");
  for (const CollectiveValidationRow& r : s.collective_rows)
    out += fmt::format("{:<20} {:<10} {:>12.0f} {:>10.1f} GB/s {:>11.1f} GB/s {:>7.1f}%\n", r.id, r.algorithm, r.bytes,
                       r.measured_busbw_GBps, r.predicted_busbw_GBps, 100 * r.relative_error);
  return out;
}

}  // namespace dtsim
