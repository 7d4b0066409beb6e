#include "validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "analytic_model.hpp"
#include "collective_sweep.hpp"
#include "data_parallel_run.hpp"
#include "resolved_scenario.hpp"
#include "workload_builder.hpp"
#include "device_spec.hpp"
#include "memory_model.hpp"
#include "input_file.hpp"
#include "scenario_consistency.hpp"
#include "scenario_loader.hpp"
#include "scenario_sections.hpp"
#include "simulation.hpp"
#include "size_limits.hpp"
#include "yaml_field_lines.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

std::filesystem::path default_topology_for(const std::string& gpu, const std::filesystem::path& topologies_dir,
                                           int gpus_per_node) {
  if (gpu.rfind("a100", 0) == 0) return topologies_dir / "dgx-a100-hdr-fattree.yaml";
  // 16 V100 in one node: a DGX-2 (DeepLearningExamples' tables say so; no other V100 server holds 16)
  if (gpu.rfind("v100", 0) == 0 && gpus_per_node == 16) return topologies_dir / "dgx2-v100-edr-nvswitch.yaml";
  if (gpu.rfind("v100", 0) == 0) return topologies_dir / "dgx1-v100-edr-fattree.yaml";
  if (gpu == "p100-sxm2-16gb") return topologies_dir / "dgx1-p100-edr-fattree.yaml";
  if (gpu == "p100-pcie-16gb" || gpu == "k80") return topologies_dir / "pcie-gpu-server-ethernet.yaml";
  if (gpu == "b200") return topologies_dir / "dgx-b200-ndr-fattree.yaml";  // NVLink 5
  return topologies_dir / "dgx-h100-ndr-fattree.yaml";  // H100 and H200: NVLink 4
}

double sc21_flops_per_iteration(const TransformerConfig& m, int global_batch) {
  const double B = global_batch, s = m.seq_len, l = m.layers, h = m.hidden, V = m.vocab;
  return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

namespace {

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

// The cluster of a run: the topology it names (a file in `topologies_dir`) or the default for
// its GPU type, with as many nodes as its GPU count fills.
ClusterConfig read_run_cluster(const YamlFields& f, const YAML::Node& run, const std::string& path,
                               const std::filesystem::path& topologies_dir) {
  ClusterConfig c;
  c.gpu = f.choice(run, path, "gpu", device_ids());
  const int gpus = f.int_in(run, path, "gpus", 1, int(kMaxGpus));
  c.topology_file = default_topology_for(c.gpu, topologies_dir);
  if (f.has(run, "topology")) {
    c.topology_file = topologies_dir / f.string(run, path, "topology");
    if (!is_existing_file(c.topology_file))
      f.fail(run["topology"], YamlFields::join(path, "topology"),
             fmt::format("a topology file in {}", topologies_dir.string()), c.topology_file.string());
  }
  c.topology = load_topology(c.topology_file);
  if (gpus % c.topology.node.gpus != 0)
    f.fail(run["gpus"], YamlFields::join(path, "gpus"),
           fmt::format("a multiple of {} GPUs per node", c.topology.node.gpus), std::to_string(gpus));
  c.nodes = gpus / c.topology.node.gpus;
  return c;
}

// A published run is a scenario (the same sections, read by the same code and checked by the
// same consistency rules) plus where it was published and what was measured.
PublishedRun read_run(const YamlFields& f, const YAML::Node& root, const YAML::Node& run, const std::string& path,
                      const std::filesystem::path& topologies_dir) {
  PublishedRun out;
  Scenario& s = out.scenario;
  f.require_known_keys(run, path,
                       {"id", "source", "notes", "gpu", "gpus", "topology", "model", "training", "parallelism",
                        "measured"});
  out.source = f.string(run, path, "source");  // every measurement names where it was published
  if (f.has(run, "notes")) f.string(run, path, "notes");
  s.name = f.string(run, path, "id");
  s.source_file = f.file();
  s.cluster = read_run_cluster(f, run, path, topologies_dir);
  s.model = read_model_section(f, f.child(run, path, "model"), path, s.name);
  const YAML::Node training = f.child(run, path, "training");
  s.training = read_training_section(f, training, path);
  s.parallelism = read_parallelism_section(f, run, path);

  const std::string mep = YamlFields::join(path, "measured");
  const YAML::Node measured = f.child(run, path, "measured");
  f.require_known_keys(measured, mep,
                       {"iteration_time_s", "tflops_per_gpu", "flop_convention", "derived_from", "kernel_classes_s",
                        "peak_allocated_gib"});
  if (f.has(measured, "derived_from")) f.string(measured, mep, "derived_from");
  read_measured_extras(f, measured, mep, out);
  if (f.has(measured, "iteration_time_s")) {
    out.metric = "iteration_time_s";
    out.measured = f.positive_number(measured, mep, "iteration_time_s");
  } else {
    out.metric = "tflops_per_gpu";
    out.measured = f.positive_number(measured, mep, "tflops_per_gpu");
    f.choice(measured, mep, "flop_convention", {"sc21"});
  }
  check_consistency(s, [&](const std::string& field, const std::string& expected, const std::string& found) {
    const std::string at = YamlFields::join(path, field);
    throw InputError({f.file().string(), line_of_field(root, at), at, expected, found});
  });
  if (!f.has(training, "micro_batch")) {
    s.training.micro_batch = fastest_fitting_micro_batch(s);
    out.not_modelled = fmt::format("micro-batch unpublished: {} (fastest that fits)", s.training.micro_batch);
  }
  return out;
}

}  // namespace

void read_measured_extras(const YamlFields& f, const YAML::Node& measured, const std::string& path, PublishedRun& run) {
  if (f.has(measured, "kernel_classes_s")) {
    const std::string at = YamlFields::join(path, "kernel_classes_s");
    const YAML::Node c = measured["kernel_classes_s"];
    f.require_map(c, at);
    f.require_known_keys(c, at, {"gemm", "attention", "memory_bound", "optimizer", "host_launch"});
    KernelClassTimes t;
    t[OperatorKind::gemm] = f.non_negative_number(c, at, "gemm");
    t[OperatorKind::attention_gemm] = f.non_negative_number(c, at, "attention");
    t[OperatorKind::elementwise] = f.non_negative_number(c, at, "memory_bound");
    t[OperatorKind::optimizer] = f.non_negative_number(c, at, "optimizer");
    t.launch_s = f.non_negative_number(c, at, "host_launch");
    run.measured_classes = t;
  }
  if (f.has(measured, "peak_allocated_gib"))
    run.measured_peak_bytes = f.positive_number(measured, path, "peak_allocated_gib") * 1024.0 * 1024 * 1024;
}

namespace {

std::string publication(const std::string& source) {
  return source.substr(0, std::min(source.find(" @ "), source.find(',')));
}

template <class Key>
std::vector<ValidationGroup> group_rows(const std::vector<ValidationRow>& rows, Key key) {
  std::vector<ValidationGroup> groups;
  for (const ValidationRow& r : rows) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const ValidationGroup& x) { return x.name == key(r); });
    if (g == groups.end()) g = groups.insert(groups.end(), ValidationGroup{key(r)});
    ++g->runs;
    g->mean_absolute_percentage_error += 100 * r.relative_error;
    g->mean_signed_percentage_error += 100 * r.signed_error;
    g->max_absolute_percentage_error = std::max(g->max_absolute_percentage_error, 100 * r.relative_error);
  }
  for (ValidationGroup& g : groups) {
    g.mean_absolute_percentage_error /= g.runs;
    g.mean_signed_percentage_error /= g.runs;
  }
  return groups;
}

// The model, cluster, batch and measured reference of a run: what two runs of one comparison
// share (another reference rate is another machine).
std::string setup_of(const Scenario& s) {
  const std::string reference =
      s.reference ? fmt::format(", reference {:g}/s on {}", s.reference->samples_per_s, s.reference->gpus) : "";
  return fmt::format("{} on {} x {} in {} nodes, batch {}, {}{}", s.model.name, s.gpu_count(), s.cluster.gpu, s.cluster.nodes,
                     s.training.global_batch, to_string(s.training.precision), reference);
}

// Step time of b relative to a's, from a metric that is a time or a rate.
double step_change(const std::string& metric, double a, double b) {
  return metric == "iteration_time_s" ? b / a - 1 : a / b - 1;
}

std::vector<ValidationComparison> comparisons_of(const std::vector<ValidationRow>& rows) {
  std::vector<ValidationComparison> out;
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = i + 1; j < rows.size(); ++j) {
      const ValidationRow &a = rows[i], &b = rows[j];
      if (a.source != b.source || a.metric != b.metric || a.setup != b.setup) continue;
      out.push_back({.first = a.id,
                     .second = b.id,
                     .setup = a.setup,
                     .measured_change = step_change(a.metric, a.measured, b.measured),
                     .predicted_change = step_change(a.metric, a.predicted, b.predicted)});
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

// The runs of a loaded published-runs file, each read and checked before any is simulated.
std::vector<PublishedRun> read_runs(const YamlFields& f, const YAML::Node& root,
                                    const std::filesystem::path& topologies_dir) {
  f.require_known_keys(root, "", {"runs", "collectives"});
  const YAML::Node runs = f.child(root, "", "runs");
  f.require_list(runs, "runs", "a list of runs");
  std::vector<PublishedRun> out;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string path = fmt::format("runs[{}]", i);
    if (!is_data_parallel_run(f, runs[i])) {
      out.push_back(read_run(f, root, runs[i], path, topologies_dir));
      continue;
    }
    const std::string skip = data_parallel_run_skip_reason(f, runs[i]);
    if (skip.empty()) {
      out.push_back(read_data_parallel_run(f, root, runs[i], path, topologies_dir));
      continue;
    }
    PublishedRun run;
    run.scenario.name = f.string(runs[i], path, "id");
    run.source = f.string(runs[i], path, "source");
    run.skipped = skip;
    out.push_back(run);
  }
  return out;
}

}  // namespace

std::vector<PublishedRun> read_published_runs(const std::filesystem::path& runs_file,
                                              const std::filesystem::path& topologies_dir) {
  const YamlFields f(runs_file, NullValues::unpublished);  // null: the source does not say
  return read_runs(f, f.load(), topologies_dir);
}

ValidationRow validate_run(const PublishedRun& run, bool fold_replicas) {
  SimulationOptions options;
  options.fold_replicas = fold_replicas;
  // Resolved once (the calibration file read once), for the simulation and the kernel classes.
  const ResolvedScenario resolved = resolve_scenario(run.scenario);
  return validation_row(run, resolved, simulate(resolved, options));
}

ValidationRow validation_row(const PublishedRun& run, const ResolvedScenario& resolved, const SimulationResult& sim) {
  const double iteration_s = sim.engine.iteration_s;
  const Scenario& s = run.scenario;
  const MemoryBreakdown memory = peak_memory_per_gpu(s);
  const double predicted =
      run.metric == "iteration_time_s" ? iteration_s
      : run.metric == "tflops_per_gpu"
          ? sc21_flops_per_iteration(s.model, s.training.global_batch) / iteration_s / s.gpu_count() / 1e12
          : s.training.global_batch / iteration_s;  // images or sequences per second
  // Predicted slower: a longer iteration, or fewer TFLOP/s, images or sequences per second.
  const double slower = run.metric == "iteration_time_s" ? predicted - run.measured : run.measured - predicted;
  return {.id = run.scenario.name,
          .source = publication(run.source),
          .gpu = run.scenario.cluster.gpu,
          .metric = run.metric,
          .measured = run.measured,
          .predicted = predicted,
          .relative_error = std::abs(predicted - run.measured) / run.measured,
          .signed_error = slower / run.measured,
          .not_modelled = run.not_modelled,
          .setup = setup_of(s),
          .framework = to_string(s.training.framework),
          .measured_classes = run.measured_classes,
          .predicted_classes = iteration_kernel_classes(s, resolved.compute),
          .measured_peak_bytes = run.measured_peak_bytes,
          .predicted_peak_bytes = memory.total_bytes - memory.fragmentation_bytes};
}

double ValidationRow::measured_step_over_predicted() const {
  return metric == "iteration_time_s" ? measured / predicted : predicted / measured;
}

ResolvedScenario resolved_published_run(const std::filesystem::path& runs_file,
                                        const std::filesystem::path& topologies_dir, size_t index) {
  const std::vector<PublishedRun> runs = read_published_runs(runs_file, topologies_dir);
  if (index >= runs.size() || !runs[index].skipped.empty())
    throw std::out_of_range(fmt::format("run {} of {} is not one to simulate", index, runs_file.string()));
  return resolve_scenario(runs[index].scenario);
}

ValidationSummary validate_published_runs(const std::filesystem::path& runs_file,
                                          const std::filesystem::path& topologies_dir, bool fold_replicas,
                                          const std::optional<SlurmOptions>& slurm) {
  const YamlFields f(runs_file, NullValues::unpublished);  // null: the source does not say
  const YAML::Node root = f.load();
  ValidationSummary summary;
  const std::vector<PublishedRun> runs = read_runs(f, root, topologies_dir);
  std::vector<size_t> simulated;  // indices into runs
  std::vector<ResolvedScenario> resolved;
  std::vector<SlurmSimulation> slurm_inputs;  // resolved[i] as a Slurm task rebuilds it
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].skipped.empty()) {
      summary.skipped.push_back(runs[i].scenario.name + ": " + runs[i].skipped);
      continue;
    }
    simulated.push_back(i);
    // Resolved once (the calibration file read once), for the simulation and the kernel classes.
    resolved.push_back(resolve_scenario(runs[i].scenario));
    SlurmSimulation input = slurm_simulation(runs_file);
    input.kind = kPublishedRunKind;
    input.index = int(i);
    input.topologies_dir = std::filesystem::absolute(topologies_dir);
    input.fold_replicas = fold_replicas;
    slurm_inputs.push_back(input);
  }
  SimulationOptions options;
  options.fold_replicas = fold_replicas;
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  const std::vector<SimulationOutcome> outcomes =
      simulate_here_or_on_slurm(resolved, slurm_inputs, cores, options, slurm, summary.slurm);
  if (outcomes.size() != resolved.size()) return summary;  // submitted to Slurm, not waited for: dtsim collect
  double error_sum = 0;
  for (size_t k = 0; k < simulated.size(); ++k) {
    const PublishedRun& run = runs[simulated[k]];
    if (!outcomes[k].result) {
      summary.failed.push_back(run.scenario.name + ": " + outcomes[k].error);
      continue;
    }
    const ValidationRow row = validation_row(run, resolved[k], *outcomes[k].result);
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
  summary.by_source = group_rows(summary.rows, [](const ValidationRow& r) { return r.source; });
  summary.by_gpu = group_rows(summary.rows, [](const ValidationRow& r) { return r.gpu; });
  summary.by_framework = group_rows(summary.rows, [](const ValidationRow& r) { return r.framework; });
  summary.comparisons = comparisons_of(summary.rows);
  return summary;
}

bool ValidationComparison::direction_right() const {
  const auto same = [](double change) { return std::abs(change) <= kSameSpeedFraction; };
  if (same(measured_change)) return same(predicted_change);
  return (measured_change > 0) == (predicted_change > 0);
}

namespace {
std::string format_groups(const char* title, const std::vector<ValidationGroup>& groups) {
  size_t width = 34;
  for (const ValidationGroup& g : groups) width = std::max(width, g.name.size());
  std::string out = fmt::format("{:<{}} {:>5} {:>7} {:>8} {:>7}\n", title, width, "runs", "MAPE", "signed", "max");
  for (const ValidationGroup& g : groups)
    out += fmt::format("{:<{}} {:>5} {:>6.1f}% {:>+7.1f}% {:>6.1f}%\n", g.name, width, g.runs,
                       g.mean_absolute_percentage_error, g.mean_signed_percentage_error,
                       g.max_absolute_percentage_error);
  return out;
}

// Rows that measured their step's kernel classes or peak memory: each beside its prediction.
std::string format_class_comparisons(const std::vector<ValidationRow>& rows) {
  std::string out;
  const auto line = [&](const char* name, double measured, double predicted) {
    out += fmt::format("  {:<28} {:>10.2f} {:>10.2f} {:>+7.1f}%\n", name, measured, predicted,
                       measured > 0 ? 100 * (predicted / measured - 1) : 0.0);
  };
  for (const ValidationRow& r : rows) {
    if (!r.measured_classes && r.measured_peak_bytes <= 0) continue;
    out += fmt::format("\n{} ({})\n  {:<28} {:>10} {:>10} {:>8}\n", r.id, r.framework, "", "measured", "predicted",
                       "error");
    if (const auto& m = r.measured_classes) {
      const KernelClassTimes& p = r.predicted_classes;
      line("GEMM ms", 1e3 * (*m)[OperatorKind::gemm], 1e3 * p[OperatorKind::gemm]);
      line("attention ms", 1e3 * (*m)[OperatorKind::attention_gemm], 1e3 * p[OperatorKind::attention_gemm]);
      line("memory-bound ms", 1e3 * (*m)[OperatorKind::elementwise], 1e3 * p[OperatorKind::elementwise]);
      line("optimizer ms", 1e3 * (*m)[OperatorKind::optimizer], 1e3 * p[OperatorKind::optimizer]);
      line("host/launch ms", 1e3 * m->launch_s, 1e3 * p.launch_s);
    }
    if (r.measured_peak_bytes > 0)
      line("peak allocated GiB", r.measured_peak_bytes / std::pow(2.0, 30), r.predicted_peak_bytes / std::pow(2.0, 30));
  }
  return out.empty() ? out : "\nper kernel class and memory (rows that measured them; + predicted more)" + out;
}

std::string format_comparisons(const std::vector<ValidationComparison>& comparisons) {
  if (comparisons.empty()) return "";
  size_t width = 20;
  for (const ValidationComparison& c : comparisons) width = std::max({width, c.first.size(), c.second.size()});
  std::string out = fmt::format("\npublished comparisons (same source and setup; step time of the second against the "
                                "first, + slower)\n{:<{}} {:<{}} {:>9} {:>10}  direction\n",
                                "first", width, "second", width, "measured", "predicted");
  int right = 0;
  for (const ValidationComparison& c : comparisons) {
    right += c.direction_right();
    out += fmt::format("{:<{}} {:<{}} {:>+8.1f}% {:>+9.1f}%  {}\n", c.first, width, c.second, width,
                       100 * c.measured_change, 100 * c.predicted_change, c.direction_right() ? "right" : "WRONG");
  }
  out += fmt::format("directions right: {} of {} (within {:.0f}% counts as the same speed)\n", right,
                     comparisons.size(), 100 * kSameSpeedFraction);
  return out;
}

}  // namespace

std::string format_validation_table(const ValidationSummary& s) {
  size_t width = 34;
  for (const ValidationRow& r : s.rows) width = std::max(width, r.id.size());
  std::string out = fmt::format("{:<{}} {:<17} {:>10} {:>10} {:>8}  {}\n", "run", width, "metric", "measured",
                                "predicted", "error", "not modelled yet");
  for (const ValidationRow& r : s.rows)
    out += fmt::format("{:<{}} {:<17} {:>10.3f} {:>10.3f} {:>+7.1f}%  {}\n", r.id, width, r.metric, r.measured,
                       r.predicted, 100 * r.signed_error, r.not_modelled);
  out += fmt::format("error: + predicted slower than measured, - faster\n");
  out += fmt::format("mean absolute percentage error: {:.1f}% over {} runs\n", s.mean_absolute_percentage_error,
                     s.rows.size());
  if (!s.by_source.empty()) out += "\n" + format_groups("by source", s.by_source);
  if (!s.by_gpu.empty()) out += "\n" + format_groups("by GPU type", s.by_gpu);
  if (!s.by_framework.empty()) out += "\n" + format_groups("by framework", s.by_framework);
  out += format_class_comparisons(s.rows);
  out += format_comparisons(s.comparisons);
  for (const std::string& skipped : s.skipped) out += "skipped " + skipped + "\n";
  for (const std::string& failed : s.failed) out += "not simulated " + failed + "\n";
  if (s.collective_rows.empty()) return out;
  out += fmt::format("\n{:<20} {:<10} {:>12} {:>15} {:>16} {:>8}\n", "nccl-tests run", "algorithm", "bytes",
                     "measured busbw", "predicted busbw", "error");
  for (const CollectiveValidationRow& r : s.collective_rows)
    out += fmt::format("{:<20} {:<10} {:>12.0f} {:>10.1f} GB/s {:>11.1f} GB/s {:>7.1f}%\n", r.id, r.algorithm, r.bytes,
                       r.measured_busbw_GBps, r.predicted_busbw_GBps, 100 * r.relative_error);
  return out;
}

}  // namespace dtsim
