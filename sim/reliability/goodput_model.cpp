#include "goodput_model.hpp"

#include <cmath>

namespace dtsim {

const char* to_string(RecoveryStrategy s) {
  switch (s) {
    case RecoveryStrategy::wait_for_repair: return "wait_for_repair";
    case RecoveryStrategy::spare_nodes: return "spare_nodes";
    case RecoveryStrategy::elastic: return "elastic";
  }
  return "?";
}

double FailureClass::rate_per_s() const {
  if (!(mtbf_hours > 0) || std::isinf(mtbf_hours) || units <= 0) return 0;
  return units / (mtbf_hours * 3600.0);
}

double GoodputProblem::failure_rate_per_s() const {
  double rate = 0;
  for (const FailureClass& c : failures) rate += c.rate_per_s();
  return rate;
}

double GoodputProblem::node_failure_rate_per_s() const {
  double rate = 0;
  for (const FailureClass& c : failures)
    if (c.takes_node_out) rate += c.rate_per_s();
  return rate;
}

double expected_segment_s(double rate_per_s, double length_s, double recovery_s) {
  if (rate_per_s <= 0) return length_s;
  // expm1 keeps the small-λL case exact (e^{λL} − 1 ≈ λL gives L back).
  return std::exp(rate_per_s * recovery_s) * std::expm1(rate_per_s * length_s) / rate_per_s;
}

long checkpoint_count(double work_s, double interval_s) {
  if (work_s <= 0) return 0;
  return static_cast<long>(std::ceil(work_s / interval_s - 1e-12));
}

ClosedFormRun closed_form_run(const GoodputProblem& p, double interval_s) {
  ClosedFormRun run;
  if (p.work_s <= 0) return run;
  const double rate = p.failure_rate_per_s();
  const long segments = checkpoint_count(p.work_s, interval_s);
  const double last_s = p.work_s - double(segments - 1) * interval_s;
  run.compute_s = p.work_s;
  run.checkpoint_s = double(segments) * p.checkpoint_write_s;
  run.wall_s = run.compute_s + run.checkpoint_s;
  if (rate <= 0) return run;
  const double recovery_per_failure_s = std::expm1(rate * p.recovery_s) / rate;
  auto add = [&](double count, double length_s) {
    const double failures = std::expm1(rate * length_s);
    run.lost_s += count * (failures / rate - length_s);
    run.recovery_s += count * failures * recovery_per_failure_s;
  };
  add(double(segments - 1), interval_s + p.checkpoint_write_s);
  add(1, last_s + p.checkpoint_write_s);
  run.wall_s += run.lost_s + run.recovery_s;
  if (!std::isfinite(run.wall_s)) run.wall_s = std::numeric_limits<double>::infinity();
  return run;
}

double closed_form_wall_s(const GoodputProblem& p, double interval_s) { return closed_form_run(p, interval_s).wall_s; }

double closed_form_goodput(const GoodputProblem& p, double interval_s) {
  const double wall = closed_form_wall_s(p, interval_s);
  if (p.work_s <= 0) return 1;
  return std::isfinite(wall) ? p.work_s / wall : 0;
}

double young_interval_s(double checkpoint_write_s, double rate_per_s) {
  if (rate_per_s <= 0) return std::numeric_limits<double>::infinity();
  return std::sqrt(2 * checkpoint_write_s / rate_per_s);
}

double daly_interval_s(double checkpoint_write_s, double rate_per_s) {
  if (rate_per_s <= 0) return std::numeric_limits<double>::infinity();
  const double mtbf_s = 1 / rate_per_s;
  if (checkpoint_write_s >= 2 * mtbf_s) return mtbf_s;
  return std::sqrt(2 * checkpoint_write_s * mtbf_s) - checkpoint_write_s;
}

double optimal_interval_s(double checkpoint_write_s, double rate_per_s) {
  if (rate_per_s <= 0) return std::numeric_limits<double>::infinity();
  const double ld = rate_per_s * checkpoint_write_s;
  if (ld <= 0) return 0;  // free checkpoints: as often as possible
  // f(x) = (1 − x) e^x − e^{−λδ}, written so that small x and small λδ keep their digits:
  // (1 − x) e^x − 1 = expm1(x) − x e^x, and 1 − e^{−λδ} = −expm1(−λδ). f(0) > 0 > f(1), f decreasing.
  auto f = [&](double x) { return std::expm1(x) - x * std::exp(x) - std::expm1(-ld); };
  double lo = 0, hi = 1;
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) > 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi) / rate_per_s;
}

}  // namespace dtsim
