// Failures over a whole training run: the closed form against the Monte Carlo, Young and Daly by
// hand, the failure-free case, the Llama 3 fleet rates, the recovery strategies on a failure
// placed by hand, and the reliability section of a scenario file.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "goodput_model.hpp"
#include "goodput_monte_carlo.hpp"
#include "goodput_setup.hpp"
#include "planner.hpp"
#include "reliability_config.hpp"
#include "scenario_loader.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

constexpr double kHour = 3600, kDay = 86400;

std::filesystem::path reliability_file(const std::string& name) { return test::data_dir() / "reliability" / name; }

// A run of 30 days of compute, checkpoint write 120 s, restart + reload 600 s; failures with
// a cluster MTBF of 4 h, every 3600 s of training a checkpoint. By the closed form each
// segment takes e^{λR} (e^{λ(τ+δ)} − 1)/λ = 1.042547 x 0.294770 x 14400 s = 4425.3 s for 3600 s
// of work: goodput 81.35%.
GoodputProblem four_hour_mtbf_problem(bool node_failures) {
  GoodputProblem p;
  p.work_s = 30 * kDay;
  p.checkpoint_stall_s = 120;
  p.recovery_s = 600;
  p.failures = {{"software", 1, 4.0, false}};
  if (node_failures) p.failures = {{"software", 1, 8.0, false}, {"gpu", 4, 32.0, true}};  // the same 4 h in all
  return p;
}

TEST(Goodput, ClosedFormPerSegmentByHand) {
  const GoodputProblem p = four_hour_mtbf_problem(false);
  EXPECT_NEAR(p.failure_rate_per_s(), 1 / 14400.0, 1e-15);
  const double segment = expected_segment_s(1 / 14400.0, 3720, 600);
  EXPECT_NEAR(segment, std::exp(600 / 14400.0) * std::expm1(3720 / 14400.0) * 14400, 1e-9);
  EXPECT_NEAR(segment, 4425.3, 0.1);
  EXPECT_NEAR(closed_form_wall_s(p, 3600), 720 * segment, 1e-6);
  EXPECT_NEAR(closed_form_goodput(p, 3600), 3600 / segment, 1e-12);
  // Per segment: lost work (e^{λL} − 1)/λ − L = 524.7 s, recovering (e^{λL} − 1)(e^{λR} − 1)/λ = 180.6 s.
  const ClosedFormRun run = closed_form_run(p, 3600);
  EXPECT_NEAR(run.lost_s / 720, std::expm1(3720 / 14400.0) * 14400 - 3720, 1e-6);
  EXPECT_NEAR(run.recovery_s / 720, std::expm1(3720 / 14400.0) * std::expm1(600 / 14400.0) * 14400, 1e-6);
  EXPECT_NEAR(run.compute_s + run.checkpoint_s + run.lost_s + run.recovery_s, run.wall_s, 1e-6);
  // Without failures a segment takes its length.
  EXPECT_DOUBLE_EQ(expected_segment_s(0, 3720, 600), 3720);
}

// Item 6's test: the Monte Carlo goodput converges to the closed form for exponential failures and a
// fixed interval. Two runs of the same model: failures that only restart the job, and a mix with
// node failures whose spares never run out and swap in at no cost (the closed form's assumption).
TEST(Goodput, MonteCarloConvergesToClosedForm) {
  for (const bool node_failures : {false, true}) {
    const GoodputProblem p = four_hour_mtbf_problem(node_failures);
    RecoveryModel recovery;
    recovery.strategy = RecoveryStrategy::spare_nodes;
    recovery.spares = 1'000'000;
    recovery.swap_s = 0;
    const double closed = closed_form_goodput(p, 3600);
    const MonteCarloResult mc = monte_carlo(p, recovery, 3600, 400, 7);
    EXPECT_EQ(mc.unfinished, 0);
    EXPECT_NEAR(closed, 0.8135, 0.0005);
    EXPECT_NEAR(mc.goodput / closed, 1.0, 0.02) << "node failures " << node_failures << ": Monte Carlo " << mc.goodput
                                                << ", closed form " << closed;
    // The mean wall-clock time is within a few standard errors of the expectation as well.
    EXPECT_LT(std::abs(mc.mean_wall_s - closed_form_wall_s(p, 3600)), 4 * mc.stderr_wall_s);
    // Failures in the wall-clock time: λ x E[wall].
    EXPECT_NEAR(mc.mean_failures / (closed_form_wall_s(p, 3600) / 14400), 1.0, 0.02);
    // The parts of the wall-clock time add up.
    EXPECT_NEAR(mc.mean_compute_s + mc.mean_checkpoint_s + mc.mean_lost_s + mc.mean_restart_s + mc.mean_wait_s,
                mc.mean_wall_s, 1e-6 * mc.mean_wall_s);
    EXPECT_NEAR(mc.mean_compute_s, p.work_s, 1e-6 * p.work_s);
    EXPECT_NEAR(mc.mean_checkpoint_s, 720 * 120, 1e-6);
    // Lost work and restarting, against the closed form's breakdown.
    const ClosedFormRun closed_run = closed_form_run(p, 3600);
    EXPECT_NEAR(mc.mean_lost_s / closed_run.lost_s, 1.0, 0.03);
    EXPECT_NEAR(mc.mean_restart_s / closed_run.recovery_s, 1.0, 0.03);
  }
}

TEST(Goodput, MonteCarloIsReproducibleForASeed) {
  const GoodputProblem p = four_hour_mtbf_problem(true);
  RecoveryModel recovery;
  recovery.spares = 2;
  recovery.swap_s = 120;
  const MonteCarloResult a = monte_carlo(p, recovery, 3600, 50, 11, 1);
  const MonteCarloResult b = monte_carlo(p, recovery, 3600, 50, 11, 4);  // other thread count, same runs
  EXPECT_EQ(a.mean_wall_s, b.mean_wall_s);
  EXPECT_EQ(a.p90_wall_s, b.p90_wall_s);
  EXPECT_NE(a.mean_wall_s, monte_carlo(p, recovery, 3600, 50, 12, 1).mean_wall_s);
}

// What a Slurm batch does with a Monte Carlo: its runs computed in shares, anywhere, and summed in
// run order give the figures of the Monte Carlo run here, to the bit.
TEST(Goodput, MonteCarloInSharesIsTheSameMonteCarlo) {
  const MonteCarloJob job{four_hour_mtbf_problem(true), RecoveryModel{}, 3600, 50, 11};
  std::vector<RunOutcome> runs = monte_carlo_runs(job, 0, 30, 1);
  const std::vector<RunOutcome> rest = monte_carlo_runs(job, 30, 20, 3);
  runs.insert(runs.end(), rest.begin(), rest.end());
  const MonteCarloResult shares = summarise_runs(job.problem, runs), here = monte_carlo(job);
  EXPECT_EQ(shares.runs, 50);
  EXPECT_EQ(shares.mean_wall_s, here.mean_wall_s);
  EXPECT_EQ(shares.p90_wall_s, here.p90_wall_s);
  EXPECT_EQ(shares.stderr_wall_s, here.stderr_wall_s);
  EXPECT_EQ(shares.mean_lost_s, here.mean_lost_s);
  EXPECT_EQ(shares.mean_failures, here.mean_failures);
  EXPECT_GT(shares.mean_failures, 0);
  EXPECT_EQ(summarise_runs(job.problem, {}).runs, 0);  // nothing delivered: no figures, no crash
}

TEST(Goodput, YoungAndDalyByHand) {
  // δ = 50 s, M = 10,000 s: Young sqrt(2 x 50 x 10,000) = 1000 s; Daly 1000 − 50 = 950 s.
  EXPECT_DOUBLE_EQ(young_interval_s(50, 1e-4), 1000);
  EXPECT_DOUBLE_EQ(daly_interval_s(50, 1e-4), 950);
  // δ ≥ 2M: Daly prescribes τ = M.
  EXPECT_DOUBLE_EQ(daly_interval_s(30000, 1e-4), 10000);
  // The exact optimum solves (1 − x) e^x = e^{−λδ}, x = λτ.
  const double best = optimal_interval_s(50, 1e-4);
  const double x = best * 1e-4;
  EXPECT_NEAR((1 - x) * std::exp(x), std::exp(-50 * 1e-4), 1e-14);
  // To first order in λδ it is Young's; x² = 2λδ − 2x³/3 + ... shortens it by about 2δ/3 (33.3 s
  // here), more than Daly's first-order δ.
  EXPECT_NEAR(best, 1000 - 2 * 50 / 3.0, 1.0);
  // And it is the best interval of the closed form (a long run, so the remainder does not matter).
  GoodputProblem p;
  p.work_s = 1e4 * best;
  p.checkpoint_stall_s = 50;
  p.recovery_s = 300;
  p.failures = {{"all", 1, 10000 / kHour, false}};
  for (const double other : {best * 0.9, best * 1.1, 1000.0, 950.0})
    EXPECT_GT(closed_form_goodput(p, best), closed_form_goodput(p, other)) << other;
  EXPECT_TRUE(std::isinf(young_interval_s(50, 0)));
}

// No failures: the wall-clock time is the work plus one checkpoint write per segment, exactly.
TEST(Goodput, NoFailuresCostsOnlyCheckpoints) {
  GoodputProblem p;
  p.work_s = 10000;
  p.checkpoint_stall_s = 25;
  p.recovery_s = 600;
  p.failures = failure_classes(ComponentMtbf{kNeverFails, kNeverFails, kNeverFails, kNeverFails, kNeverFails, kNeverFails},
                               64, 64, 12, 8);
  EXPECT_EQ(p.failure_rate_per_s(), 0);
  // τ = 3000 s: segments of 3000, 3000, 3000 and 1000 s, 4 checkpoints: 10,100 s.
  EXPECT_EQ(checkpoint_count(p.work_s, 3000), 4);
  const double expected = 10000.0 / 10100.0;
  EXPECT_DOUBLE_EQ(closed_form_goodput(p, 3000), expected);
  for (const RecoveryStrategy s : {RecoveryStrategy::wait_for_repair, RecoveryStrategy::spare_nodes, RecoveryStrategy::elastic}) {
    RecoveryModel recovery;
    recovery.strategy = s;
    recovery.dp = 8;
    const MonteCarloResult mc = monte_carlo(p, recovery, 3000, 20, 1);
    EXPECT_NEAR(mc.goodput, expected, 1e-12) << to_string(s);
    EXPECT_NEAR(mc.p90_wall_s, 10100, 1e-9);
    EXPECT_EQ(mc.mean_failures, 0);
    EXPECT_EQ(mc.mean_checkpoints, 4);
  }
}

// The default MTBFs give back Table 5 of the Llama 3 paper: 419 unexpected interruptions in 54
// days on 16,384 GPUs (2048 nodes of 8 GPUs and 8 NICs) and 1024 ToR switches.
TEST(Goodput, LlamaThreeDefaultsReproduceTheInterruptionCount) {
  const std::vector<FailureClass> classes = failure_classes(ComponentMtbf{}, 16384, 16384, 1024, 2048);
  const double hours = 54 * 24;
  double total = 0;
  const double expected[] = {196, 72, 7, 35, 46, 63};  // gpu, hbm, nic, switch, host, software
  for (size_t i = 0; i < classes.size(); ++i) {
    EXPECT_NEAR(classes[i].rate_per_s() * hours * kHour, expected[i], 1e-9) << classes[i].name;
    total += classes[i].rate_per_s() * hours * kHour;
  }
  EXPECT_NEAR(total, 419, 1e-9);
  // Per unit, as the comments in reliability_config.hpp state them.
  EXPECT_NEAR(ComponentMtbf{}.gpu_hours, 108335, 1);
  EXPECT_NEAR(ComponentMtbf{}.hbm_hours, 294912, 1);
  EXPECT_NEAR(ComponentMtbf{}.host_hours, 57700, 1);
  // Meta: "one interruption every three hours" (1296 h / 419 = 3.09 h).
  EXPECT_NEAR(1 / (total / (hours * kHour)) / kHour, 3.09, 0.01);
}

TEST(Goodput, SwitchCountFollowsTheFabric) {
  // Spine-leaf, 4 nodes per leaf, 8 spines: 64 nodes have 16 leaves + 8 spines.
  const TopologySpec roce = load_topology(test::source_dir() / "topologies" / "dgx-h100-roce-spine-leaf.yaml");
  EXPECT_EQ(fabric_switch_count(roce, 64), 24);
  // Torus: no switches.
  const TopologySpec torus = load_topology(test::source_dir() / "topologies" / "dgx-h100-torus-3d.yaml");
  EXPECT_EQ(fabric_switch_count(torus, 64), 0);
}

// One node failure at t = 5000 s, placed by hand. W = 10,000 s, τ = 1000 s, δ = 10 s, R = 100 s,
// repair 3600 s, swap 60 s, 4 replicas, one lost per node failure. Four segments of 1010 s end at
// 4040 s; the fifth is lost at 5000 s (960 s of lost work); six segments (6060 s) remain.
struct HandCase {
  GoodputProblem problem;
  RecoveryModel recovery;
  HandCase() {
    problem.work_s = 10000;
    problem.checkpoint_stall_s = 10;
    problem.recovery_s = 100;
    problem.failures = {{"gpu", 1, 1000, true}, {"software", 1, 1000, false}};
    recovery.repair_s = 3600;
    recovery.swap_s = 60;
    recovery.spares = 1;
    recovery.dp = 4;
    recovery.replicas_per_node_failure = 1;
  }
  RunOutcome run(RecoveryStrategy s, std::vector<FailureEvent> events) {
    recovery.strategy = s;
    size_t next = 0;
    const FailureStream stream = [&]() {
      return next < events.size() ? events[next++] : FailureEvent{std::numeric_limits<double>::infinity(), -1};
    };
    return simulate_run(problem, recovery, 1000, stream, 1e9);
  }
};

TEST(Goodput, RecoveryStrategiesOnOneNodeFailureByHand) {
  HandCase c;
  const std::vector<FailureEvent> one_node_failure = {{5000, 0}};
  // wait_for_repair: down until 8600 s, restart to 8700 s, then 6060 s: 14,760 s.
  const RunOutcome wait = c.run(RecoveryStrategy::wait_for_repair, one_node_failure);
  EXPECT_DOUBLE_EQ(wait.wall_s, 14760);
  EXPECT_DOUBLE_EQ(wait.wait_s, 3600);
  // spare_nodes: swap to 5060 s, restart to 5160 s, then 6060 s: 11,220 s.
  const RunOutcome spare = c.run(RecoveryStrategy::spare_nodes, one_node_failure);
  EXPECT_DOUBLE_EQ(spare.wall_s, 11220);
  EXPECT_DOUBLE_EQ(spare.wait_s, 60);
  // elastic: restart to 5100 s on 3 replicas, segments of 1000 x 4/3 + 10 s end at 6443.3, 7786.7
  // and 9130 s; the node, back at 8600 s, rejoins after that checkpoint (restart to 9230 s);
  // three full-speed segments: 12,260 s.
  const RunOutcome elastic = c.run(RecoveryStrategy::elastic, one_node_failure);
  EXPECT_NEAR(elastic.wall_s, 12260, 1e-9);
  EXPECT_EQ(elastic.restarts, 2);
  EXPECT_NEAR(elastic.compute_s, 7000 + 3000 * 4 / 3.0, 1e-9);
  for (const RunOutcome& o : {wait, spare, elastic}) {
    EXPECT_DOUBLE_EQ(o.lost_s, 960);
    EXPECT_EQ(o.failures, 1);
    EXPECT_EQ(o.checkpoints, 10);
    EXPECT_NEAR(o.compute_s + o.checkpoint_s + o.lost_s + o.restart_s + o.wait_s, o.wall_s, 1e-9);
  }
  // spare_nodes with spares is never slower than waiting; elastic lies between here.
  EXPECT_LT(spare.wall_s, elastic.wall_s);
  EXPECT_LT(elastic.wall_s, wait.wall_s);
  // No spare left: the repaired node comes back at 8600 s, is swapped in by 8660 s: 14,820 s.
  c.recovery.spares = 0;
  EXPECT_DOUBLE_EQ(c.run(RecoveryStrategy::spare_nodes, one_node_failure).wall_s, 14820);
  // Elastic with one replica is waiting for the repair.
  c.recovery.dp = 1;
  EXPECT_DOUBLE_EQ(c.run(RecoveryStrategy::elastic, one_node_failure).wall_s, 14760);
}

TEST(Goodput, FailuresDuringRecoveryByHand) {
  HandCase c;
  // A software failure at 5000 s, another at 5050 s during the restart: the restart starts again,
  // ending at 5150 s; 6060 s remain: 11,210 s whatever the strategy.
  const std::vector<FailureEvent> two_software = {{5000, 1}, {5050, 1}};
  for (const RecoveryStrategy s : {RecoveryStrategy::wait_for_repair, RecoveryStrategy::spare_nodes, RecoveryStrategy::elastic}) {
    const RunOutcome o = c.run(s, two_software);
    EXPECT_DOUBLE_EQ(o.wall_s, 11210) << to_string(s);
    EXPECT_DOUBLE_EQ(o.restart_s, 150);
    EXPECT_EQ(o.restarts, 2);
  }
  // While waiting for a repair the job is down: a software failure at 6000 s changes nothing.
  EXPECT_DOUBLE_EQ(c.run(RecoveryStrategy::wait_for_repair, {{5000, 0}, {6000, 1}}).wall_s, 14760);
  // A second node failure at 6000 s during the wait: down until 9600 s, restart, 6060 s: 15,760 s.
  EXPECT_DOUBLE_EQ(c.run(RecoveryStrategy::wait_for_repair, {{5000, 0}, {6000, 0}}).wall_s, 15760);
}

TEST(Goodput, MonteCarloOrdersTheStrategies) {
  // 64 nodes, a node failure every 10 h in the cluster, repairs of 8 h, 4 spares swapped in 2 min,
  // 64 replicas: spares beat waiting by far, and elastic (1/64 slower for a few hours) is close to spares.
  GoodputProblem p;
  p.work_s = 20 * kDay;
  p.checkpoint_stall_s = 30;
  p.recovery_s = 300;
  p.failures = {{"host", 64, 640, true}};
  RecoveryModel r;
  r.repair_s = 8 * kHour;
  r.spares = 4;
  r.swap_s = 120;
  r.dp = 64;
  r.replicas_per_node_failure = 1;
  auto goodput = [&](RecoveryStrategy s) {
    r.strategy = s;
    return monte_carlo(p, r, 1800, 200, 3).goodput;
  };
  const double wait = goodput(RecoveryStrategy::wait_for_repair), spare = goodput(RecoveryStrategy::spare_nodes),
               elastic = goodput(RecoveryStrategy::elastic);
  EXPECT_GT(spare, wait);
  EXPECT_GT(elastic, wait);
  // Waiting costs about the repair per failure: 48 failures x 8 h against 480 h of work.
  EXPECT_LT(wait, 0.6);
  EXPECT_GT(spare, 0.9);
}

TEST(ReliabilityConfig, ReadsEveryField) {
  const ReliabilityConfig c = load_reliability_config(reliability_file("gpt3-1.3b-4-h100.yaml"));
  EXPECT_EQ(c.mtbf.gpu_hours, 2000);
  EXPECT_EQ(c.mtbf.hbm_hours, 5000);
  EXPECT_TRUE(std::isinf(c.mtbf.nic_hours));
  EXPECT_EQ(c.mtbf.switch_hours, 10000);
  EXPECT_EQ(c.mtbf.host_hours, 3000);
  EXPECT_EQ(c.mtbf.software_hours, 4000);
  EXPECT_EQ(c.checkpoint.interval_s, 900);
  EXPECT_EQ(c.checkpoint.size_bytes, 2e10);
  EXPECT_EQ(c.checkpoint.write_GBps_per_node, 2);
  EXPECT_EQ(c.checkpoint.read_GBps_per_node, 4);
  EXPECT_EQ(c.checkpoint.storage_write_GBps, 5);
  EXPECT_EQ(c.checkpoint.storage_read_GBps, 100);
  EXPECT_EQ(c.checkpoint.restart_s, 300);
  EXPECT_EQ(c.recovery.strategy, RecoveryStrategy::elastic);
  EXPECT_EQ(c.recovery.repair_hours, 6);
  EXPECT_EQ(c.recovery.spares, 1);
  EXPECT_EQ(c.recovery.swap_s, 60);
  EXPECT_EQ(c.training.days, 20);
  EXPECT_FALSE(c.training.iterations);

  // The scenario loader accepts the section, and the setup turns it into costs: 4 nodes write at
  // min(4 x 2, 5) = 5 GB/s (δ = 20 GB / 5 GB/s = 4 s) and read at min(4 x 4, 100) = 16 GB/s
  // (1.25 s); R = 300 + 1.25 s. 32 GPUs, 32 NICs, 4 hosts; pure data parallelism: a node holds 8 replicas.
  const Scenario s = load_scenario(reliability_file("gpt3-1.3b-4-h100.yaml"));
  const GoodputSetup g = make_goodput_setup(s, c, 2.0);
  EXPECT_DOUBLE_EQ(g.write_s, 4);
  EXPECT_DOUBLE_EQ(g.reload_s, 1.25);
  EXPECT_DOUBLE_EQ(g.problem.recovery_s, 301.25);
  EXPECT_DOUBLE_EQ(g.iterations, 20 * kDay / 2.0);
  EXPECT_DOUBLE_EQ(g.problem.work_s, 20 * kDay);
  EXPECT_EQ(g.interval_s, 900);
  EXPECT_EQ(g.recovery.replicas_per_node_failure, 8);
  EXPECT_EQ(g.recovery.dp, 32);
  // λ = 32/2000 + 32/5000 + switches/10000 + 4/3000 + 4/4000 per hour.
  const double rate_per_hour = 32 / 2000.0 + 32 / 5000.0 + double(g.switches) / 10000 + 4 / 3000.0 + 4 / 4000.0;
  EXPECT_NEAR(g.problem.failure_rate_per_s() * kHour, rate_per_hour, 1e-12);
}

TEST(ReliabilityConfig, DefaultsWithoutASection) {
  const auto file = test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml";
  const ReliabilityConfig c = load_reliability_config(file);
  EXPECT_FALSE(c.checkpoint.interval_s);
  EXPECT_EQ(c.recovery.strategy, RecoveryStrategy::spare_nodes);
  const Scenario s = load_scenario(file);
  const GoodputSetup g = make_goodput_setup(s, c, 0.5);
  // 14 B per parameter (bf16 weights, fp32 master weights, two fp32 Adam moments).
  EXPECT_DOUBLE_EQ(g.checkpoint_bytes, 14.0 * double(parameter_count(s.model)));
  // One node: min(1 x 10 GB/s, 2000 GB/s).
  EXPECT_DOUBLE_EQ(g.write_s, g.checkpoint_bytes / 10e9);
  EXPECT_DOUBLE_EQ(g.problem.recovery_s, 600 + g.checkpoint_bytes / 10e9);
  // 20 tokens per parameter, 256 x 2048 tokens per iteration.
  EXPECT_DOUBLE_EQ(g.iterations, std::ceil(20.0 * double(parameter_count(s.model)) / (256.0 * 2048)));
  EXPECT_EQ(g.recovery.spares, 1);
  EXPECT_EQ(g.recovery.repair_s, 4 * kHour);
  // auto: the closed-form optimum in whole iterations of 0.5 s.
  EXPECT_TRUE(g.interval_auto);
  const double best = optimal_interval_s(g.write_s, g.problem.failure_rate_per_s());
  EXPECT_NEAR(g.interval_s, best, 0.25 + 1e-9);
  EXPECT_DOUBLE_EQ(std::fmod(g.interval_s, 0.5), 0);
  // One node holds all 8 replicas: elastic has nothing to continue with.
  EXPECT_EQ(g.recovery.replicas_per_node_failure, 8);
}

// A layer-graph model trains on samples: 10 ImageNet epochs (12,811,670 images) at 1024 images
// per iteration, a checkpoint of fp32 weights and SGD's momentum (8 B per parameter); without a
// length, 90 epochs. Neither crashes on the transformer's tokens per iteration, which it has none of.
TEST(ReliabilityConfig, ALayerModelTrainsOnSamples) {
  const auto file = reliability_file("resnet50-samples.yaml");
  const Scenario s = load_scenario(file);
  ReliabilityConfig c = load_reliability_config(file);
  ASSERT_TRUE(c.training.samples);
  GoodputSetup g = make_goodput_setup(s, c, 0.1);
  EXPECT_EQ(g.unit, "image");
  EXPECT_EQ(g.units_per_iteration, 1024);
  EXPECT_EQ(g.iterations, std::ceil(12'811'670 / 1024.0));  // 12,512
  EXPECT_DOUBLE_EQ(g.parameters, s.layer_model->graph.parameters());
  EXPECT_DOUBLE_EQ(g.checkpoint_bytes, 8 * g.parameters);
  c.training = {};
  g = make_goodput_setup(s, c, 0.1);
  EXPECT_EQ(g.iterations, std::ceil(90 * 1'281'167 / 1024.0));

  const test::CliResult tokens = test::run_dtsim("goodput " + file.string() + " --tokens 1e9 --runs 10");
  EXPECT_EQ(tokens.exit_code, 2) << tokens.output;
  EXPECT_NE(tokens.output.find("field '--tokens': expected --samples: this scenario's model counts in images"),
            std::string::npos)
      << tokens.output;
  const test::CliResult run = test::run_dtsim("goodput " + file.string() + " --runs 10 --sweep-points 0");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("12512 iterations (1.281e+07 images / 1024 images per iteration)"), std::string::npos)
      << run.output;
}

InputErrorInfo reliability_error(const std::string& name) {
  return test::error_of([&] { load_reliability_config(reliability_file(name)); });
}

TEST(ReliabilityConfig, BadInputNamesTheField) {
  InputErrorInfo e = reliability_error("bad-interval.yaml");
  EXPECT_EQ(e.line, 7);
  EXPECT_EQ(e.field, "reliability.checkpoint.interval_s");
  EXPECT_EQ(e.expected, "a number > 0 or 'auto'");
  EXPECT_EQ(e.found, "'soon'");
  EXPECT_NE(e.file.find("bad-interval.yaml"), std::string::npos);

  e = reliability_error("bad-strategy.yaml");
  EXPECT_EQ(e.line, 5);
  EXPECT_EQ(e.field, "reliability.recovery.strategy");
  EXPECT_EQ(e.expected, "one of [wait_for_repair, spare_nodes, elastic]");
  EXPECT_EQ(e.found, "'pray'");

  e = reliability_error("bad-unknown-component.yaml");
  EXPECT_EQ(e.line, 6);
  EXPECT_EQ(e.field, "reliability.mtbf_hours.tpu");
  EXPECT_EQ(e.found, "unknown key 'tpu'");

  e = reliability_error("bad-two-lengths.yaml");
  EXPECT_EQ(e.line, 6);
  EXPECT_EQ(e.field, "reliability.training.days");
  EXPECT_EQ(e.expected, "only one of iterations, tokens, samples, days");
  EXPECT_EQ(e.found, "both 'iterations' and 'days'");

  e = reliability_error("bad-tokens-on-layer-model.yaml");
  EXPECT_EQ(e.line, 6);
  EXPECT_EQ(e.field, "reliability.training.tokens");
  EXPECT_EQ(e.expected, "samples, iterations or days: the model is a layer graph, counted in samples");

  e = reliability_error("bad-negative-mtbf.yaml");
  EXPECT_EQ(e.line, 5);
  EXPECT_EQ(e.field, "reliability.mtbf_hours.host");
  EXPECT_EQ(e.expected, "a number > 0 or 'never'");
  EXPECT_EQ(e.found, "'-5'");
}

TEST(ReliabilityConfig, CommandReportsBadSectionWithExitCode2) {
  const test::CliResult r = test::run_dtsim("goodput " + reliability_file("bad-scenario-section.yaml").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bad-scenario-section.yaml:20: field 'reliability.recovery.spares': expected an integer >= 0, "
                          "found 'two'"),
            std::string::npos)
      << r.output;
  const test::CliResult flag = test::run_dtsim("goodput --strategy hope");
  EXPECT_EQ(flag.exit_code, 2) << flag.output;
  EXPECT_NE(flag.output.find("--strategy"), std::string::npos) << flag.output;
}

TEST(ReliabilityConfig, CommandPrintsTheComparison) {
  const test::CliResult r =
      test::run_dtsim("goodput " + reliability_file("gpt3-1.3b-4-h100.yaml").string() + " --runs 40 --sweep-points 5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* text : {"iteration", "failure rates", "gpu", "software", "Young", "Daly", "wait_for_repair",
                           "spare_nodes", "elastic", "goodput %", "interval sweep (elastic", "best interval"})
    EXPECT_NE(r.output.find(text), std::string::npos) << text << "\n" << r.output;
  // The MTBF of the file: a GPU every 2000 h.
  EXPECT_NE(r.output.find("2000"), std::string::npos) << r.output;
}

// Goodput multiplies into GPU-hours, cost and energy: the cluster is held and powered for the
// whole wall-clock time. 32 H100 on 4 DGX H100 (10.2 kW each) at PUE 1.3: 53.04 kW.
TEST(ReliabilityConfig, WallClockTimeBecomesGpuHoursCostAndEnergy) {
  test::ScratchDir dir;
  const std::string json_file = (dir.path() / "g.json").string();
  const test::CliResult r = test::run_dtsim("goodput " + reliability_file("gpt3-1.3b-4-h100.yaml").string() +
                                            " --runs 40 --sweep-points 0 --usd-per-gpu-hour 3 --json " + json_file);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cost $ at $3.00/GPU-h"), std::string::npos) << r.output;
  std::ifstream in(json_file);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_DOUBLE_EQ(j.at("cost_inputs").at("facility_power_w").get<double>(), 4 * 10200 * 1.3);
  for (const auto& [strategy, mc] : j.at("monte_carlo").items()) {
    const double wall_h = mc.at("mean_wall_s").get<double>() / 3600;
    EXPECT_NEAR(mc.at("gpu_hours").get<double>(), wall_h * 32, 1e-6) << strategy;
    EXPECT_NEAR(mc.at("cost_usd").get<double>(), wall_h * 32 * 3, 1e-6) << strategy;
    EXPECT_NEAR(mc.at("energy_mwh").get<double>(), wall_h * 4 * 10200 * 1.3 / 1e6, 1e-9) << strategy;
  }
}

// `goodput --model M --gpu G --gpus N` needs no scenario file: it takes the best layout plan
// finds (one simulated finalist) and the reliability defaults.
TEST(ReliabilityConfig, GoodputOfAPlannedLayout) {
  PlanRequest request;
  request.model = *find_model_preset("gpt3-1.3b");
  request.gpu = "h100-sxm";
  request.gpu_counts = {16};
  request.topology_file = test::source_dir() / "topologies" / "dgx-h100-ndr-fattree.yaml";
  request.global_batch = 64;
  request.finalists = 1;
  const PlanResult plan = plan_layouts(request);
  ASSERT_FALSE(plan.rows.empty());
  const test::CliResult r = test::run_dtsim(
      "goodput --model gpt3-1.3b --gpu h100-sxm --gpus 16 --global-batch 64 --tokens 1e9 --runs 10 --sweep-points 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("layout       planned: " + layout_label(plan.rows[0])), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("on 16 h100-sxm (2 nodes"), std::string::npos) << r.output;
  const test::CliResult both = test::run_dtsim("goodput " + reliability_file("gpt3-1.3b-4-h100.yaml").string() +
                                               " --gpus 16");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.output.find("field '--model'"), std::string::npos) << both.output;
}

// goodput --sweep: the scenario's own value reproduces the main Monte Carlo (same seed, same
// failures); a longer restart, slower storage or twice as frequent failures (every MTBF halved)
// lower the goodput.
TEST(ReliabilityConfig, SweepOfStorageRestartOrFailureRates) {
  test::ScratchDir dir;
  const std::string json_file = (dir.path() / "g.json").string();
  const std::string file = reliability_file("gpt3-1.3b-4-h100.yaml").string();
  ASSERT_EQ(load_reliability_config(file).checkpoint.restart_s, 300);  // the file's
  const test::CliResult r = test::run_dtsim("goodput " + file + " --runs 200 --sweep-points 0 --strategy spare_nodes "
                                            "--sweep restart_s=300,3000 --json " + json_file);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(json_file);
  const nlohmann::json j = nlohmann::json::parse(in);
  const nlohmann::json& points = j.at("what_if_sweep").at("points");
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].at("goodput").get<double>(), j.at("monte_carlo").at("spare_nodes").at("goodput").get<double>());
  EXPECT_EQ(points[0].at("mean_wall_s").get<double>(),
            j.at("monte_carlo").at("spare_nodes").at("mean_wall_s").get<double>());
  EXPECT_LT(points[1].at("goodput").get<double>(), points[0].at("goodput").get<double>());

  // The sweep's goodput at its two values.
  const auto goodputs = [&](const std::string& sweep) {
    const test::CliResult c = test::run_dtsim("goodput " + file + " --runs 200 --sweep-points 0 --strategy spare_nodes "
                                              "--sweep " + sweep + " --json " + json_file);
    EXPECT_EQ(c.exit_code, 0) << c.output;
    std::ifstream in(json_file);
    const nlohmann::json points = nlohmann::json::parse(in).at("what_if_sweep").at("points");
    return std::pair{points[0].at("goodput").get<double>(), points[1].at("goodput").get<double>()};
  };
  const auto [fast_storage, slow_storage] = goodputs("storage_GBps=100,1");
  EXPECT_LT(slow_storage, fast_storage);
  const auto [half_mtbf, same_mtbf] = goodputs("mtbf_scale=0.5,1");
  EXPECT_LT(half_mtbf, same_mtbf);
  EXPECT_EQ(test::run_dtsim("goodput " + file + " --sweep speed=1").exit_code, 2);
}

}  // namespace
}  // namespace dtsim
