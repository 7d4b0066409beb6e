#pragma once
// Time, GPU-hours and cost to train on N tokens at a simulated throughput (the planner's
// spreadsheet line: "300B tokens take 34 days and $4.1M on 1024 A100 at $2/GPU-hour").
#include "report.hpp"

namespace dtsim {

struct TrainingCost {
  double tokens = 0;
  double time_s = 0;     // tokens / tokens_per_s
  double gpu_hours = 0;  // time_s / 3600 x GPUs
  double cost_usd = 0;   // gpu_hours x usd_per_gpu_hour
};

// Zero time and cost when the report has no throughput (an iteration that did not complete).
TrainingCost training_cost(const Report& r, double tokens, double usd_per_gpu_hour);

}  // namespace dtsim
