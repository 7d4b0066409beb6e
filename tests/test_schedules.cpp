// Pipeline schedules: each one's bubble against its published formula, simulated by the engine
// on a pipeline whose links take no measurable time.
#include <gtest/gtest.h>

#include "pipeline_schedule.hpp"
#include "simulation.hpp"
#include "test_support.hpp"
#include "workload_builder.hpp"

namespace dtsim {
namespace {

struct Timing {
  double forward_s = 0.010, backward_s = 0.020, weight_s = 0.0;  // weight_s: W part of backward_s
};

SimulationResult simulate_schedule(const ParallelismConfig& par, int m, const Timing& t) {
  const int chunks = par.pp * par.virtual_stages;
  WorkloadInputs in = test::empty_inputs(chunks, m);
  in.gradient_bytes.assign(par.pp, 0.0);
  in.optimizer_s.assign(par.pp, 0.0);
  in.backward_weight.assign(chunks, StagePass{});
  for (int c = 0; c < chunks; ++c) {
    in.forward[c].compute_s = t.forward_s / par.virtual_stages;
    in.backward[c].compute_s = t.backward_s / par.virtual_stages;
    in.backward_weight[c].compute_s = t.weight_s / par.virtual_stages;
  }
  in.p2p_bytes = 1;
  return simulate_workload(test::test_topology("pipeline-8-fast"), 1, test::kSpeed, assemble_workload(par, in), {});
}

ParallelismConfig pipeline(int p, PipelineScheduleKind kind, int v = 1) {
  ParallelismConfig par;
  par.pp = p;
  par.schedule = kind;
  par.virtual_stages = v;
  return par;
}

// GPipe and 1F1B share the bubble (p-1)/(m+p-1): iteration (m + p - 1)(T_F + T_B).
TEST(Schedules, GpipeHasTheOneFOneBBubble) {
  for (const auto& [p, m] : {std::pair{4, 8}, std::pair{8, 16}, std::pair{2, 1}}) {
    const Timing t;
    const SimulationResult r = simulate_schedule(pipeline(p, PipelineScheduleKind::gpipe), m, t);
    const double expected = (m + p - 1) * (t.forward_s + t.backward_s);
    EXPECT_NEAR(r.engine.iteration_s, expected, 1e-3 * expected) << "p " << p << " m " << m;
  }
}

// Megatron-LM (Narayanan et al. SC21, Sec. 2.2.2): with v chunks per GPU the bubble shrinks by v:
// iteration m (T_F + T_B) (1 + (p - 1) / (v m)).
TEST(Schedules, InterleavedBubbleShrinksByVirtualStages) {
  for (int p : {2, 4, 8})
    for (int v : {2, 3})
      for (int m : {p, 2 * p, 4 * p}) {
        const Timing t;
        const SimulationResult r =
            simulate_schedule(pipeline(p, PipelineScheduleKind::interleaved_1f1b, v), m, t);
        const double ideal = m * (t.forward_s + t.backward_s);
        const double expected = ideal * (1 + double(p - 1) / (v * m));
        EXPECT_NEAR(r.engine.iteration_s, expected, 1e-3 * expected) << "p " << p << " v " << v << " m " << m;
      }
}

// ZB-H1 (Qi et al. 2024, Sec. 3): the bubble is (p - 1)(T_F + T_B - T_W) instead of 1F1B's
// (p - 1)(T_F + T_B + T_W); with T_F = T_B = T_W, a third of it.
TEST(Schedules, ZeroBubbleH1CutsTheBubbleToAThird) {
  for (int p : {2, 4, 8})
    for (int m : {p, 2 * p, 4 * p}) {
      Timing t;
      t.forward_s = 0.010, t.backward_s = 0.020, t.weight_s = 0.010;  // T_B = T_W = 0.010
      const double input_s = t.backward_s - t.weight_s;
      const SimulationResult zb = simulate_schedule(pipeline(p, PipelineScheduleKind::zero_bubble), m, t);
      const double expected = m * (t.forward_s + t.backward_s) + (p - 1) * (t.forward_s + input_s - t.weight_s);
      EXPECT_NEAR(zb.engine.iteration_s, expected, 1e-3 * expected) << "p " << p << " m " << m;
      const SimulationResult one_f_one_b = simulate_schedule(pipeline(p, PipelineScheduleKind::one_f_one_b), m, t);
      const double bubble_zb = zb.engine.iteration_s - m * (t.forward_s + t.backward_s);
      const double bubble_1f1b = one_f_one_b.engine.iteration_s - m * (t.forward_s + t.backward_s);
      EXPECT_NEAR(bubble_zb / bubble_1f1b, 1.0 / 3, 1e-3);
    }
}

// Every schedule runs each micro-batch's forward and backward exactly once per chunk.
TEST(Schedules, EveryPassRunsOnce) {
  for (PipelineScheduleKind kind : {PipelineScheduleKind::gpipe, PipelineScheduleKind::one_f_one_b,
                                    PipelineScheduleKind::interleaved_1f1b, PipelineScheduleKind::zero_bubble}) {
    const int p = 4, m = 8, v = kind == PipelineScheduleKind::interleaved_1f1b ? 2 : 1;
    for (int stage = 0; stage < p; ++stage) {
      int forward = 0, backward = 0, weight = 0;
      for (const PipelineStep& step : pipeline_steps(pipeline(p, kind, v), stage, m)) {
        forward += step.pass == PassKind::forward;
        backward += step.pass == PassKind::backward || step.pass == PassKind::backward_input;
        weight += step.pass == PassKind::backward_weight;
      }
      EXPECT_EQ(forward, m * v);
      EXPECT_EQ(backward, m * v);
      EXPECT_EQ(weight, kind == PipelineScheduleKind::zero_bubble ? m : 0);
    }
  }
}

}  // namespace
}  // namespace dtsim
