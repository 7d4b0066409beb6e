#pragma once
// Time, GPU-hours, cost and energy to train on an amount of data at a simulated throughput (the
// planner's spreadsheet line: "300B tokens take 34 days, $4.1M and 2.9 GWh on 1024 A100"). The
// amount is in the report's throughput unit: tokens for transformers, a layer model's samples
// (images, sequences, records) otherwise.
//
// Power: each GPU at its board power (DeviceSpec::board_power_w: a training run keeps it near its
// limit), or, where the topology gives the node's datasheet power (NodeSpec::power_w: GPUs, CPUs,
// NICs, NVSwitches, fans), every node at that; times the facility's PUE. Fabric switches are not
// counted. Defaults, cited in docs/capacity-planning.md: $2.00 per GPU-hour (the low end of H100
// on-demand rates in 2026), PUE 1.3 (new, large facilities; the 2023 industry average was 1.58).
#include <nlohmann/json.hpp>

#include <string>

#include "error_band.hpp"
#include "report.hpp"
#include "scenario.hpp"  // usual_training_amount

namespace dtsim {

inline constexpr double kDefaultUsdPerGpuHour = 2.0;
inline constexpr double kDefaultPue = 1.3;

struct CostInputs {
  double usd_per_gpu_hour = kDefaultUsdPerGpuHour;
  double pue = kDefaultPue;  // facility power / IT power
};

struct TrainingCost {
  double amount = 0;         // in `unit`s
  std::string unit = "token";
  double time_s = 0;         // amount / throughput
  double gpu_hours = 0;      // time_s / 3600 x GPUs
  double cost_usd = 0;       // gpu_hours x usd_per_gpu_hour
  CostInputs inputs;
  double it_power_w = 0;        // GPUs, or whole nodes where their power is known
  bool node_power_known = false;
  double facility_power_w = 0;  // it_power_w x PUE
  double energy_mwh = 0;        // facility_power_w over time_s
};

// The power of `gpus` GPUs of `board_w` each, `per_node` to a node: whole nodes at `node_w` where
// it is known (> 0), else the GPUs alone.
double cluster_power_w(int gpus, int per_node, double board_w, double node_w);
// The same for a scenario's cluster.
double cluster_power_w(const Scenario& s);

// Zero time, cost and energy when the report has no throughput (an iteration that did not complete).
TrainingCost training_cost(const Report& r, double amount, const CostInputs& inputs = {});
inline TrainingCost training_cost(const Report& r, double amount, double usd_per_gpu_hour) {
  return training_cost(r, amount, CostInputs{.usd_per_gpu_hour = usd_per_gpu_hour});
}

// What holding and powering a scenario's cluster for a wall-clock time costs (goodput's rows): the
// cluster is held the whole time and draws its power throughout (idle GPUs draw less: an upper
// bound on the energy).
struct WallClockCost {
  int gpus = 0;
  CostInputs inputs;
  double facility_power_w = 0;  // cluster_power_w x PUE
  double gpu_hours(double wall_s) const { return wall_s / 3600.0 * gpus; }
  double cost_usd(double wall_s) const { return gpu_hours(wall_s) * inputs.usd_per_gpu_hour; }
  double energy_mwh(double wall_s) const { return facility_power_w * wall_s / 3.6e9; }
};
WallClockCost wall_clock_cost(const Scenario& s, const CostInputs& inputs);

// A whole number with thousands separators: 1234567.8 -> "1,234,568".
std::string with_thousands(double value);

// "to train ... days, GPU-hours, $, MWh" lines of `dtsim run` and `goodput`, and the same as JSON.
// With an error band (error_band.hpp), the days it spans and the evidence, in a line of their own.
std::string format_training_cost(const TrainingCost& c);
std::string format_training_cost(const TrainingCost& c, const ErrorBand& band);
nlohmann::json training_cost_to_json(const TrainingCost& c);

}  // namespace dtsim
