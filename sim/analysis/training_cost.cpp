#include "training_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "device_spec.hpp"
#include "sweep.hpp"  // format_count

namespace dtsim {

double cluster_power_w(int gpus, int per_node, double board_w, double node_w) {
  per_node = std::max(1, per_node);
  const int nodes = (gpus + per_node - 1) / per_node;
  return node_w > 0 ? nodes * std::max(node_w, per_node * board_w) : gpus * board_w;
}

double cluster_power_w(const Scenario& s) {
  const DeviceSpec* device = find_device(s.cluster.gpu);
  return cluster_power_w(s.gpu_count(), s.cluster.topology.node.gpus, device ? device->board_power_w : 0,
                         s.cluster.topology.node.power_w);
}

WallClockCost wall_clock_cost(const Scenario& s, const CostInputs& inputs) {
  return {.gpus = s.gpu_count(), .inputs = inputs, .facility_power_w = cluster_power_w(s) * inputs.pue};
}

TrainingCost training_cost(const Report& r, double amount, const CostInputs& inputs) {
  TrainingCost c;
  c.amount = amount;
  c.unit = r.throughput_unit();
  c.inputs = inputs;
  c.node_power_known = r.node_power_w > 0;
  c.it_power_w = cluster_power_w(r.gpus, r.gpus_per_node, r.gpu_board_power_w, r.node_power_w);
  c.facility_power_w = c.it_power_w * inputs.pue;
  if (r.throughput_per_s() <= 0) return c;
  c.time_s = amount / r.throughput_per_s();
  const WallClockCost held{.gpus = r.gpus, .inputs = inputs, .facility_power_w = c.facility_power_w};
  c.gpu_hours = held.gpu_hours(c.time_s);
  c.cost_usd = held.cost_usd(c.time_s);
  c.energy_mwh = held.energy_mwh(c.time_s);
  return c;
}

std::string with_thousands(double value) {
  const std::string digits = fmt::format("{:.0f}", std::abs(value));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (value <= -0.5 ? "-" : "") + out;
}

std::string format_training_cost(const TrainingCost& c) {
  if (c.time_s <= 0) return "";
  std::string out = fmt::format("to train          {} {}s: {:.1f} days, {} GPU-hours, ${} at ${:.2f} per GPU-hour\n",
                                format_count(c.amount), c.unit, c.time_s / 86400, with_thousands(c.gpu_hours),
                                with_thousands(c.cost_usd), c.inputs.usd_per_gpu_hour);
  out += fmt::format("energy            {:.4g} MWh: {:.3g} MW at the facility, {:.3g} MW of {} x PUE {:g}\n",
                     c.energy_mwh, c.facility_power_w / 1e6, c.it_power_w / 1e6,
                     c.node_power_known ? "nodes at their datasheet power" : "GPUs at board power (node power unknown)",
                     c.inputs.pue);
  return out;
}

std::string format_training_cost(const TrainingCost& c, const ErrorBand& band) {
  std::string out = format_training_cost(c);
  if (out.empty()) return out;
  if (band.runs > 0)
    out += fmt::format("evidence          {:.3g} to {:.3g} days: {}\n",
                       band.low * c.time_s / 86400, band.high * c.time_s / 86400, band.describe());
  else
    out += "evidence          " + band.describe() + "\n";
  return out;
}

nlohmann::json training_cost_to_json(const TrainingCost& c) {
  return {{"amount", c.amount},
          {"unit", c.unit},
          {"time_s", c.time_s},
          {"days", c.time_s / 86400},
          {"gpu_hours", c.gpu_hours},
          {"usd_per_gpu_hour", c.inputs.usd_per_gpu_hour},
          {"cost_usd", c.cost_usd},
          {"pue", c.inputs.pue},
          {"it_power_w", c.it_power_w},
          {"node_power_known", c.node_power_known},
          {"facility_power_w", c.facility_power_w},
          {"energy_mwh", c.energy_mwh}};
}

}  // namespace dtsim
