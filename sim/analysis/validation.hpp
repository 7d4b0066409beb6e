#pragma once
// `dtsim validate`: predicts every run of a published-runs YAML file (schema of
// validation/published-runs.yaml) and compares with what its authors measured.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compute_model.hpp"
#include "resolved_scenario.hpp"
#include "scenario.hpp"
#include "simulation.hpp"
#include "slurm_batch.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

struct ValidationRow {
  std::string id;
  std::string source;  // the publication: `source` up to its first " @ " or ","
  std::string gpu;
  std::string metric;  // "iteration_time_s", "tflops_per_gpu", "images_per_s" or "sequences_per_s"
  double measured = 0;
  double predicted = 0;
  double relative_error = 0;  // |predicted - measured| / measured
  // (predicted - measured) / measured, in the direction of "predicted slower": positive when the
  // predicted iteration is longer (or the predicted TFLOP/s lower) than measured.
  double signed_error = 0;
  std::string not_modelled;   // features of the run the model does not have yet
  // Runs with the same source, metric and setup differ only in how they train (strategy, library,
  // buckets, compression, input pipeline, layout): a published comparison.
  std::string setup;          // "vgg-16 on 8 x k80 in 1 nodes, batch 256, fp32"
  std::string framework;      // the row's training.framework
  // Where a row measured them: its step's time by kernel class (from a trace; launch_s: the
  // measured step less its kernels), and its peak memory allocated; as predicted beside them.
  std::optional<KernelClassTimes> measured_classes;
  KernelClassTimes predicted_classes;
  double measured_peak_bytes = 0, predicted_peak_bytes = 0;

  // The measured step time over the predicted one (from the iteration time, or the inverse of a
  // throughput): 1.2 = the run took 20% longer than predicted.
  double measured_step_over_predicted() const;
};

// Two runs of one setup, as published and as predicted: the step time of `second` against
// `first`'s (from iteration time, or the inverse of a throughput), + when `second` is slower.
struct ValidationComparison {
  std::string first, second;  // run ids
  std::string setup;
  double measured_change = 0;
  double predicted_change = 0;
  // Same sign of change, or both within kSameSpeedFraction of each other.
  bool direction_right() const;
};
// Runs published within this fraction of each other's step time are of the same speed: the
// prediction is right when it is within it too.
constexpr double kSameSpeedFraction = 0.01;

// Mean absolute percentage error of a subset of rows (one source, one GPU type).
struct ValidationGroup {
  std::string name;
  int runs = 0;
  double mean_absolute_percentage_error = 0;
  double mean_signed_percentage_error = 0;  // + predicted slower, - faster
  double max_absolute_percentage_error = 0;
};

// One published nccl-tests point: bus bandwidth measured vs predicted.
struct CollectiveValidationRow {
  std::string id;
  std::string algorithm;
  double bytes = 0;
  double measured_busbw_GBps = 0;
  double predicted_busbw_GBps = 0;
  double relative_error = 0;
};

struct ValidationSummary {
  std::vector<ValidationRow> rows;
  std::vector<CollectiveValidationRow> collective_rows;
  std::vector<std::string> skipped;  // "id: reason"
  std::vector<std::string> failed;   // "id: error": runs whose simulation failed or no Slurm task delivered
  double mean_absolute_percentage_error = 0;
  std::vector<ValidationGroup> by_source, by_gpu, by_framework;
  std::vector<ValidationComparison> comparisons;  // every pair of rows with the same source and setup
  std::optional<SlurmBatch> slurm;  // where a Slurm batch simulated the runs (outcomes left out)
};

// What the validation assumes where the source is silent.
constexpr int kDefaultMicroBatchWhenUnpublished = 1;

// Topology file used for a GPU type, from `topologies_dir` (e.g. DGX A100 + HDR fat-tree), given
// the GPUs per node where a run says (0: not said).
std::filesystem::path default_topology_for(const std::string& gpu, const std::filesystem::path& topologies_dir,
                                           int gpus_per_node = 0);

// SC21's hardware-FLOP convention: 96*B*s*l*h^2*(1 + s/(6h) + V/(16*l*h)).
double sc21_flops_per_iteration(const TransformerConfig& m, int global_batch);

// A published run read as the scenario it describes (the same sections and checks as a
// scenario file; see scenario_sections.hpp), with what was measured.
struct PublishedRun {
  Scenario scenario;
  std::string source;
  std::string metric;  // as ValidationRow::metric
  double measured = 0;
  std::string not_modelled;
  std::string skipped;  // why the run cannot be simulated yet; only id and source are read then
  std::optional<KernelClassTimes> measured_classes;  // measured.kernel_classes_s
  double measured_peak_bytes = 0;                    // measured.peak_allocated_gib
};

// A run's optional measurements beyond its step: `kernel_classes_s` (gemm, attention,
// memory_bound, optimizer, host_launch: seconds of its step) and `peak_allocated_gib`.
void read_measured_extras(const YamlFields& f, const YAML::Node& measured, const std::string& path, PublishedRun& run);
// Every run of the file, read and checked before any is simulated; bad input throws InputError.
std::vector<PublishedRun> read_published_runs(const std::filesystem::path& runs_file,
                                              const std::filesystem::path& topologies_dir);

// One run simulated and compared with its measurement (a run that is not skipped).
ValidationRow validate_run(const PublishedRun& run, bool fold_replicas = true);
// The same from its resolved scenario and simulation.
ValidationRow validation_row(const PublishedRun& run, const ResolvedScenario& resolved, const SimulationResult& sim);

// Run `index` of read_published_runs(runs_file, topologies_dir), resolved: what a Slurm task of
// `dtsim validate --slurm` simulates (kind kPublishedRunKind).
ResolvedScenario resolved_published_run(const std::filesystem::path& runs_file,
                                        const std::filesystem::path& topologies_dir, size_t index);
constexpr std::string_view kPublishedRunKind = "published_run";

// fold_replicas: SimulationOptions::fold_replicas (false: every GPU simulated, `--no-fold`). The
// runs are simulated in parallel on this machine's cores, or with `slurm` as a Slurm job array
// (no rows when submitted without waiting). A run whose simulation fails is listed in `failed`.
ValidationSummary validate_published_runs(const std::filesystem::path& runs_file,
                                          const std::filesystem::path& topologies_dir, bool fold_replicas = true,
                                          const std::optional<SlurmOptions>& slurm = std::nullopt);
std::string format_validation_table(const ValidationSummary& s);

}  // namespace dtsim
