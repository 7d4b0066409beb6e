#pragma once
// Time, GPU-hours and cost to train on an amount of data at a simulated throughput (the planner's
// spreadsheet line: "300B tokens take 34 days and $4.1M on 1024 A100 at $2/GPU-hour"). The amount
// is in the report's throughput unit: tokens for transformers, a layer model's samples (images,
// sequences, records) otherwise.
#include <string>

#include "report.hpp"
#include "scenario.hpp"  // usual_training_amount

namespace dtsim {

struct TrainingCost {
  double amount = 0;         // in `unit`s
  std::string unit = "token";
  double time_s = 0;     // amount / throughput
  double gpu_hours = 0;  // time_s / 3600 x GPUs
  double cost_usd = 0;   // gpu_hours x usd_per_gpu_hour
};

// Zero time and cost when the report has no throughput (an iteration that did not complete).
TrainingCost training_cost(const Report& r, double amount, double usd_per_gpu_hour);

}  // namespace dtsim
