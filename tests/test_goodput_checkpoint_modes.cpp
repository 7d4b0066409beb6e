// Asynchronous and in-memory checkpoints (goodput_model.hpp): the windows between safe checkpoints
// by hand, one failure placed by hand, the Monte Carlo against the closed form, the optimum
// interval, and what each mode costs for a scenario (goodput_setup.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "device_spec.hpp"
#include "goodput_model.hpp"
#include "goodput_monte_carlo.hpp"
#include "goodput_setup.hpp"
#include "input_error.hpp"
#include "reliability_config.hpp"
#include "scenario_loader.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Restart-only failures with a cluster MTBF of `mtbf_s` (none when infinite).
GoodputProblem async_problem(double work_s, double stall_s, double persist_s, double recovery_s, double mtbf_s) {
  GoodputProblem p;
  p.work_s = work_s;
  p.checkpoint_stall_s = stall_s;
  p.checkpoint_persist_s = persist_s;
  p.recovery_s = recovery_s;
  p.failures = {{"software", 1, mtbf_s / 3600, false}};
  return p;
}

RecoveryModel restart_only() {
  RecoveryModel r;
  r.strategy = RecoveryStrategy::spare_nodes;
  r.spares = 1'000'000;
  r.swap_s = 0;
  return r;
}

// The failures of a list of times, then none.
FailureStream failures_at(std::vector<double> times) {
  auto next = std::make_shared<size_t>(0);
  return [times, next]() {
    if (*next >= times.size()) return FailureEvent{kInf, -1};
    return FailureEvent{times[(*next)++], 0};
  };
}

// No failures: 10,000 s of work in segments of 3000, 3000, 3000 and 1000 s, a 2 s copy after
// each, the 500 s write of each overlapped by the next segment. Safe checkpoints at 3502
// (3000 + 2 + 500), then 3002, 3002 and 1002 (max(1000, 500) + 2) later: 10,508 s, the work,
// four copies and the last write.
TEST(CheckpointModes, NoFailuresOnlyTheCopiesAndTheLastWriteCost) {
  const GoodputProblem p = async_problem(10000, 2, 500, 600, kInf);
  EXPECT_DOUBLE_EQ(fresh_window_s(p, 3000), 3502);
  EXPECT_DOUBLE_EQ(streaming_window_s(p, 3000), 3002);
  EXPECT_DOUBLE_EQ(streaming_window_s(p, 1000), 1002);
  const ClosedFormRun run = closed_form_run(p, 3000);
  EXPECT_DOUBLE_EQ(run.wall_s, 10508);
  EXPECT_DOUBLE_EQ(run.checkpoint_s, 508);
  const MonteCarloResult mc = monte_carlo(p, restart_only(), 3000, 3, 1);
  EXPECT_DOUBLE_EQ(mc.mean_wall_s, 10508);
  EXPECT_DOUBLE_EQ(mc.mean_checkpoint_s, 508);

  // A write longer than a segment: each copy waits for the previous write. 900 s of work in
  // segments of 300 s, writes of 500 s: the copies end at 302, 804 and 1306 (each 2 s after the
  // previous write ends), the last write at 1806 = 802 + 502 + 502.
  const GoodputProblem slow = async_problem(900, 2, 500, 600, kInf);
  EXPECT_DOUBLE_EQ(closed_form_wall_s(slow, 300), 1806);
  EXPECT_DOUBLE_EQ(monte_carlo(slow, restart_only(), 300, 1, 1).mean_wall_s, 1806);

  // Blocking (P = 0) is the old model: every window is segment + δ.
  const GoodputProblem blocking = async_problem(10000, 120, 0, 600, kInf);
  EXPECT_DOUBLE_EQ(closed_form_wall_s(blocking, 3000), 10000 + 4 * 120);
}

// Three segments of 1000 s, a 10 s copy, a 300 s write, recovery 100 s. The first checkpoint is
// safe at 1000 + 10 + 300 = 1310.
TEST(CheckpointModes, AFailureBeforeTheWriteEndsLosesTheSegmentBefore) {
  const GoodputProblem p = async_problem(3000, 10, 300, 100, 1e9);
  // A failure at 1200: the first checkpoint is not safe yet, the job goes back to the start:
  // 1200 lost, 100 restarting, then 1310 (a fresh window) + 1010 + 1010 = 4630.
  RunOutcome o = simulate_run(p, restart_only(), 1000, failures_at({1200}), 1e9);
  EXPECT_DOUBLE_EQ(o.wall_s, 4630);
  EXPECT_DOUBLE_EQ(o.lost_s, 1200);
  EXPECT_DOUBLE_EQ(o.restart_s, 100);
  EXPECT_DOUBLE_EQ(o.compute_s, 3000);
  EXPECT_DOUBLE_EQ(o.checkpoint_s, 310 + 10 + 10);
  // A failure at 1400, after it is safe: the job resumes from it: 90 s since it was safe lost,
  // 100 restarting, the second segment again in a fresh window (1310), the third in 1010: 3820.
  o = simulate_run(p, restart_only(), 1000, failures_at({1400}), 1e9);
  EXPECT_DOUBLE_EQ(o.wall_s, 3820);
  EXPECT_DOUBLE_EQ(o.lost_s, 90);
  EXPECT_DOUBLE_EQ(o.checkpoint_s, 310 + 310 + 10);
  EXPECT_DOUBLE_EQ(o.compute_s + o.checkpoint_s + o.lost_s + o.restart_s, o.wall_s);
}

// The Monte Carlo converges to the closed form for async checkpoints, with the write shorter and
// longer than a segment, and for the blocking checkpoint they replace.
TEST(CheckpointModes, MonteCarloConvergesToClosedForm) {
  struct Case {
    double stall_s, persist_s, interval_s;
  };
  for (const Case c : {Case{2, 120, 3600}, Case{2, 5000, 3600}, Case{120, 0, 3600}}) {
    const GoodputProblem p = async_problem(30 * 86400.0, c.stall_s, c.persist_s, 600, 4 * 3600.0);
    const ClosedFormRun closed = closed_form_run(p, c.interval_s);
    const MonteCarloResult mc = monte_carlo(p, restart_only(), c.interval_s, 400, 7);
    const std::string label = "δ " + std::to_string(c.stall_s) + ", P " + std::to_string(c.persist_s);
    EXPECT_EQ(mc.unfinished, 0) << label;
    EXPECT_LT(std::abs(mc.mean_wall_s - closed.wall_s), 4 * mc.stderr_wall_s) << label;
    EXPECT_NEAR(mc.mean_lost_s / closed.lost_s, 1.0, 0.03) << label;
    EXPECT_NEAR(mc.mean_restart_s / closed.recovery_s, 1.0, 0.03) << label;
    EXPECT_NEAR(mc.mean_checkpoint_s / closed.checkpoint_s, 1.0, 0.03) << label;
    EXPECT_NEAR(closed.compute_s + closed.checkpoint_s + closed.lost_s + closed.recovery_s, closed.wall_s,
                1e-9 * closed.wall_s);
  }
  // An async checkpoint whose copy takes 2 s instead of a 120 s blocking write: fewer hours lost.
  const GoodputProblem blocking = async_problem(30 * 86400.0, 120, 0, 600, 4 * 3600.0);
  const GoodputProblem async = async_problem(30 * 86400.0, 2, 120, 600, 4 * 3600.0);
  EXPECT_GT(closed_form_goodput(async, optimal_interval_s(async)),
            closed_form_goodput(blocking, optimal_interval_s(blocking)) + 0.02);
}

TEST(CheckpointModes, OptimalIntervalMinimisesTheClosedForm) {
  // Blocking: the formula of Young's order (goodput_model.hpp).
  const GoodputProblem blocking = async_problem(1e8, 50, 0, 300, 10000);
  EXPECT_DOUBLE_EQ(optimal_interval_s(blocking), optimal_interval_s(50, 1e-4));
  // Async: the closed form of a long run is worse 10% either side of it, better than at Young's
  // interval of its stall alone.
  const GoodputProblem async = async_problem(1e8, 2, 300, 300, 10000);
  const double best = optimal_interval_s(async);
  EXPECT_GT(best, 300);  // a write per segment at most
  for (const double other : {best * 0.9, best * 1.1, young_interval_s(2, 1e-4)})
    EXPECT_GT(closed_form_goodput(async, best), closed_form_goodput(async, other)) << other;
}

// What each mode costs for GPT-3 1.3B on 4 DGX H100 (32 GPUs, 8 x 400 Gb/s NICs a node), a 20 GB
// checkpoint written at 5 GB/s (4 s) and read at 16 GB/s (1.25 s), restart 300 s.
TEST(CheckpointModes, SetupPricesEachModeByHand) {
  const auto file = test::data_dir() / "reliability" / "gpt3-1.3b-4-h100.yaml";
  const Scenario s = load_scenario(file);
  ReliabilityConfig c = load_reliability_config(file);
  EXPECT_EQ(c.checkpoint.mode, CheckpointMode::blocking);

  c.checkpoint.mode = CheckpointMode::async;
  GoodputSetup g = make_goodput_setup(s, c, 2.0);
  // 20 GB / 32 GPUs = 625 MB each over PCIe Gen5 at the measured 55.176 GB/s: 11.3 ms; then the
  // 4 s write in the background; a restart reloads from storage.
  EXPECT_NEAR(find_device("h100-sxm")->host_copy_Bps(), 55.176e9, 1e6);
  EXPECT_NEAR(g.problem.checkpoint_stall_s, 0.625e9 / 55.176e9, 1e-6);
  EXPECT_DOUBLE_EQ(g.problem.checkpoint_persist_s, 4);
  EXPECT_DOUBLE_EQ(g.problem.recovery_s, 301.25);

  c.checkpoint.mode = CheckpointMode::in_memory;
  c.checkpoint.host_copy_GBps_per_gpu = 25;
  g = make_goodput_setup(s, c, 2.0);
  // 625 MB at 25 GB/s: 25 ms; 5 GB a node to a peer at 8 x 50 GB/s: 12.5 ms, and back on a restart.
  EXPECT_NEAR(g.problem.checkpoint_stall_s, 0.025, 1e-12);
  EXPECT_NEAR(g.problem.checkpoint_persist_s, 0.0125, 1e-12);
  EXPECT_NEAR(g.problem.recovery_s, 300.0125, 1e-9);
  // An A100's PCIe Gen4 link copies half as fast as the H100's Gen5.
  EXPECT_NEAR(find_device("a100-80gb-sxm")->host_copy_Bps(), 55.176e9 / 2, 1e6);
}

TEST(CheckpointModes, InMemoryNeedsAPeerNode) {
  const auto file = test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml";  // one node
  ReliabilityConfig c = load_reliability_config(file);
  c.checkpoint.mode = CheckpointMode::in_memory;
  try {
    make_goodput_setup(load_scenario(file), c, 0.5);
    FAIL() << "in_memory on one node was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.info().field, "reliability.checkpoint.mode");
    EXPECT_EQ(e.info().found, "in_memory on 1 node(s) of 8 NIC(s)");
  }
}

TEST(CheckpointModes, ModeIsReadFromTheScenarioAndCheckedByName) {
  const auto file = test::data_dir() / "reliability" / "bad-checkpoint-mode.yaml";
  try {
    load_reliability_config(file);
    FAIL() << "an unknown mode was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.info().line, 5);
    EXPECT_EQ(e.info().field, "reliability.checkpoint.mode");
    EXPECT_EQ(e.info().expected, "one of [blocking, async, in_memory]");
    EXPECT_EQ(e.info().found, "'lazy'");
  }
}

}  // namespace
}  // namespace dtsim
