#include "headline_figures.hpp"

#include <fmt/format.h>

#include "sweep.hpp"

namespace dtsim {

std::vector<HeadlineFigure> headline_figures(const Report& r, const TrainingCost& cost) {
  const double days = cost.time_s / 86400;
  return {
      {"iteration_s", "iteration time", r.iteration_s, fmt::format("{:.4f} s", r.iteration_s), false},
      {"tokens_per_s", "throughput", r.tokens_per_s, fmt::format("{:.0f} tokens/s", r.tokens_per_s), true},
      {"model_tflops_per_gpu", "model TFLOP/s per GPU", r.model_tflops_per_gpu,
       fmt::format("{:.1f}", r.model_tflops_per_gpu), true},
      {"mfu_percent", "MFU", 100 * r.mfu, fmt::format("{:.1f} %", 100 * r.mfu), true},
      {"memory_gb_per_gpu", "memory per GPU", r.memory.total_bytes / 1e9,
       fmt::format("{:.1f} of {:.0f} GB", r.memory.total_bytes / 1e9, r.memory.capacity_bytes / 1e9), false},
      {"time_to_train_days", "time to train " + format_token_count(cost.tokens) + " tokens", days,
       fmt::format("{:.1f} days", days), false},
      {"gpu_hours", "GPU-hours", cost.gpu_hours, fmt::format("{:.0f}", cost.gpu_hours), false},
      {"cost_usd", "cost", cost.cost_usd, fmt::format("${:.0f}", cost.cost_usd), false},
  };
}

std::string headline_csv(const std::vector<std::string>& labels,
                         const std::vector<std::vector<HeadlineFigure>>& figures) {
  std::string out = "run";
  if (!figures.empty())
    for (const HeadlineFigure& f : figures.front()) out += "," + f.key;
  out += "\n";
  for (size_t i = 0; i < figures.size() && i < labels.size(); ++i) {
    out += csv_field(labels[i]);
    for (const HeadlineFigure& f : figures[i]) out += fmt::format(",{}", f.value);
    out += "\n";
  }
  return out;
}

}  // namespace dtsim
