#include "headline_figures.hpp"

#include <fmt/format.h>

#include "sweep.hpp"

namespace dtsim {

std::vector<HeadlineFigure> headline_figures(const Report& r, const TrainingCost& cost) {
  const double days = cost.time_s / 86400;
  const std::string units = r.throughput_unit() + "s";
  // Tokens come by the thousand; a layer model's samples may be a few per second.
  const std::string throughput = r.layer_model ? fmt::format("{:.1f} {}/s", r.samples_per_s, units)
                                               : with_thousands(r.tokens_per_s) + " " + units + "/s";
  return {
      {"iteration_s", "iteration time", r.iteration_s, fmt::format("{:.4f} s", r.iteration_s), false},
      {units + "_per_s", "throughput", r.throughput_per_s(), throughput, true},
      {"model_tflops_per_gpu", "model TFLOP/s per GPU", r.model_tflops_per_gpu,
       fmt::format("{:.1f}", r.model_tflops_per_gpu), true},
      {"mfu_percent", "MFU", 100 * r.mfu, fmt::format("{:.1f} %", 100 * r.mfu), true},
      {"memory_gb_per_gpu", "memory per GPU", r.memory.total_bytes / 1e9,
       fmt::format("{:.1f} of {:.0f} GB", r.memory.total_bytes / 1e9, r.memory.capacity_bytes / 1e9), false},
      {"time_to_train_days", "time to train " + format_count(cost.amount) + " " + cost.unit + "s", days,
       fmt::format("{:.1f} days", days), false},
      {"gpu_hours", "GPU-hours", cost.gpu_hours, with_thousands(cost.gpu_hours), false},
      {"cost_usd", "cost", cost.cost_usd, "$" + with_thousands(cost.cost_usd), false},
      {"energy_mwh", "energy (PUE " + fmt::format("{:g}", cost.inputs.pue) + ")", cost.energy_mwh,
       fmt::format("{:.0f} MWh", cost.energy_mwh), false},
  };
}

std::string headline_csv(const std::vector<std::string>& labels,
                         const std::vector<std::vector<HeadlineFigure>>& figures) {
  std::string out = "run";
  if (!figures.empty())
    for (size_t column = 0; column < figures.front().size(); ++column) {
      // Runs counted in different units (tokens, images) share the throughput column.
      std::string key = figures.front()[column].key;
      for (const std::vector<HeadlineFigure>& run : figures)
        if (column < run.size() && ("|" + key + "|").find("|" + run[column].key + "|") == std::string::npos)
          key += "|" + run[column].key;
      out += "," + key;
    }
  out += "\n";
  for (size_t i = 0; i < figures.size() && i < labels.size(); ++i) {
    out += csv_field(labels[i]);
    for (const HeadlineFigure& f : figures[i]) out += fmt::format(",{}", f.value);
    out += "\n";
  }
  return out;
}

}  // namespace dtsim
