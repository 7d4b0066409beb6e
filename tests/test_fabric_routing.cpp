// Fabrics that route like real ones (issue 46): the data-parallel size no longer changes the step
// at fixed work per GPU on an adaptively routed InfiniBand fat tree, static routing's collisions
// are real and the network report names the tier they are on, and links have tiers by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "link_names.hpp"
#include "network_report.hpp"
#include "simulation.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

// The MLPerf GPT-3 175B recipe at data-parallel size `dp`: 8 micro-batches per replica, 4 nodes
// per replica (TP 4 x PP 8 = 32 GPUs).
Scenario mlperf_at(int dp) {
  return load_scenario(test::data_dir() / "scenario-mlperf-gpt3-175b-dp320.yaml",
                       {{"parallelism.dp", std::to_string(dp)},
                        {"cluster.nodes", std::to_string(4 * dp)},
                        {"training.global_batch", std::to_string(8 * dp)}});
}

// Before, dp 320 (10,240 GPUs, whole leaves per stage) took 0.908 s and dp 336 1.226 s: a stage's
// 168 nodes shared leaves with the next stage's, and D-mod-K routing sent both stages' ring
// edges out of one leaf on the same up-link. Measured: 0.926 and 0.930 s.
TEST(FabricRouting, MlperfStepDoesNotJumpWithTheDataParallelSize) {
  std::vector<ResolvedScenario> runs;
  const std::vector<int> sizes{16, 36, 48, 68, 80, 272, 320, 336};
  for (int dp : sizes) runs.push_back(resolve_scenario(mlperf_at(dp)));
  const std::vector<SimulationOutcome> out = simulate_many(runs, 2);
  std::vector<double> step_s;
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_TRUE(out[i].result) << "dp " << sizes[i] << ": " << out[i].error;
    step_s.push_back(out[i].result->engine.iteration_s);
  }
  const auto [fastest, slowest] = std::minmax_element(step_s.begin(), step_s.end());
  EXPECT_LT(*slowest / *fastest, 1.03) << "dp " << sizes[size_t(fastest - step_s.begin())] << " vs dp "
                                       << sizes[size_t(slowest - step_s.begin())];
  EXPECT_NEAR(step_s[7] / step_s[6], 1.0, 0.05);  // dp 336 vs 320
}

// GPT-3 175B with 16 layers, TP 4 x PP 2 x DP 36 on 36 DGX H100: stage 0 holds nodes 0-17, stage
// 1 nodes 18-35; leaves of 16 nodes. Each stage's data-parallel rings run through its nodes in
// order and back: stage 0's return edge 17 -> 0 and stage 1's edge 31 -> 32 both leave leaf 1,
// and D-mod-K sends both up-link 0 (destinations 0 and 32, mod 16). Adaptive routing spreads them.
TEST(FabricRouting, StaticRoutingCollisionIsNamedByTheNetworkReport) {
  Scenario s = test::preset_on_h100_nodes("gpt3-175b", 36, 288);
  s.model.layers = 16;
  s.parallelism.tp = 4, s.parallelism.pp = 2, s.parallelism.dp = 36;
  SimulationOptions options;
  options.record_link_usage = true;
  ASSERT_EQ(s.cluster.topology.fabric.routing, FabricRouting::adaptive);  // the stock file's
  const ResolvedScenario adaptive = resolve_scenario(s);
  s.cluster.topology.fabric.routing = FabricRouting::static_routing;
  const ResolvedScenario fixed = resolve_scenario(s);
  const NetworkReport a = network_report(adaptive, simulate(adaptive, options), options);
  const NetworkReport d = network_report(fixed, simulate(fixed, options), options);
  EXPECT_EQ(a.routing, "adaptive");
  EXPECT_EQ(d.routing, "static");
  EXPECT_GT(d.iteration_s, 1.1 * a.iteration_s);

  auto tier = [](const NetworkReport& r, LinkTier t) {
    for (const TierUsage& u : r.tiers)
      if (u.tier == t) return u;
    ADD_FAILURE() << "no tier " << to_string(t);
    return TierUsage{};
  };
  const TierUsage up = tier(d, LinkTier::leaf_up);
  EXPECT_EQ(up.busiest_link, "leaf1-up0");
  EXPECT_EQ(up.links, 3 * 16);  // 36 nodes fill 3 leaves (the last one partly), 16 up-links each
  // The collision is the iteration's difference: static routing's leaf up-links cost about what
  // adaptive routing saves, and no other tier costs as much.
  EXPECT_NEAR(up.cost_s, d.iteration_s - a.iteration_s, 0.1 * (d.iteration_s - a.iteration_s));
  for (const TierUsage& t : d.tiers) {
    if (t.tier != LinkTier::leaf_up) {
      EXPECT_LT(t.cost_s, up.cost_s) << to_string(t.tier);
    }
  }
  EXPECT_LT(tier(a, LinkTier::leaf_up).cost_s, 1e-3 * a.iteration_s);
  EXPECT_EQ(tier(a, LinkTier::leaf_up).links, 3);  // one bundle per leaf
  // Every byte between nodes crosses the sender's and the receiver's NICs and node-leaf links.
  EXPECT_NEAR(tier(d, LinkTier::nic).bytes, tier(d, LinkTier::node_leaf).bytes, 1e-9 * tier(d, LinkTier::nic).bytes);
}

// A scenario can route its cluster otherwise than its topology file says (what-ifs, sweeps), on
// the fabrics that have equal-cost up-links only.
TEST(FabricRouting, AScenarioCanOverrideTheRouting) {
  const auto file = test::data_dir() / "scenario-mlperf-gpt3-175b-dp320.yaml";
  EXPECT_EQ(load_scenario(file, {{"cluster.routing", "ecmp"}}).cluster.topology.fabric.routing, FabricRouting::ecmp);
  const InputErrorInfo wrong = test::error_of([&] { load_scenario(file, {{"cluster.routing", "fastest"}}); });
  EXPECT_EQ(wrong.field, "cluster.routing");
  const InputErrorInfo torus = test::error_of([&] {
    load_scenario(file, {{"cluster.topology", (test::source_dir() / "topologies" / "dgx-h100-torus-3d.yaml").string()},
                         {"cluster.nodes", "64"},
                         {"cluster.routing", "ecmp"}});
  });
  EXPECT_EQ(torus.field, "cluster.routing");
  EXPECT_NE(torus.expected.find("fat_tree and spine_leaf only"), std::string::npos) << torus.expected;
}

TEST(FabricRouting, LinksHaveTiersByName) {
  EXPECT_EQ(link_tier("gpu12-nvlink_UP"), LinkTier::nvlink);
  EXPECT_EQ(link_tier("gpu3-pcie"), LinkTier::pcie);
  EXPECT_EQ(link_tier("node4-nic7_DOWN"), LinkTier::nic);
  EXPECT_EQ(link_tier("node4-leaf_UP"), LinkTier::node_leaf);
  EXPECT_EQ(link_tier("leaf2-up13_DOWN"), LinkTier::leaf_up);
  EXPECT_EQ(link_tier("leaf2-up"), LinkTier::leaf_up);
  EXPECT_EQ(link_tier("group1-rail3-up_UP"), LinkTier::leaf_up);
  EXPECT_EQ(link_tier("pod1-up3-2"), LinkTier::pod_up);
  EXPECT_EQ(link_tier("pod0-up"), LinkTier::pod_up);
  EXPECT_EQ(link_tier("leaf2-down"), LinkTier::fabric);
  EXPECT_EQ(link_tier("link_from_3_7_0_UP"), LinkTier::fabric);
}

}  // namespace
}  // namespace dtsim
