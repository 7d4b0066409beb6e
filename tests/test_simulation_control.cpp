// What front ends (the GUI) need from a simulation besides its result: bytes per link, progress
// while it runs, cancelling it, and outcomes of several simulations as each is ready.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "link_usage.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "sweep.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

using test::test_topology;

const LinkUsage* find_link(const std::vector<LinkUsage>& links, const std::string& name) {
  for (const LinkUsage& l : links)
    if (l.name == name) return &l;
  return nullptr;
}

// link_name and parse_link_name are each other's inverse on GPU and NIC links.
TEST(LinkNames, MadeAndParsedByOnePair) {
  EXPECT_EQ(link_name(LinkOwner::nvlink_of(13)), "gpu13-nvlink");
  EXPECT_EQ(link_name(LinkOwner::nic_of(3, 2)), "node3-nic2");
  for (const LinkOwner& owner : {LinkOwner::nvlink_of(0), LinkOwner::nvlink_of(65535), LinkOwner::nic_of(8191, 7)}) {
    const LinkOwner back = parse_link_name(link_name(owner));
    EXPECT_EQ(back.role, owner.role);
    EXPECT_EQ(back.gpu, owner.gpu);
    EXPECT_EQ(back.node, owner.node);
    EXPECT_EQ(back.nic, owner.nic);
  }
  EXPECT_EQ(parse_link_name("node3-nic2-x").role, LinkRole::fabric);
}

TEST(LinkUsage, NamesOfThePlatformBuilderAreClassified) {
  const LinkUsage nv = classify_link("gpu13-nvlink");
  EXPECT_EQ(nv.role, LinkRole::nvlink);
  EXPECT_EQ(nv.gpu, 13);
  const LinkUsage nic = classify_link("node3-nic2");
  EXPECT_EQ(nic.role, LinkRole::nic);
  EXPECT_EQ(nic.node, 3);
  EXPECT_EQ(nic.nic, 2);
  EXPECT_EQ(classify_link("fabric_link_7").role, LinkRole::fabric);
  EXPECT_EQ(classify_link("gpu1-nvlinkx").role, LinkRole::fabric);
  LinkUsage u;
  u.bandwidth_Bps = 100e9;
  u.up_bytes = 20e9;
  u.down_bytes = 50e9;
  EXPECT_DOUBLE_EQ(u.utilisation(2.0), 0.25);  // the busier direction: 50 GB over 2 s of 100 GB/s
}

// A ring all-reduce of S bytes on 8 GPUs: each GPU's NVLink carries 2*7/8*S each way, its NIC nothing.
TEST(LinkUsage, RingAllReduceLoadsEveryNvlinkWithTwoSevenEighthsOfTheBuffer) {
  const TopologySpec topo = test_topology("nvswitch-8");
  const double S = 1e9;
  Workload w;
  w.ranks.resize(8);
  w.groups.push_back({"dp", {0, 1, 2, 3, 4, 5, 6, 7}});
  for (RankProgram& r : w.ranks)
    r.tasks.push_back({.kind = TaskKind::collective, .phase = Phase::gradient_sync, .group = 0,
                       .collective = CollectiveKind::all_reduce, .bytes = S, .algorithm = CollectiveAlgorithm::ring,
                       .protocol = Protocol::simple});
  SimulationOptions options;
  options.record_link_usage = true;
  const SimulationResult r = simulate_workload(topo, 1, test::kSpeed, w, {}, options);
  for (int g = 0; g < 8; ++g) {
    const LinkUsage* nv = find_link(r.links, "gpu" + std::to_string(g) + "-nvlink");
    ASSERT_NE(nv, nullptr);
    EXPECT_EQ(nv->role, LinkRole::nvlink);
    EXPECT_EQ(nv->gpu, g);
    EXPECT_DOUBLE_EQ(nv->bandwidth_Bps, 100e9);
    // SimGrid's link-load plugin reports 0.4 MB more: 4 us at 100 GB/s, the two 2 us NVLink
    // latencies of the route, counted as if the flow ran during them. Within 0.1% of 1.75 S.
    EXPECT_NEAR(nv->up_bytes, 1.75 * S, 1e-3 * S);
    EXPECT_NEAR(nv->down_bytes, 1.75 * S, 1e-3 * S);
    // Busy for all but the latency terms: 17.5 ms of 17.69 ms (190 us of latency, see test_collectives).
    EXPECT_NEAR(nv->utilisation(r.engine.iteration_s), 1.75 * S / 100e9 / (190e-6 + 1.75 * S / 100e9), 1e-3);
  }
  const LinkUsage* nic = find_link(r.links, "node0-nic0");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->up_bytes + nic->down_bytes, 0);
}

TEST(LinkUsage, NotRecordedUnlessAskedFor) {
  Workload w;
  w.ranks.resize(8);
  EXPECT_TRUE(simulate_workload(test_topology("nvswitch-8"), 1, test::kSpeed, w, {}).links.empty());
}

const std::filesystem::path kLongScenario = test::source_dir() / "scenarios" / "gpt3-175b-1024-a100.yaml";

// Every GPU runs its own program (no rank folding): the simulation then runs for seconds, where
// the progress reports come every 0.2 s (folded, it can end before the second).
TEST(SimulationControl, ProgressReportsTheChildsClockAndCancelStopsIt) {
  const Scenario s = load_scenario(kLongScenario);
  std::atomic<bool> cancel{false};
  std::vector<double> clocks_s;
  SimulationOptions options;
  options.fold_replicas = false;
  options.cancel = &cancel;
  options.on_progress = [&](double simulated_s) {
    clocks_s.push_back(simulated_s);
    if (clocks_s.size() == 2) cancel = true;  // two reports seen: enough
  };
  EXPECT_THROW(simulate(s, options), SimulationCancelled);  // stopped before the iteration's end
  ASSERT_EQ(clocks_s.size(), 2u);
  EXPECT_GE(clocks_s[1], clocks_s[0]);
  EXPECT_GE(clocks_s[0], 0);
  EXPECT_LT(clocks_s[1], 27.5984);  // before the end of the 27.5984 s iteration
}

TEST(SimulationControl, ManyReportsEachOutcomeInOrderAndCancelledOnesSaySo) {
  const ResolvedScenario small = resolve_scenario(load_scenario(test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml"));
  std::vector<size_t> order;
  const auto outcomes = simulate_many({small, small, small}, 2, [&](size_t i, const SimulationOutcome& o) {
    order.push_back(i);
    EXPECT_TRUE(o.result.has_value());
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2}));
  EXPECT_DOUBLE_EQ(outcomes[0].result->engine.iteration_s, outcomes[2].result->engine.iteration_s);

  std::atomic<bool> cancel{true};  // cancelled before it starts: nothing runs
  const auto none = simulate_many({small, small}, 1, {}, &cancel);
  for (const SimulationOutcome& o : none) {
    EXPECT_FALSE(o.result.has_value());
    EXPECT_EQ(o.error, "simulation cancelled");
  }
}

TEST(SimulationControl, SweepReportsPointsAsTheyComeAndAppliesBaseOverrides) {
  SweepRequest request;
  request.scenario_file = test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml";
  request.base_overrides = {{"training.global_batch", "128"}};
  request.field = "training.micro_batch";
  request.values = {"1", "3", "2"};  // 3 does not divide 128 / 8 replicas
  request.parallel = 1;
  std::vector<size_t> seen;
  SweepProgress progress;
  progress.on_point = [&](size_t i, const SweepPoint&) { seen.push_back(i); };
  const SweepResult r = run_sweep(request, progress);
  EXPECT_EQ(seen, (std::vector<size_t>{1, 0, 2}));  // the rejected point first, then in order
  EXPECT_EQ(r.points[1].status, SweepStatus::invalid);
  ASSERT_TRUE(r.points[0].simulated());
  // tokens per iteration: the base override's 128 sequences x 2048 tokens.
  EXPECT_NEAR(r.points[0].throughput_per_s * r.points[0].iteration_s, 128.0 * 2048, 1e-6);
}

}  // namespace
}  // namespace dtsim
