// Whole-iteration checks on scenarios: a single GPU's step is the sum of its operator times,
// and a straggler slows a synchronous data-parallel job's compute by its factor.
#include <gtest/gtest.h>

#include "device_spec.hpp"
#include "launch_model.hpp"
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

// One GPU, two micro-batches: the step is each pass's kernels with what launching them adds
// (launch_model.hpp), the layers' once per layer, twice, then the optimizer step and the step's
// start and end; its tensor cores at the clock their share of the passes leaves an H100 at its
// power limit (DeviceSpec::tensor_clock).
double passes_s(const Scenario& s, const ComputeModel& cm, KernelClassTimes* classes = nullptr) {
  const RankShape r = rank_shape(s);
  const double host_s = host_launch_s(s.training);
  KernelClassTimes t = launched_pass(layer_forward_ops(r), cm, host_s, s.model.layers);
  t += launched_pass(embedding_forward_ops(r), cm, host_s);
  t += launched_pass(logits_forward_ops(r), cm, host_s);
  t += launched_pass(layer_backward_ops(r), cm, host_s, s.model.layers);
  t += launched_pass(embedding_backward_ops(r), cm, host_s);
  t += launched_pass(logits_backward_ops(r), cm, host_s);
  if (classes) *classes = t;
  return t.total_s();
}

TEST(Iteration, SingleGpuStepIsTheSumOfItsLaunchedPasses) {
  const Scenario s = single_gpu_scenario();
  const DeviceSpec& h100 = *find_device("h100-sxm");
  const ComputeModel in_step(h100, Precision::bf16, default_efficiencies(h100));
  KernelClassTimes t;
  passes_s(s, in_step, &t);
  const double share = (t[OperatorKind::gemm] + t[OperatorKind::attention_gemm]) / t.total_s();
  ASSERT_GT(share, kInStepTensorShare);
  const ComputeModel cm = in_step.with_tensor_clock(h100.tensor_clock(share));
  const double params = stage_parameters_per_rank(s, 0).total();
  const std::vector<Operator> optimizer = optimizer_step_ops(s, stage_parameter_tensors(s, 0, params));
  const double optimizer_s = launched_pass(optimizer, cm, host_launch_s(s.training)).total_s() + kEagerStepOverheadS;
  const double expected = 2 * passes_s(s, cm) + optimizer_s;

  const SimulationResult result = simulate(s);
  EXPECT_NEAR(result.engine.iteration_s, expected, 1e-6 * expected);
  const Report report = make_report(resolve_scenario(s), result);
  EXPECT_NEAR(report.mean_breakdown.compute_s, expected, 1e-6 * expected);
  EXPECT_NEAR(report.compute_classes.total_s(), expected, 1e-6 * expected);
  EXPECT_NEAR(report.tokens_per_s, 4 * 2048 / expected, 1e-6 * 4 * 2048 / expected);
}

// The H100's tensor rate in a step: as measured inside the traced steps up to their largest share
// of matmuls and attention (0.59), 0.81 of it when they fill the GPU (a GEMM back to back), linear in
// between. The A100 was never measured: no change.
TEST(Iteration, APowerLimitedH100SlowsItsTensorCoresWithTheirShareOfTheWork) {
  const DeviceSpec& h100 = *find_device("h100-sxm");
  EXPECT_DOUBLE_EQ(h100.tensor_clock(0.3), 1.0);
  EXPECT_DOUBLE_EQ(h100.tensor_clock(0.59), 1.0);
  EXPECT_NEAR(h100.tensor_clock(0.795), 1 - 0.5 * 0.19, 1e-12);
  EXPECT_NEAR(h100.tensor_clock(1.0), 0.81, 1e-12);
  EXPECT_DOUBLE_EQ(find_device("a100-80gb-sxm")->tensor_clock(1.0), 1.0);
}

// Full recompute adds the forward's launched pass to each backward; the recomputed forward adds
// tensor work, so each run's tensor clock follows from its own share (as above).
TEST(Iteration, RecomputeAddsItsOperatorsToTheBackwardPass) {
  Scenario s = single_gpu_scenario();
  const double base_s = simulate(s).engine.iteration_s;
  s.training.recompute = Recompute::full;
  const double full_s = simulate(s).engine.iteration_s;

  const DeviceSpec& h100 = *find_device("h100-sxm");
  const ComputeModel in_step(h100, Precision::bf16, default_efficiencies(h100));
  const double host_s = host_launch_s(s.training);
  const double params = stage_parameters_per_rank(s, 0).total();
  const auto recompute = [&](const ComputeModel& cm) {
    return launched_pass(layer_forward_ops(rank_shape(s)), cm, host_s, s.model.layers);
  };
  const auto step_s = [&](bool with_recompute) {
    KernelClassTimes t;
    passes_s(s, in_step, &t);
    if (with_recompute) t += recompute(in_step);
    const double share = (t[OperatorKind::gemm] + t[OperatorKind::attention_gemm]) / t.total_s();
    const ComputeModel cm = in_step.with_tensor_clock(h100.tensor_clock(share));
    return 2 * (passes_s(s, cm) + (with_recompute ? recompute(cm).total_s() : 0.0)) +
           launched_pass(optimizer_step_ops(s, stage_parameter_tensors(s, 0, params)), cm, host_s).total_s() +
           kEagerStepOverheadS;
  };
  EXPECT_NEAR(base_s, step_s(false), 1e-6 * base_s);
  EXPECT_NEAR(full_s, step_s(true), 1e-6 * full_s);
  EXPECT_GT(full_s - base_s, 2 * recompute(in_step).kernels_s());
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
