// Micro-batch extrapolation (sim/analysis/micro_batch_extrapolation.hpp): the sample sizes, the affine
// arithmetic by hand, and agreement with a full simulation for every schedule on a layout whose
// pipeline, tensor and data-parallel traffic crosses nodes.
#include <gtest/gtest.h>

#include <cmath>

#include "micro_batch_extrapolation.hpp"
#include "scenario_loader.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

Scenario two_node_pipeline(PipelineScheduleKind schedule, int micro_batches) {
  Scenario s = load_scenario(test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml");
  s.cluster.nodes = 2;
  ParallelismConfig& p = s.parallelism;
  p.tp = 2, p.pp = 4, p.dp = 2;
  p.schedule = schedule;
  p.virtual_stages = schedule == PipelineScheduleKind::interleaved_1f1b ? 2 : 1;
  p.sequence_parallel = true;
  p.overlap_grad_reduce = true;
  p.zero_stage = 1;
  s.training.micro_batch = 1;
  s.training.global_batch = micro_batches * p.dp;
  check_scenario_consistency(s);
  return s;
}

TEST(MicroBatchSamples, PpAndTwicePpWhenThatIsCheaper) {
  const Scenario s = two_node_pipeline(PipelineScheduleKind::one_f_one_b, 24);
  const auto samples = micro_batch_samples(s);
  ASSERT_TRUE(samples);
  EXPECT_EQ(samples->small, 4);
  EXPECT_EQ(samples->large, 8);
  EXPECT_EQ(with_micro_batches(s, 8).training.global_batch, 8 * 2 * 1);
  EXPECT_EQ(with_micro_batches(s, 8).micro_batches_per_replica(), 8);
  // 3 pp = 12 micro-batches or fewer: simulating them all costs no more than the two samples.
  EXPECT_FALSE(micro_batch_samples(two_node_pipeline(PipelineScheduleKind::one_f_one_b, 12)));
}

// T(4) = 10 s and T(8) = 18 s: 2 s per micro-batch, so T(32) = 18 + 24 * 2 = 66 s.
TEST(MicroBatchSamples, ExtrapolatesEveryTimeAffinely) {
  SimulationResult small, large;
  small.engine.iteration_s = 10, large.engine.iteration_s = 18;
  small.engine.ranks = {{.finish_s = 10, .compute_s = 6, .communication_s = 1, .bubble_s = 3,
                         .communication_by_kind = {{"tp", {.total_s = 3, .exposed_s = 1}}}}};
  large.engine.ranks = {{.finish_s = 18, .compute_s = 12, .communication_s = 2, .bubble_s = 4,
                         .communication_by_kind = {{"tp", {.total_s = 5, .exposed_s = 2}}}}};
  small.engine.activities = 100, large.engine.activities = 200;
  const SimulationResult r = extrapolate_micro_batches(small, large, {4, 8}, 32);
  EXPECT_DOUBLE_EQ(r.engine.iteration_s, 66);
  EXPECT_DOUBLE_EQ(r.engine.ranks[0].finish_s, 66);
  EXPECT_DOUBLE_EQ(r.engine.ranks[0].compute_s, 12 + 24 * 1.5);
  EXPECT_DOUBLE_EQ(r.engine.ranks[0].communication_s, 2 + 24 * 0.25);
  EXPECT_DOUBLE_EQ(r.engine.ranks[0].bubble_s, 4 + 24 * 0.25);
  // TP ran 0.5 s more per micro-batch, 0.25 s of it exposed.
  EXPECT_DOUBLE_EQ(r.engine.ranks[0].communication_by_kind.at("tp").total_s, 5 + 24 * 0.5);
  EXPECT_DOUBLE_EQ(r.engine.ranks[0].communication_by_kind.at("tp").exposed_s, 2 + 24 * 0.25);
  EXPECT_EQ(r.engine.activities, 300);
}

class ExtrapolationAgreement : public ::testing::TestWithParam<PipelineScheduleKind> {};

// The steady state repeats once per micro-batch, so the extrapolation from 4 and 8 micro-batches
// equals the simulation of all 24 to rounding (0.1% allowed).
TEST_P(ExtrapolationAgreement, MatchesTheFullSimulation) {
  const Scenario s = two_node_pipeline(GetParam(), 24);
  const double full_s = simulate(s).engine.iteration_s;
  const std::vector<SimulationOutcome> sampled = simulate_many_extrapolated({resolve_scenario(s)}, 2);
  ASSERT_TRUE(sampled[0].result) << sampled[0].error;
  EXPECT_NEAR(sampled[0].result->engine.iteration_s, full_s, 1e-3 * full_s);
}

INSTANTIATE_TEST_SUITE_P(Schedules, ExtrapolationAgreement,
                         ::testing::Values(PipelineScheduleKind::gpipe, PipelineScheduleKind::one_f_one_b,
                                           PipelineScheduleKind::interleaved_1f1b, PipelineScheduleKind::zero_bubble),
                         [](const auto& info) { return std::string(to_string(info.param)) == "1f1b"
                                                           ? std::string("one_f_one_b")
                                                           : std::string(to_string(info.param)); });

}  // namespace
}  // namespace dtsim
