// Whole-iteration checks on scenarios: a single GPU's step is the sum of its operator times,
// and a straggler slows a synchronous data-parallel job's compute by its factor.
#include <gtest/gtest.h>

#include "device_spec.hpp"
#include "report.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "test_support.hpp"
#include "stage_layout.hpp"
#include "transformer_ops.hpp"

namespace dtsim {
namespace {

Scenario single_gpu_scenario() {
  Scenario s;
  s.name = "single-gpu";
  s.model = *find_model_preset("gpt3-1.3b");
  s.training.global_batch = 4;
  s.training.micro_batch = 2;
  s.cluster.gpu = "h100-sxm";
  s.cluster.nodes = 1;
  s.cluster.topology = test::test_topology("one-gpu");
  check_scenario_consistency(s);
  return s;
}

TEST(Iteration, SingleGpuStepIsTheSumOfItsOperatorTimes) {
  const Scenario s = single_gpu_scenario();
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  const RankShape r = rank_shape(s);
  double per_micro_batch_s = 0;
  for (const auto& ops : {layer_forward_ops(r), layer_backward_ops(r)})
    for (const Operator& op : ops) per_micro_batch_s += s.model.layers * cm.time_s(op);
  for (const auto& ops : {embedding_forward_ops(r), embedding_backward_ops(r), logits_forward_ops(r),
                          logits_backward_ops(r)})
    for (const Operator& op : ops) per_micro_batch_s += cm.time_s(op);
  const double params = stage_parameters_per_rank(s, 0).total();
  const double optimizer_bytes = params * optimizer_bytes_per_parameter(Precision::bf16, OptimizerKernels::fused);
  const double optimizer_s = optimizer_bytes / (3350e9 * 0.85);
  const double expected = 2 * per_micro_batch_s + optimizer_s;

  const SimulationResult result = simulate(s);
  EXPECT_NEAR(result.engine.iteration_s, expected, 1e-6 * expected);
  const Report report = make_report(resolve_scenario(s), result);
  EXPECT_NEAR(report.mean_breakdown.compute_s, expected, 1e-6 * expected);
  EXPECT_NEAR(report.tokens_per_s, 4 * 2048 / expected, 1e-6 * 4 * 2048 / expected);
}

TEST(Iteration, RecomputeAddsItsOperatorsToTheBackwardPass) {
  Scenario s = single_gpu_scenario();
  const double base_s = simulate(s).engine.iteration_s;
  s.training.recompute = Recompute::full;
  const double full_s = simulate(s).engine.iteration_s;
  const ComputeModel cm(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  double forward_layer_s = 0;
  for (const Operator& op : layer_forward_ops(rank_shape(s))) forward_layer_s += cm.time_s(op);
  const double expected_extra = 2 * s.model.layers * forward_layer_s;  // 2 micro-batches
  EXPECT_NEAR(full_s - base_s, expected_extra, 1e-6 * full_s);
}

class Straggler : public ::testing::TestWithParam<double> {};

TEST_P(Straggler, LengthensTheComputePhaseOfASynchronousDataParallelJobByItsFactor) {
  const double k = GetParam();
  Scenario s = load_scenario(test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml");
  s.events.clear();
  const SimulationResult healthy = simulate(s);
  s.events.push_back(StragglerEvent{3, k});
  const SimulationResult slowed = simulate(s);

  const double compute_s = healthy.engine.ranks[3].compute_s;
  EXPECT_NEAR(slowed.engine.ranks[3].compute_s, k * compute_s, 1e-6 * k * compute_s);
  // The other ranks compute as fast as before and wait for the straggler in the all-reduce.
  EXPECT_NEAR(slowed.engine.ranks[0].compute_s, compute_s, 1e-6 * compute_s);
  // Compute (forward, backward, optimizer) and the all-reduce are sequential: only the compute
  // phase stretches, by k.
  const double expected = healthy.engine.iteration_s + (k - 1) * compute_s;
  EXPECT_NEAR(slowed.engine.iteration_s, expected, 1e-4 * expected);
}

INSTANTIATE_TEST_SUITE_P(Factors, Straggler, ::testing::Values(1.25, 2.0));

}  // namespace
}  // namespace dtsim
