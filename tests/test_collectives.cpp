// Ring collectives simulated as flows against the alpha-beta formula
//   T = 2(n-1)*alpha + 2(n-1)/n * S / B      (all-reduce)
// where alpha is the latency of one ring edge and B the bandwidth of one link.
#include <gtest/gtest.h>

#include "ring_collective.hpp"
#include "simulation.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

using test::empty_inputs;
using test::test_topology;

// A data-parallel job whose only work is one gradient all-reduce of `bytes` over `n` ranks.
double simulated_allreduce_s(const TopologySpec& topo, int nodes, int n, double bytes) {
  ParallelismConfig p;
  p.dp = n;
  WorkloadInputs in = empty_inputs(1, 1);
  in.gradient_bytes = {bytes};
  return simulate_workload(topo, nodes, test::kSpeed, assemble_workload(p, in), {}).engine.iteration_s;
}

TEST(RingAllReduce, PlanCarriesTwoNMinusOneOverNOfTheBuffer) {
  const RingPlan p = ring_plan(CollectiveKind::all_reduce, 8, 800.0);
  EXPECT_DOUBLE_EQ(p.bytes_per_edge, 2.0 * 7 / 8 * 800);
  EXPECT_EQ(p.steps, 14);
  const RingPlan g = ring_plan(CollectiveKind::all_gather, 4, 400.0);
  EXPECT_DOUBLE_EQ(g.bytes_per_edge, 300.0);
  EXPECT_EQ(g.steps, 3);
}

TEST(RingAllReduce, EightGpusOnNvSwitchMatchAlphaBeta) {
  // Each GPU-to-GPU route crosses two NVLinks of 2 us: alpha = 4 us; B = 100 GB/s.
  const TopologySpec topo = test_topology("nvswitch-8");
  for (double bytes : {1e3, 1e6, 1e9}) {
    const double expected = 2 * 7 * 4e-6 + 2.0 * 7 / 8 * bytes / 100e9;
    EXPECT_NEAR(simulated_allreduce_s(topo, 1, 8, bytes), expected, 0.01 * expected) << bytes << " bytes";
  }
}

TEST(RingAllReduce, FourGpusAcrossTheFatTreeMatchAlphaBeta) {
  // One GPU per node, 2 nodes per leaf: the ring crosses the spine. alpha = 2 NICs x 3 us,
  // B = 400 Gb/s = 50 GB/s (fabric links carry a node's full NIC bandwidth).
  const TopologySpec topo = test_topology("single-gpu-nodes");
  for (double bytes : {1e4, 256e6}) {
    const double expected = 2 * 3 * 6e-6 + 2.0 * 3 / 4 * bytes / 50e9;
    EXPECT_NEAR(simulated_allreduce_s(topo, 4, 4, bytes), expected, 0.01 * expected) << bytes << " bytes";
  }
}

TEST(RingAllReduce, MergedCallsCostTheSumOfSeparateCalls) {
  // A TP collective task merges k calls into one flow; it must cost k times one call.
  const TopologySpec topo = test_topology("nvswitch-8");
  ParallelismConfig p;
  p.tp = 8;
  WorkloadInputs in = empty_inputs(1, 1);
  in.tp_allreduce_bytes = 4e6;
  in.forward[0].tp_allreduces = 5;
  const double simulated = simulate_workload(topo, 1, test::kSpeed, assemble_workload(p, in), {}).engine.iteration_s;
  const double one_call = ring_time_s(CollectiveKind::all_reduce, 8, 4e6, 4e-6, 100e9);
  EXPECT_NEAR(simulated, 5 * one_call, 0.01 * 5 * one_call);
}

TEST(RingAllReduce, TwoRingsSharingNicsEachGetHalfTheBandwidth) {
  // TP=2 x DP=2 on two 2-GPU nodes whose GPUs share one NIC: both DP rings cross that NIC at
  // once, so each sees 25 GB/s of the 50 GB/s link.
  TopologySpec topo = test_topology("single-gpu-nodes");
  topo.node.gpus = 2;
  topo.node.nics = 1;
  ParallelismConfig p;
  p.tp = 2;
  p.dp = 2;
  WorkloadInputs in = empty_inputs(1, 1);
  const double bytes = 1e9;
  in.gradient_bytes = {bytes};
  const double simulated = simulate_workload(topo, 2, test::kSpeed, assemble_workload(p, in), {}).engine.iteration_s;
  const double expected = 2 * 1 * 6e-6 + 2.0 * 1 / 2 * bytes / 25e9;
  EXPECT_NEAR(simulated, expected, 0.01 * expected);
}

}  // namespace
}  // namespace dtsim
