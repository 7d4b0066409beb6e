#pragma once
// The numbers a capacity planner reads first, formatted once for every front end (the GUI's
// summary and comparison table, its CSV export): iteration time, throughput, TFLOP/s per GPU,
// MFU, memory per GPU, and time and cost to train on a number of tokens.
#include <string>
#include <vector>

#include "report.hpp"
#include "training_cost.hpp"

namespace dtsim {

struct HeadlineFigure {
  std::string key;    // stable id: "iteration_s", "tokens_per_s", ... (CSV column names)
  std::string label;  // "iteration time"
  double value = 0;   // in the unit of the key
  std::string text;   // "27.8690 s", as `dtsim run` prints it
  bool higher_is_better = false;
};

// In this order: iteration_s, tokens_per_s (a layer model's images_per_s, sequences_per_s or
// records_per_s), model_tflops_per_gpu, mfu_percent, memory_gb_per_gpu, time_to_train_days,
// gpu_hours, cost_usd, energy_mwh.
std::vector<HeadlineFigure> headline_figures(const Report& r, const TrainingCost& cost);

// One header line (label, then the keys; a column whose runs have different keys, such as tokens
// and images per second, is headed by them all joined with '|'), one line per run (RFC 4180
// quoting), numbers shortest round-trip. `labels` and `figures` have one entry per run.
std::string headline_csv(const std::vector<std::string>& labels,
                         const std::vector<std::vector<HeadlineFigure>>& figures);

}  // namespace dtsim
