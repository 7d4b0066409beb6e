#include "training_cost.hpp"

namespace dtsim {

TrainingCost training_cost(const Report& r, double amount, double usd_per_gpu_hour) {
  TrainingCost c;
  c.amount = amount;
  c.unit = r.throughput_unit();
  if (r.throughput_per_s() <= 0) return c;
  c.time_s = amount / r.throughput_per_s();
  c.gpu_hours = c.time_s / 3600.0 * r.gpus;
  c.cost_usd = c.gpu_hours * usd_per_gpu_hour;
  return c;
}

}  // namespace dtsim
