#pragma once
// Time, GPU-hours and cost to train on an amount of data at a simulated throughput (the planner's
// spreadsheet line: "300B tokens take 34 days and $4.1M on 1024 A100 at $2/GPU-hour"). The amount
// is in the report's throughput unit: tokens for transformers, a layer model's samples (images,
// sequences, records) otherwise.
#include <string>

#include "report.hpp"

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

// A usual training run's length in `unit`, for a front end's default (0 for an unknown unit):
// token: GPT-3's 300 B (Brown et al. 2020, section 2.2). image: 90 epochs of ImageNet-1k's
// 1,281,167 training images (the ResNet schedule; Goyal et al. 2017). sequence: BERT's
// pre-training, 1,000,000 steps of 256 sequences (Devlin et al. 2019, appendix A.2). record: one
// epoch of Criteo 1TB's days 0-22, 4,195,197,692 records (MLPerf Training's DLRM).
double usual_training_amount(const std::string& unit);

}  // namespace dtsim
