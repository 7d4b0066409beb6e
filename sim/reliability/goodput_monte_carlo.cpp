#include "goodput_monte_carlo.hpp"

#include <algorithm>
#include <cmath>
#include <future>
#include <limits>
#include <memory>
#include <queue>
#include <random>
#include <thread>

namespace dtsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

enum class Phase { running, restarting, waiting };

// One training run as a discrete-event simulation: the events are failures, repaired nodes coming
// back, and the end of the current phase (a segment with its checkpoint, a restart, a swap).
class TrainingRun {
 public:
  TrainingRun(const GoodputProblem& p, const RecoveryModel& r, double interval_s, const FailureStream& failures)
      : p_(p), r_(r), interval_s_(interval_s), failures_(failures) {
    segments_total_ = checkpoint_count(p.work_s, interval_s);
    last_work_s_ = p.work_s - double(segments_total_ - 1) * interval_s;
    pool_ = r.spares;
    next_failure_ = failures_();
  }

  RunOutcome run(double max_wall_s, long max_events) {
    if (segments_total_ == 0) return out_;
    begin_segment(0);
    for (;;) {
      if (t_ > max_wall_s || out_.failures > max_events) return stop_unfinished();
      const double failure_at = next_failure_.time_s;
      const double repair_at = repairs_.empty() ? kInf : repairs_.top();
      if (repair_at < kInf && repair_at <= failure_at && repair_at <= phase_end_) {
        repairs_.pop();
        t_ = repair_at;
        on_repair();
      } else if (failure_at < kInf && failure_at <= phase_end_) {
        // A failure exactly at the end of a segment counts as hitting it.
        const int cls = next_failure_.failure_class;
        next_failure_ = failures_();
        t_ = failure_at;
        on_failure(cls);
      } else if (phase_end_ < kInf) {
        t_ = phase_end_;
        if (on_phase_end()) break;
      } else {
        return stop_unfinished();  // waiting for something that never comes (cannot happen)
      }
    }
    out_.wall_s = t_;
    return out_;
  }

 private:
  bool elastic() const { return r_.strategy == RecoveryStrategy::elastic; }
  int active_replicas() const { return std::max(0, r_.dp - r_.replicas_per_node_failure * out_nodes_); }
  // Wall seconds of compute per second of work: 1, or dp / active replicas when elastic.
  double slowdown() const { return elastic() ? double(r_.dp) / active_replicas() : 1.0; }

  void begin(Phase phase, double end) {
    phase_ = phase;
    phase_start_ = t_;
    phase_end_ = end;
  }

  // Up to the next safe checkpoint: a fresh window after a restart (or at the start), else a
  // streaming one (goodput_model.hpp).
  void begin_segment(double now) {
    const double work = segments_done_ == segments_total_ - 1 ? last_work_s_ : interval_s_;
    segment_compute_s_ = work * slowdown();
    window_s_ = fresh_ ? fresh_window_s(p_, segment_compute_s_) : streaming_window_s(p_, segment_compute_s_);
    t_ = now;
    begin(Phase::running, now + window_s_);
  }

  // Books the time since the phase began; `completed`: a segment that finished (kept).
  void leave_phase(bool completed) {
    const double spent = t_ - phase_start_;
    switch (phase_) {
      case Phase::running:
        if (completed) {
          out_.compute_s += segment_compute_s_;
          out_.checkpoint_s += window_s_ - segment_compute_s_;
        } else {
          out_.lost_s += spent;
        }
        break;
      case Phase::restarting: out_.restart_s += spent; break;
      case Phase::waiting: out_.wait_s += spent; break;
    }
  }

  bool resources_ready() const {
    switch (r_.strategy) {
      case RecoveryStrategy::wait_for_repair: return missing_ == 0;
      case RecoveryStrategy::spare_nodes: return missing_ == 0 && swap_done_s_ <= t_;
      case RecoveryStrategy::elastic: return active_replicas() >= 1;
    }
    return true;
  }

  // After a failure, or when a wait may be over: restart if the job has its nodes, else wait.
  void enter_recovery() {
    fresh_ = true;  // the job resumes from its last safe checkpoint
    if (elastic()) {  // repaired nodes join a restart that happens anyway
      out_nodes_ -= pending_;
      pending_ = 0;
    }
    if (resources_ready()) {
      ++out_.restarts;
      begin(Phase::restarting, t_ + p_.recovery_s);
    } else {
      const bool swap_only = r_.strategy == RecoveryStrategy::spare_nodes && missing_ == 0;
      begin(Phase::waiting, swap_only ? swap_done_s_ : kInf);
    }
  }

  void assign_spares() {
    for (; missing_ > 0 && pool_ > 0; --missing_, --pool_) swap_done_s_ = std::max(swap_done_s_, t_ + r_.swap_s);
  }

  void on_failure(int cls) {
    ++out_.failures;
    if (!p_.failures[cls].takes_node_out) {
      if (phase_ == Phase::waiting) return;  // the job is not running: nothing to restart
      leave_phase(false);
      enter_recovery();
      return;
    }
    repairs_.push(t_ + r_.repair_s);
    switch (r_.strategy) {
      case RecoveryStrategy::wait_for_repair: ++missing_; break;
      case RecoveryStrategy::spare_nodes: ++missing_; assign_spares(); break;
      case RecoveryStrategy::elastic: ++out_nodes_; break;
    }
    leave_phase(false);
    enter_recovery();
  }

  void on_repair() {
    switch (r_.strategy) {
      case RecoveryStrategy::wait_for_repair: --missing_; break;
      case RecoveryStrategy::spare_nodes: ++pool_; assign_spares(); break;
      case RecoveryStrategy::elastic:
        if (phase_ == Phase::waiting) --out_nodes_;  // no replica left: it joins at once
        else ++pending_;                             // joins at the next checkpoint
        break;
    }
    if (phase_ == Phase::waiting) {
      leave_phase(false);
      enter_recovery();
    }
  }

  // Returns true when the run is over.
  bool on_phase_end() {
    leave_phase(true);
    switch (phase_) {
      case Phase::running:
        ++segments_done_;
        ++out_.checkpoints;
        fresh_ = false;
        if (segments_done_ == segments_total_) return true;
        if (elastic() && pending_ > 0) {  // rejoin: a planned restart (no work lost when blocking)
          enter_recovery();
          return false;
        }
        skip_quiet_segments();
        begin_segment(t_);
        return false;
      case Phase::restarting: begin_segment(t_); return false;
      case Phase::waiting: enter_recovery(); return false;  // a swap finished
    }
    return false;
  }

  // Whole segments that end before the next failure or repair cannot be interrupted: book them at
  // once instead of one event each (the last, shorter, segment is always simulated on its own).
  void skip_quiet_segments() {
    const long full_left = segments_total_ - 1 - segments_done_;
    if (full_left <= 0) return;
    const double next_event = std::min(next_failure_.time_s, repairs_.empty() ? kInf : repairs_.top());
    const double compute_s = interval_s_ * slowdown();
    const double length_s = streaming_window_s(p_, compute_s);
    long skip = full_left;
    if (next_event < kInf) {
      skip = std::min<long>(full_left, long(std::floor((next_event - t_) / length_s)));
      while (skip > 0 && t_ + double(skip) * length_s >= next_event) --skip;
    }
    if (skip <= 0) return;
    t_ += double(skip) * length_s;
    out_.compute_s += double(skip) * compute_s;
    out_.checkpoint_s += double(skip) * (length_s - compute_s);
    out_.checkpoints += skip;
    segments_done_ += skip;
  }

  RunOutcome stop_unfinished() {
    leave_phase(false);
    out_.finished = false;
    out_.wall_s = t_;
    return out_;
  }

  const GoodputProblem& p_;
  const RecoveryModel& r_;
  const double interval_s_;
  const FailureStream& failures_;
  RunOutcome out_;

  long segments_total_ = 0, segments_done_ = 0;
  double last_work_s_ = 0;
  double segment_compute_s_ = 0;
  double window_s_ = 0;  // of the segment under way: its compute and checkpoint until safe
  bool fresh_ = true;    // the segment started after a restart (or at the start)
  double t_ = 0;
  Phase phase_ = Phase::running;
  double phase_start_ = 0, phase_end_ = kInf;
  FailureEvent next_failure_;

  std::priority_queue<double, std::vector<double>, std::greater<>> repairs_;  // when failed nodes come back
  int missing_ = 0;        // wait_for_repair, spare_nodes: job slots without a node
  int pool_ = 0;           // spare_nodes: spares ready
  double swap_done_s_ = 0; // spare_nodes: when the last swap in progress ends
  int out_nodes_ = 0;      // elastic: failed nodes not back in the job (in repair or pending)
  int pending_ = 0;        // elastic: repaired nodes waiting for the next checkpoint to rejoin
};

// Exponential draw with a portable transform (std::exponential_distribution's is the library's).
double exponential(std::mt19937_64& rng, double rate_per_s) {
  const double u = double(rng() >> 11) * 0x1.0p-53;  // [0, 1)
  return -std::log1p(-u) / rate_per_s;
}

// At most (every window a fresh one).
double failure_free_wall_s(const GoodputProblem& p, double interval_s) {
  return p.work_s + double(checkpoint_count(p.work_s, interval_s)) * (p.checkpoint_stall_s + p.checkpoint_persist_s);
}

}  // namespace

RunOutcome simulate_run(const GoodputProblem& problem, const RecoveryModel& recovery, double interval_s,
                        const FailureStream& failures, double max_wall_s, long max_events) {
  TrainingRun run(problem, recovery, interval_s, failures);
  return run.run(max_wall_s, max_events);
}

FailureStream exponential_failures(const GoodputProblem& problem, uint64_t seed, uint64_t run) {
  struct Clocks {
    std::mt19937_64 rng;
    std::vector<double> rate, next;
  };
  auto clocks = std::make_shared<Clocks>();
  std::seed_seq seq{uint32_t(seed), uint32_t(seed >> 32), uint32_t(run), uint32_t(run >> 32)};
  clocks->rng.seed(seq);
  for (const FailureClass& c : problem.failures) {
    const double rate = c.rate_per_s();
    clocks->rate.push_back(rate);
    clocks->next.push_back(rate > 0 ? exponential(clocks->rng, rate) : kInf);
  }
  return [clocks]() {
    const auto first = std::min_element(clocks->next.begin(), clocks->next.end());
    if (first == clocks->next.end() || *first == kInf) return FailureEvent{kInf, -1};
    const int cls = int(first - clocks->next.begin());
    const FailureEvent event{*first, cls};
    *first += exponential(clocks->rng, clocks->rate[cls]);
    return event;
  };
}

namespace {

// A run stops unfinished past 100 times its failure-free time (goodput under 1%) or after a
// million failures, so that hopeless settings answer quickly.
double max_wall_s(const GoodputProblem& problem, double interval_s) {
  return 100 * failure_free_wall_s(problem, interval_s) + 100 * problem.recovery_s + 86400;
}
constexpr long kMaxEvents = 1'000'000;

}  // namespace

std::vector<RunOutcome> monte_carlo_runs(const MonteCarloJob& job, int first, int count, int threads) {
  std::vector<RunOutcome> outcomes(std::max(0, count));
  const double limit_s = max_wall_s(job.problem, job.interval_s);
  auto run_range = [&](int begin, int end) {
    for (int i = begin; i < end; ++i)
      outcomes[i] = simulate_run(job.problem, job.recovery, job.interval_s,
                                 exponential_failures(job.problem, job.seed, uint64_t(first + i)), limit_s, kMaxEvents);
  };
  const int workers = std::max(1, std::min(count, threads > 0 ? threads : int(std::thread::hardware_concurrency())));
  std::vector<std::future<void>> jobs;
  const int per = (count + workers - 1) / workers;
  for (int begin = 0; begin < count; begin += per)
    jobs.push_back(std::async(std::launch::async, run_range, begin, std::min(count, begin + per)));
  for (auto& j : jobs) j.get();
  return outcomes;
}

MonteCarloResult monte_carlo(const MonteCarloJob& job, int threads) {
  if (job.runs <= 0) return {};
  std::vector<RunOutcome> outcomes = monte_carlo_runs(job, 0, 1, 1);
  if (outcomes[0].finished) {  // else the others would not finish either: not worth their time
    std::vector<RunOutcome> rest = monte_carlo_runs(job, 1, job.runs - 1, threads);
    outcomes.insert(outcomes.end(), rest.begin(), rest.end());
  }
  return summarise_runs(job.problem, std::move(outcomes));
}

MonteCarloResult monte_carlo(const GoodputProblem& problem, const RecoveryModel& recovery, double interval_s, int runs,
                             uint64_t seed, int threads) {
  return monte_carlo(MonteCarloJob{problem, recovery, interval_s, runs, seed}, threads);
}

MonteCarloResult summarise_runs(const GoodputProblem& problem, std::vector<RunOutcome> outcomes) {
  MonteCarloResult result;
  if (outcomes.empty()) return result;
  const int n = int(outcomes.size());
  result.runs = n;
  std::vector<double> walls;
  double sum_sq = 0;
  for (const RunOutcome& o : outcomes) {  // sums first, divided once: exact for identical runs
    result.unfinished += o.finished ? 0 : 1;
    walls.push_back(o.wall_s);
    result.mean_wall_s += o.wall_s;
    sum_sq += o.wall_s * o.wall_s;
    result.mean_compute_s += o.compute_s;
    result.mean_checkpoint_s += o.checkpoint_s;
    result.mean_lost_s += o.lost_s;
    result.mean_restart_s += o.restart_s;
    result.mean_wait_s += o.wait_s;
    result.mean_failures += double(o.failures);
    result.mean_restarts += double(o.restarts);
    result.mean_checkpoints += double(o.checkpoints);
  }
  for (double* mean : {&result.mean_wall_s, &result.mean_compute_s, &result.mean_checkpoint_s, &result.mean_lost_s,
                       &result.mean_restart_s, &result.mean_wait_s, &result.mean_failures, &result.mean_restarts,
                       &result.mean_checkpoints})
    *mean /= n;
  if (n > 1) {
    const double variance = std::max(0.0, (sum_sq - n * result.mean_wall_s * result.mean_wall_s) / (n - 1));
    result.stderr_wall_s = std::sqrt(variance / n);
  }
  std::sort(walls.begin(), walls.end());
  result.p90_wall_s = walls[std::max(0, int(std::ceil(0.9 * n)) - 1)];  // nearest rank
  result.goodput = problem.work_s <= 0 ? 1 : result.mean_wall_s > 0 ? problem.work_s / result.mean_wall_s : 0;
  return result;
}

std::vector<double> sweep_grid(double lowest_s, double highest_s, int count) {
  std::vector<double> intervals_s;
  for (int i = 0; i < count; ++i) {
    const double f = count > 1 ? double(i) / (count - 1) : 0;
    intervals_s.push_back(lowest_s * std::pow(highest_s / lowest_s, f));
  }
  return intervals_s;
}

IntervalSweep interval_sweep_of(const GoodputProblem& problem, const std::vector<double>& intervals_s,
                                const std::vector<MonteCarloResult>& monte_carlo) {
  IntervalSweep sweep;
  const double rate = problem.failure_rate_per_s();
  sweep.young_interval_s = young_interval_s(problem.checkpoint_stall_s, rate);
  sweep.daly_interval_s = daly_interval_s(problem.checkpoint_stall_s, rate);
  sweep.optimal_interval_s = optimal_interval_s(problem);
  if (std::isfinite(sweep.optimal_interval_s) && sweep.optimal_interval_s > 0)
    sweep.optimal_goodput = closed_form_goodput(problem, sweep.optimal_interval_s);
  else
    sweep.optimal_goodput = closed_form_goodput(problem, std::max(problem.work_s, 1e-9));
  for (size_t i = 0; i < intervals_s.size(); ++i) {
    IntervalPoint point;
    point.interval_s = intervals_s[i];
    point.closed_form_goodput = closed_form_goodput(problem, point.interval_s);
    const MonteCarloResult& mc = monte_carlo[i];
    point.monte_carlo_goodput = mc.goodput;
    point.monte_carlo_finished = mc.unfinished == 0 && mc.missing.empty();
    sweep.points.push_back(point);
    if (point.monte_carlo_finished &&
        (sweep.best_monte_carlo < 0 ||
         point.monte_carlo_goodput > sweep.points[sweep.best_monte_carlo].monte_carlo_goodput))
      sweep.best_monte_carlo = int(i);
  }
  return sweep;
}

IntervalSweep sweep_intervals(const GoodputProblem& problem, const RecoveryModel& recovery, double lowest_s,
                              double highest_s, int count, int runs, uint64_t seed, int threads) {
  const std::vector<double> intervals_s = sweep_grid(lowest_s, highest_s, count);
  std::vector<MonteCarloResult> mcs;
  for (double interval_s : intervals_s) mcs.push_back(monte_carlo(problem, recovery, interval_s, runs, seed, threads));
  return interval_sweep_of(problem, intervals_s, mcs);
}

}  // namespace dtsim
