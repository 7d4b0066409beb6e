// Collectives simulated as flows on uncontended topologies against their alpha-beta formulas
//   T = latency + bytes-on-the-busiest-link / link bandwidth,
// with the latency written out from the table in sim/network/collective_model.cpp (NCCL's tuning.cc
// values; base latency of the bulk protocols 142.4 us for Simple and 148 us for LL128).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "collective_model.hpp"
#include "collective_sweep.hpp"
#include "simulation.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

using test::test_topology;
using Algo = CollectiveAlgorithm;
constexpr double kUs = 1e-6;

struct Collective {
  CollectiveKind kind = CollectiveKind::all_reduce;
  Algo algorithm = Algo::ring;
  Protocol protocol = Protocol::simple;
  double bytes = 0;
  int calls = 1;
};

// Every listed group runs `c` at once; ranks not in a group stay idle.
double simulated_s(const TopologySpec& topo, int nodes, const std::vector<std::vector<int>>& groups, const Collective& c) {
  Workload w;
  w.ranks.resize(size_t(nodes) * topo.node.gpus);
  for (const auto& ranks : groups) {
    const int g = int(w.groups.size());
    w.groups.push_back({"test", ranks});
    for (int r : ranks)
      w.ranks[r].tasks.push_back({.kind = TaskKind::collective, .phase = Phase::gradient_sync, .group = g,
                                  .collective = c.kind, .calls = c.calls, .bytes = c.bytes, .algorithm = c.algorithm,
                                  .protocol = c.protocol});
  }
  return simulate_workload(topo, nodes, test::kSpeed, w, {}).engine.iteration_s;
}

const std::vector<int> kEight = {0, 1, 2, 3, 4, 5, 6, 7};

// nvswitch-8: one node of 8 GPUs, NVLink 100 GB/s per GPU and direction.
TEST(CollectiveTime, RingAllReduceOnOneNodePerProtocol) {
  const TopologySpec topo = test_topology("nvswitch-8");
  const double S = 1e9;
  // Simple: 142.4 + 14 steps x 3.4 us; each ring edge carries 2*7/8*S.
  EXPECT_NEAR(simulated_s(topo, 1, {kEight}, {.bytes = S}), 190.0 * kUs + 1.75 * S / 100e9, 1e-6);
  // LL: 6.6 + 14 x 0.6 us; half the link bandwidth.
  const double s_ll = 1e6;
  EXPECT_NEAR(simulated_s(topo, 1, {kEight}, {.protocol = Protocol::ll, .bytes = s_ll}),
              15.0 * kUs + 1.75 * s_ll / 50e9, 1e-8);
  // LL128: 148 + 14 x 1.9 us; 92% of the link bandwidth.
  EXPECT_NEAR(simulated_s(topo, 1, {kEight}, {.protocol = Protocol::ll128, .bytes = S}),
              174.6 * kUs + 1.75 * S / 92e9, 1e-6);
}

TEST(CollectiveTime, RingAllGatherReduceScatterBroadcast) {
  const TopologySpec topo = test_topology("nvswitch-8");
  const double S = 1e9;
  // n-1 = 7 steps: 142.4 + 7 x 3.4 = 166.2 us; an edge carries 7/8 of the buffer (all the buffer
  // for a broadcast, whose chain has 7 edges).
  EXPECT_NEAR(simulated_s(topo, 1, {kEight}, {.kind = CollectiveKind::all_gather, .bytes = S}),
              166.2 * kUs + 0.875 * S / 100e9, 1e-6);
  EXPECT_NEAR(simulated_s(topo, 1, {kEight}, {.kind = CollectiveKind::reduce_scatter, .bytes = S}),
              166.2 * kUs + 0.875 * S / 100e9, 1e-6);
  EXPECT_NEAR(simulated_s(topo, 1, {kEight}, {.kind = CollectiveKind::broadcast, .bytes = S}),
              166.2 * kUs + S / 100e9, 1e-6);
}

TEST(CollectiveTime, RecursiveHalvingDoubling) {
  // 3 halving + 3 doubling exchanges of S/2, S/4, S/8 each way: 1.75 S on every link;
  // latency 142.4 + 6 x 3.4 us.
  const TopologySpec topo = test_topology("nvswitch-8");
  const double S = 1e9;
  EXPECT_NEAR(simulated_s(topo, 1, {kEight}, {.algorithm = Algo::recursive_halving_doubling, .bytes = S}),
              162.8 * kUs + 1.75 * S / 100e9, 1e-6);
}

TEST(CollectiveTime, NvlsAllReduce) {
  // Each GPU sends S + S/8 into the NVSwitch and receives as much, at 85% of NVLink; 25 us.
  TopologySpec topo = test_topology("nvswitch-8");
  topo.node.nvlink_sharp = true;
  const double S = 1e9;
  EXPECT_NEAR(simulated_s(topo, 1, {kEight}, {.algorithm = Algo::nvls, .bytes = S}),
              25.0 * kUs + 1.125 * S / 85e9, 1e-6);
}

TEST(CollectiveTime, DirectAllToAllAndSendRecv) {
  // One step (142.4 + 3.4 us). All-to-all: each GPU sends S/8 to each of 7 peers; send/recv: the
  // whole buffer to the next GPU.
  const TopologySpec topo = test_topology("nvswitch-8");
  const double S = 1e9;
  EXPECT_NEAR(simulated_s(topo, 1, {kEight}, {.kind = CollectiveKind::all_to_all, .algorithm = Algo::direct, .bytes = S}),
              145.8 * kUs + 0.875 * S / 100e9, 1e-6);
  EXPECT_NEAR(simulated_s(topo, 1, {kEight}, {.kind = CollectiveKind::send_recv, .algorithm = Algo::direct, .bytes = S}),
              145.8 * kUs + S / 100e9, 1e-6);
}

// 72 GPUs on one NVSwitch (as a GB200 NVL72 domain): each sends S/72 to 71 peers and receives as
// much, 142 flows a rank, which its helper actors start and await 64 at a time (phase_flows.hpp);
// the time is the formula's all the same, one step and 71/72 S through each GPU's NVLink.
TEST(CollectiveTime, DirectAllToAllOver72GpusWithHelperActors) {
  TopologySpec topo = test_topology("nvswitch-8");
  topo.node.gpus = 72;
  std::vector<int> all(72);
  for (int r = 0; r < 72; ++r) all[size_t(r)] = r;
  const double S = 1e9;
  EXPECT_NEAR(simulated_s(topo, 1, {all}, {.kind = CollectiveKind::all_to_all, .algorithm = Algo::direct, .bytes = S}),
              145.8 * kUs + 71.0 / 72 * S / 100e9, 1e-6);
  // GPU 5's NVLink failing 1 ms in, mid-transfer: the helpers' failure reaches their ranks, and
  // the iteration ends unfinished instead of hanging.
  Workload w;
  w.ranks.resize(72);
  w.groups.push_back({"test", all});
  for (RankProgram& r : w.ranks)
    r.tasks.push_back({.kind = TaskKind::collective, .phase = Phase::gradient_sync, .group = 0,
                       .collective = CollectiveKind::all_to_all, .bytes = S, .algorithm = Algo::direct});
  const SimulationResult failed = simulate_workload(
      topo, 1, test::kSpeed, w, {ResourceFailureEvent{.resource = FailedResource::nvlink, .gpu = 5, .at_s = 1e-3}});
  EXPECT_FALSE(failed.engine.completed);
}

// Four nodes of one GPU (NIC 50 GB/s, 3 us per NIC) under one leaf switch: nothing shared.
TopologySpec four_single_gpu_nodes() {
  TopologySpec topo = test_topology("single-gpu-nodes");
  topo.fabric.nodes_per_leaf = 4;
  return topo;
}

TEST(CollectiveTime, DoubleBinaryTreeAcrossNodes) {
  // Trees over 4 nodes: tree 0 = 0->{1,2}, 1->3; tree 1 (mirror) = 3->{2,1}, 2->0. Every node has
  // 3 tree edges in all, each carrying S/2 each way: 1.5 S per NIC and direction.
  // Latency 142.4 + 2 x (0 x 4.0 + log2(4) x 14) = 198.4 us.
  const double S = 1e9;
  EXPECT_NEAR(simulated_s(four_single_gpu_nodes(), 4, {{0, 1, 2, 3}}, {.algorithm = Algo::tree, .bytes = S}),
              198.4 * kUs + 1.5 * S / 50e9, 1e-6);
}

// Two nodes of two GPUs, one 50 GB/s NIC per GPU, NVLink 100 GB/s (no latency).
TopologySpec two_by_two(bool sharp = false) {
  TopologySpec topo = test_topology("single-gpu-nodes");
  topo.node.gpus = 2;
  topo.node.nics = 2;
  topo.node.nvlink_sharp = sharp;
  return topo;
}

TEST(CollectiveTime, RingAcrossNodesUsesEveryNic) {
  // Two channels; each enters and leaves every node through a different NIC. An edge carries
  // 2*3/4*S = 1.5 S over both channels: 0.75 S per NIC. Latency: 142.4 + (6-2) x 3.4 + 2 x 14.
  const double S = 1e9;
  EXPECT_NEAR(simulated_s(two_by_two(), 2, {{0, 1, 2, 3}}, {.bytes = S}), 184.0 * kUs + 0.75 * S / 50e9, 1e-6);
}

TEST(CollectiveTime, HierarchicalAllReduce) {
  // Reduce-scatter in each node (ring of 2: S/2 over NVLink, 142.4 + 3.4 us), all-reduce of S/2
  // between the nodes by each GPU over its own NIC (ring of 2: S/2, 142.4 + 2 x 14 us), all-gather
  // in each node (S/2, 145.8 us).
  const double S = 1e9;
  EXPECT_NEAR(simulated_s(two_by_two(), 2, {{0, 1, 2, 3}}, {.algorithm = Algo::hierarchical, .bytes = S}),
              (145.8 + 170.4 + 145.8) * kUs + 0.5 * S / 100e9 + 0.5 * S / 50e9 + 0.5 * S / 100e9, 1e-6);
}

TEST(CollectiveTime, NvlsTreeAllReduce) {
  // NVLS inside each node (each GPU sends S + S/2 at 85% of NVLink) while trees between the
  // nodes carry S/2 per NIC each way, at once (pipelined): the NVLink side is the longer one.
  // Latency 25 + 2 x log2(2) x 20.9 us.
  const double S = 1e9;
  EXPECT_NEAR(simulated_s(two_by_two(true), 2, {{0, 1, 2, 3}}, {.algorithm = Algo::nvls_tree, .bytes = S}),
              66.8 * kUs + 1.5 * S / 85e9, 1e-6);
}

TEST(CollectiveTime, MergedCallsCostTheSumOfSeparateCalls) {
  const TopologySpec topo = test_topology("nvswitch-8");
  const double one = simulated_s(topo, 1, {kEight}, {.bytes = 4e6});
  EXPECT_NEAR(simulated_s(topo, 1, {kEight}, {.bytes = 4e6, .calls = 5}), 5 * one, 1e-9);
}

TEST(CollectiveTime, TwoRingsSharingANicEachGetHalfTheBandwidth) {
  // Two nodes of 2 GPUs sharing one 50 GB/s NIC; rings {0,2} and {1,3} both cross it, so each
  // moves its 2*1/2*S = S per edge at 25 GB/s. Latency 142.4 + 2 x 14 us.
  TopologySpec topo = two_by_two();
  topo.node.nics = 1;
  const double S = 1e9;
  EXPECT_NEAR(simulated_s(topo, 2, {{0, 2}, {1, 3}}, {.bytes = S}), 170.4 * kUs + S / 25e9, 1e-6);
}

// Eight GPUs, each issuing a ring (Simple) all-reduce of `bytes` on its communication stream,
// computing for `compute_s`, then waiting for the all-reduce.
Workload all_reduce_beside_compute(double bytes, double compute_s) {
  Workload w;
  w.ranks.resize(8);
  w.groups.push_back({"tp", kEight});
  for (RankProgram& rank : w.ranks) {
    rank.tasks.push_back({.kind = TaskKind::collective, .group = 0, .bytes = bytes, .algorithm = Algo::ring,
                          .protocol = Protocol::simple, .overlapped = true});
    rank.tasks.push_back({.kind = TaskKind::compute, .compute_s = compute_s});
    rank.tasks.push_back({.kind = TaskKind::wait_overlapped, .overlapped_done = 1});
  }
  return w;
}

// An all-reduce on the communication stream beside `compute_s` of compute, then a wait for it:
// the wait exposes max(0, T - compute) of its T seconds, and min(T, compute) is hidden.
TEST(CollectiveOverlap, ExposedIsWhatOutlastsTheCompute) {
  const TopologySpec topo = test_topology("nvswitch-8");
  const double S = 1e9, T = 190.0 * kUs + 1.75 * S / 100e9;  // ring, Simple (first test above)
  for (double compute_s : {0.010, 0.030}) {
    const SimulationResult r = simulate_workload(topo, 1, test::kSpeed, all_reduce_beside_compute(S, compute_s), {});
    const CommunicationTimes tp = r.engine.ranks[3].communication_by_kind.at("tp");
    EXPECT_NEAR(tp.total_s, T, 1e-6) << compute_s;
    EXPECT_NEAR(tp.exposed_s, std::max(0.0, T - compute_s), 1e-6) << compute_s;
    EXPECT_NEAR(tp.hidden_s(), std::min(T, compute_s), 1e-6) << compute_s;
    EXPECT_NEAR(r.engine.ranks[3].communication_s, tp.exposed_s, 1e-9);
    EXPECT_NEAR(r.engine.iteration_s, std::max(T, compute_s), 1e-6) << compute_s;
  }
}

// The same with the collective's kernels holding a quarter of the GPU's SMs: the compute runs at
// 3/4 of its rate while the collective runs. 10 ms of compute outlasts nothing: it ends at
// 10 / 0.75 = 13.3 ms, before the 17.69 ms collective. 30 ms of compute loses a quarter of the
// collective's time: 30 + T / 4.
TEST(CollectiveOverlap, ComputeBesideACollectiveLosesItsSmShare) {
  const TopologySpec topo = test_topology("nvswitch-8");
  const double S = 1e9, T = 190.0 * kUs + 1.75 * S / 100e9, share = 0.25;
  for (double compute_s : {0.010, 0.030}) {
    Workload w = all_reduce_beside_compute(S, compute_s);
    w.collective_sm_share = share;
    const SimulationResult r = simulate_workload(topo, 1, test::kSpeed, w, {});
    const double stretched_s = std::min(compute_s / (1 - share), compute_s + share * T);
    EXPECT_NEAR(r.engine.ranks[3].compute_s, stretched_s, 1e-6) << compute_s;
    EXPECT_NEAR(r.engine.iteration_s, std::max(T, stretched_s), 1e-6) << compute_s;
  }
}

TEST(CollectiveChoice, LikeNcclBySizeAndShape) {
  const TopologySpec h100 = load_topology(test::source_dir() / "topologies" / "dgx-h100-ndr-fattree.yaml");
  const TopologySpec a100 = load_topology(test::source_dir() / "topologies" / "dgx-a100-hdr-fattree.yaml");
  const GroupShape node{8, 1, 8}, two_nodes{16, 2, 8}, nodes{64, 8, 8};
  auto choice = [](const TopologySpec& t, GroupShape g, double bytes, CollectiveKind k = CollectiveKind::all_reduce) {
    const CollectiveEstimate e = choose_collective(k, g, bytes, t.node);
    return std::string(to_string(e.algorithm)) + "/" + to_string(e.protocol);
  };
  // Small messages are latency-bound: LL rings. Large ones on an NVLink-SHARP node: NVLS.
  EXPECT_EQ(choice(h100, node, 1024), "ring/LL");
  EXPECT_EQ(choice(h100, node, 1e9), "nvls/Simple");
  EXPECT_EQ(choice(a100, node, 1e9), "ring/Simple");
  // Two H100 nodes: NVLS inside them with trees between them beats the rings and NVLink chains.
  EXPECT_EQ(choice(h100, two_nodes, 1e9), "nvls_tree/Simple");
  // Eight A100 nodes (200 GB/s of NICs each): a ring moves 2*63/64 S = 1.97 S through each
  // node's NICs, the trees 2 S through the busiest node: 9.84 against 10.0 ms per GB. The ring's
  // 126 steps cost 0.72 ms of latency against the trees' 0.28 ms, so trees win below ~7 GB.
  EXPECT_EQ(choice(a100, nodes, 1e9), "tree/Simple");
  EXPECT_EQ(choice(a100, nodes, 16e9), "ring/Simple");
  EXPECT_EQ(choice(a100, nodes, 1e9, CollectiveKind::all_gather), "ring/Simple");
  EXPECT_EQ(choice(a100, nodes, 1e9, CollectiveKind::all_to_all), "direct/Simple");
  EXPECT_THROW(choose_collective(CollectiveKind::all_reduce, node, 1e6, a100.node, Algo::nvls), std::invalid_argument);
}

TEST(CollectiveChoice, NcclTestsBusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::all_gather, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::all_to_all, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::broadcast, 8), 1.0);
}

TEST(CollectiveSweep, SizesAndBusBandwidthAsNcclTests) {
  EXPECT_EQ(size_sweep(8, 8.0 * (1 << 30), 2).size(), 31u);  // 8 B .. 8 GiB
  // A 1 GB ring all-reduce on nvswitch-8: t = 190 us + 1.75 GB / 100 GB/s; busbw = 1.75 S / t.
  CollectiveSweepRequest r;
  r.algorithm = Algo::ring;
  r.protocol = Protocol::simple;
  r.sizes_bytes = {1e9};
  const CollectivePoint p = simulate_collective_sweep(test_topology("nvswitch-8"), r).at(0);
  const double t = 190.0e-6 + 1.75e9 / 100e9;
  EXPECT_NEAR(p.time_s, t, 1e-6);
  EXPECT_NEAR(p.busbw_Bps, 1.75e9 / t, 1e6);
  EXPECT_NEAR(p.algbw_Bps, 1e9 / t, 1e6);
}

}  // namespace
}  // namespace dtsim
