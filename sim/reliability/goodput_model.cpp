#include "goodput_model.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

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

double fresh_window_s(const GoodputProblem& p, double segment_s) {
  return segment_s + p.checkpoint_stall_s + p.checkpoint_persist_s;
}

double streaming_window_s(const GoodputProblem& p, double segment_s) {
  return std::max(segment_s, p.checkpoint_persist_s) + p.checkpoint_stall_s;
}

namespace {

// One window's share of closed_form_run, `count` times.
struct WindowTerms {
  double rate = 0, recovery_per_failure_s = 0;  // λ, ρ
  // An F window of `length_s`: lost work (e^{λF} − 1)/λ − F, e^{λF} − 1 failures.
  void add_fresh(ClosedFormRun& run, double count, double length_s, double segment_s) const {
    if (count <= 0) return;
    const double failures = std::expm1(rate * length_s);
    run.lost_s += count * (failures / rate - length_s);
    run.recovery_s += count * failures * recovery_per_failure_s;
    run.checkpoint_s += count * (length_s - segment_s);
  }
  // An S window, and the F window after a failure in it (probability q = 1 − e^{−λS}): lost
  // E[X; X < S] = (q − λS e^{−λS})/λ, plus q times the F window's.
  void add_streaming(ClosedFormRun& run, double count, double s_s, double f_s, double segment_s) const {
    if (count <= 0) return;
    const double q = -std::expm1(-rate * s_s);
    run.lost_s += count * (q - rate * s_s * std::exp(-rate * s_s)) / rate;
    run.recovery_s += count * q * recovery_per_failure_s;
    run.checkpoint_s += count * (1 - q) * (s_s - segment_s);
    add_fresh(run, count * q, f_s, segment_s);
  }
};

}  // namespace

ClosedFormRun closed_form_run(const GoodputProblem& p, double interval_s) {
  ClosedFormRun run;
  if (p.work_s <= 0) return run;
  const double rate = p.failure_rate_per_s();
  const long segments = checkpoint_count(p.work_s, interval_s);
  const double last_s = p.work_s - double(segments - 1) * interval_s;
  const double first_s = segments == 1 ? last_s : interval_s;
  run.compute_s = p.work_s;
  if (rate <= 0) {
    run.checkpoint_s = fresh_window_s(p, first_s) - first_s;
    if (segments > 1)
      run.checkpoint_s += double(segments - 2) * (streaming_window_s(p, interval_s) - interval_s) +
                          streaming_window_s(p, last_s) - last_s;
    run.wall_s = run.compute_s + run.checkpoint_s;
    return run;
  }
  const WindowTerms terms{rate, std::expm1(rate * p.recovery_s) / rate};
  terms.add_fresh(run, 1, fresh_window_s(p, first_s), first_s);
  if (segments > 1) {
    terms.add_streaming(run, double(segments - 2), streaming_window_s(p, interval_s), fresh_window_s(p, interval_s),
                        interval_s);
    terms.add_streaming(run, 1, streaming_window_s(p, last_s), fresh_window_s(p, last_s), last_s);
  }
  run.wall_s = run.compute_s + run.checkpoint_s + run.lost_s + run.recovery_s;
  if (!std::isfinite(run.wall_s)) run.wall_s = std::numeric_limits<double>::infinity();
  return run;
}

double closed_form_wall_s(const GoodputProblem& p, double interval_s) { return closed_form_run(p, interval_s).wall_s; }

double closed_form_goodput(const GoodputProblem& p, double interval_s) {
  const double wall = closed_form_wall_s(p, interval_s);
  if (p.work_s <= 0) return 1;
  return std::isfinite(wall) ? p.work_s / wall : 0;
}

double young_interval_s(double checkpoint_stall_s, double rate_per_s) {
  if (rate_per_s <= 0) return std::numeric_limits<double>::infinity();
  return std::sqrt(2 * checkpoint_stall_s / rate_per_s);
}

double daly_interval_s(double checkpoint_stall_s, double rate_per_s) {
  if (rate_per_s <= 0) return std::numeric_limits<double>::infinity();
  const double mtbf_s = 1 / rate_per_s;
  if (checkpoint_stall_s >= 2 * mtbf_s) return mtbf_s;
  return std::sqrt(2 * checkpoint_stall_s * mtbf_s) - checkpoint_stall_s;
}

double optimal_interval_s(double checkpoint_stall_s, double rate_per_s) {
  if (rate_per_s <= 0) return std::numeric_limits<double>::infinity();
  const double ld = rate_per_s * checkpoint_stall_s;
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

double optimal_interval_s(const GoodputProblem& p) {
  const double rate = p.failure_rate_per_s();
  if (p.checkpoint_persist_s <= 0) return optimal_interval_s(p.checkpoint_stall_s, rate);
  if (rate <= 0) return std::numeric_limits<double>::infinity();
  // Overhead per second of work of one S window (with the F window a failure leads to); τ < P
  // only wastes the wait, so the search starts at P / 4 and spans up to 100 MTBFs.
  const double rho = std::expm1(rate * p.recovery_s) / rate;
  auto per_work = [&](double tau) {
    const double q = -std::expm1(-rate * streaming_window_s(p, tau));
    const double fresh = expected_segment_s(rate, fresh_window_s(p, tau), p.recovery_s);
    return (q / rate + q * (rho + fresh)) / tau;
  };
  // A log scan, then golden-section search between the neighbours of the best point.
  const double lo = std::max(p.checkpoint_persist_s / 4, 1e-9), hi = std::max(100 / rate, 4 * lo);
  constexpr int kScan = 400;
  std::vector<double> taus(kScan + 1);
  taus[0] = lo;
  int best = 0;
  double best_per_work = per_work(lo);
  for (int i = 1; i <= kScan; ++i) {
    taus[i] = lo * std::pow(hi / lo, double(i) / kScan);
    if (const double w = per_work(taus[i]); w < best_per_work) best = i, best_per_work = w;
  }
  double a = taus[std::max(0, best - 1)], b = taus[std::min(kScan, best + 1)];
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 200 && b - a > 1e-12 * b; ++i) {
    const double c = b - g * (b - a), d = a + g * (b - a);
    if (per_work(c) < per_work(d)) b = d;
    else a = c;
  }
  return 0.5 * (a + b);
}

}  // namespace dtsim
