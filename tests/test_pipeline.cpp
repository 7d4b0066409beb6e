// 1F1B pipeline: the order of passes, and a bubble fraction of (p-1)/(m+p-1) when stages are equal.
#include <gtest/gtest.h>

#include "pipeline_schedule.hpp"
#include "simulation.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

TEST(OneFOneB, StageRunsWarmupSteadyAndDrain) {
  // Stage 1 of 4 with 6 micro-batches: 2 warm-up forwards, 4 (F, B) pairs, 2 drain backwards.
  const std::vector<PipelineStep> steps = one_f_one_b(1, 4, 6);
  std::string order;
  for (const PipelineStep& s : steps) {
    order += s.is_forward() ? 'F' : 'B';
    order += std::to_string(s.micro_batch);
    order += ' ';
  }
  EXPECT_EQ(order, "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 B4 B5 ");
}

TEST(OneFOneB, LastStageAlternatesFromTheStart) {
  const std::vector<PipelineStep> steps = one_f_one_b(3, 4, 2);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_TRUE(steps[0].is_forward());
  EXPECT_FALSE(steps[1].is_forward());
}

TEST(OneFOneB, FewerMicroBatchesThanStagesStillRunsEveryPass) {
  const std::vector<PipelineStep> steps = one_f_one_b(0, 8, 3);
  EXPECT_EQ(steps.size(), 6u);
}

struct BubbleCase {
  int stages, micro_batches;
};

class BubbleFraction : public ::testing::TestWithParam<BubbleCase> {};

TEST_P(BubbleFraction, EqualStagesGiveTheTextbookBubble) {
  const auto [p, m] = GetParam();
  const double forward_s = 0.010, backward_s = 0.020;  // backward twice the forward, as for matmuls
  ParallelismConfig par;
  par.pp = p;
  WorkloadInputs in = test::empty_inputs(p, m);
  for (int s = 0; s < p; ++s) {
    in.forward[s].compute_s = forward_s;
    in.backward[s].compute_s = backward_s;
  }
  in.p2p_bytes = 1;  // links of pipeline-8-fast make this take no measurable time
  const SimulationResult r =
      simulate_workload(test::test_topology("pipeline-8-fast"), 1, test::kSpeed, assemble_workload(par, in), {});

  const double expected_iteration = (m + p - 1) * (forward_s + backward_s);
  EXPECT_NEAR(r.engine.iteration_s, expected_iteration, 0.01 * expected_iteration);
  const double expected_fraction = double(p - 1) / (m + p - 1);
  for (size_t rank = 0; rank < r.engine.ranks.size(); ++rank) {
    const RankTimes& t = r.engine.ranks[rank];
    // Waiting for neighbours plus draining at the end is the bubble of this stage.
    const double bubble = t.bubble_s + (r.engine.iteration_s - t.finish_s);
    EXPECT_NEAR(bubble / r.engine.iteration_s, expected_fraction, 0.01 * expected_fraction) << "stage " << rank;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, BubbleFraction,
                         ::testing::Values(BubbleCase{4, 8}, BubbleCase{8, 16}, BubbleCase{2, 1}, BubbleCase{8, 64}));

}  // namespace
}  // namespace dtsim
