#pragma once
// Monte Carlo over the failure times of whole training runs (the model of goodput_model.hpp),
// with what happens when a failure takes a node out:
//  - wait_for_repair: the job waits until every failed node is back (repair_s after its failure),
//    then restarts;
//  - spare_nodes: a spare from the pool replaces the node (swap_s), then the job restarts; the
//    repaired node joins the pool repair_s after its failure. With the pool empty the job waits
//    for the first repaired node, then swaps it in;
//  - elastic: the job restarts at once without the data-parallel replicas that lost the node
//    (replicas_per_node_failure of them) and runs each iteration dp/(dp − lost) times slower (the
//    same global batch on fewer replicas: the model's assumption, pipeline fill and drain not
//    amortised differently); the repaired node rejoins at the next completed checkpoint, which
//    costs a restart but loses no work (or at once, when the job is restarting anyway). With no
//    replica left the job waits for a repair.
// Failures that do not take a node out (software, switches) only restart the job; during a wait
// (for a repair or a swap) they change nothing. Failures arrive at the same rate whatever the job
// does, and a failure always hits a working node of the job (nodes under repair and the idle
// nodes of a broken replica are not distinguished: a fair approximation while few nodes are out).
// Repairs take exactly repair_s.
//
// Every run draws its failures from its own std::mt19937_64 seeded with (seed, run index), one
// exponential clock per component class, independently of what the job does: the same run sees
// the same failures under every strategy and interval (common random numbers, so that the
// differences between them are not sampling noise), and results do not depend on thread count.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "goodput_model.hpp"

namespace dtsim {

struct RecoveryModel {
  RecoveryStrategy strategy = RecoveryStrategy::spare_nodes;
  double repair_s = 4 * 3600.0;
  int spares = 0;               // spare_nodes: nodes in the pool at the start
  double swap_s = 0;            // spare_nodes: from the failure (or a repaired spare) to the restart
  int dp = 1;                   // elastic: data-parallel replicas of the full job
  int replicas_per_node_failure = 1;  // elastic: replicas a node failure breaks
  bool operator==(const RecoveryModel&) const = default;
};

struct FailureEvent {
  double time_s = 0;  // infinity: no more failures
  int failure_class = -1;  // index into GoodputProblem::failures
};
// Successive failures of one run, in increasing time.
using FailureStream = std::function<FailureEvent()>;

// Where the wall-clock time of one run went; the parts add up to wall_s.
struct RunOutcome {
  bool finished = true;     // false: stopped at the run's limits (see simulate_run)
  double wall_s = 0;
  double compute_s = 0;     // computing work that was kept (elastic: at the slower rate)
  double checkpoint_s = 0;  // writing checkpoints that were kept
  double lost_s = 0;        // computing or checkpointing that a failure threw away
  double restart_s = 0;     // restarting and reloading (interrupted attempts included)
  double wait_s = 0;        // waiting for a repair or a spare
  long failures = 0;        // every failure in the run's wall-clock time
  long restarts = 0;        // recoveries started (after failures, elastic rejoins)
  long checkpoints = 0;
};

// One run. It stops unfinished after max_wall_s of wall-clock time or max_events failures.
RunOutcome simulate_run(const GoodputProblem& problem, const RecoveryModel& recovery, double interval_s,
                        const FailureStream& failures, double max_wall_s, long max_events = 10'000'000);

// The failures of run `run` of a Monte Carlo seeded with `seed`.
FailureStream exponential_failures(const GoodputProblem& problem, uint64_t seed, uint64_t run);

struct MonteCarloResult {
  int runs = 0;
  int unfinished = 0;         // runs stopped at the limits (counted with their wall time so far)
  double mean_wall_s = 0;
  double p90_wall_s = 0;      // 90th percentile
  double stderr_wall_s = 0;   // standard error of the mean
  double goodput = 0;         // W / mean wall (the ratio of expectations, as the closed form's)
  // With unfinished runs, wall-clock times are lower bounds and goodput an upper bound.
  double mean_compute_s = 0, mean_checkpoint_s = 0, mean_lost_s = 0, mean_restart_s = 0, mean_wait_s = 0;
  double mean_failures = 0, mean_restarts = 0, mean_checkpoints = 0;
  // Runs a Slurm task did not deliver, and why (left out of the figures); empty when none.
  std::string missing;
};

// `runs` runs, spread over `threads` (0: hardware concurrency) with std::async. When the first
// run does not finish, the others would not either: only it is run.
MonteCarloResult monte_carlo(const GoodputProblem& problem, const RecoveryModel& recovery, double interval_s, int runs,
                             uint64_t seed, int threads = 0);

// One Monte Carlo as a value: what a Slurm batch runs in shares (sim/batch/slurm_monte_carlo.hpp).
struct MonteCarloJob {
  GoodputProblem problem;
  RecoveryModel recovery;
  double interval_s = 0;
  int runs = 0;
  uint64_t seed = 1;
  bool operator==(const MonteCarloJob&) const = default;
};
MonteCarloResult monte_carlo(const MonteCarloJob& job, int threads = 0);
// Runs [first, first + count) of the job, in order, all of them (a share of a Slurm batch).
std::vector<RunOutcome> monte_carlo_runs(const MonteCarloJob& job, int first, int count, int threads = 0);
// The figures of runs given in run order (all zero for none).
MonteCarloResult summarise_runs(const GoodputProblem& problem, std::vector<RunOutcome> outcomes);

struct IntervalPoint {
  double interval_s = 0;
  double closed_form_goodput = 0;
  double monte_carlo_goodput = 0;
  bool monte_carlo_finished = true;  // every run finished (else the goodput is an upper bound)
};
struct IntervalSweep {
  std::vector<IntervalPoint> points;
  int best_monte_carlo = -1;        // index of the best MC goodput among finished points; -1: none
  double optimal_interval_s = 0;    // closed form's continuous optimum
  double optimal_goodput = 0;       // closed form at it
  double young_interval_s = 0, daly_interval_s = 0;
};

// Goodput over a log grid of `count` intervals from `lowest_s` to `highest_s`, each by the
// closed form and by a Monte Carlo of `runs` runs (the same failures at every interval).
// sweep_grid gives the intervals, interval_sweep_of the sweep from their Monte Carlo results.
std::vector<double> sweep_grid(double lowest_s, double highest_s, int count);
IntervalSweep interval_sweep_of(const GoodputProblem& problem, const std::vector<double>& intervals_s,
                                const std::vector<MonteCarloResult>& monte_carlo);
IntervalSweep sweep_intervals(const GoodputProblem& problem, const RecoveryModel& recovery, double lowest_s,
                              double highest_s, int count, int runs, uint64_t seed, int threads = 0);

}  // namespace dtsim
