// SimGrid platforms of every fabric kind, checked with plain flows (no collective algorithm in
// between): a flow of S bytes on a route of latency alpha whose bottleneck gives it B bytes/s ends
// at alpha + S / B (CM02 without TCP effects, platform_builder.hpp). Ring all-reduces are run as
// their flows: every ring edge carries 2(n-1)/n * S at once, and the remaining 2(n-1) - 1 steps'
// latencies are added, so T = 2(n-1) * alpha + 2(n-1)/n * S / B.
//
// The test fabrics (tests/data/topologies/platform-*.yaml) use one-GPU nodes with one 400 Gb/s
// NIC (B = 50 GB/s, the fabric links carry the same) and 3 us per NIC traversal: alpha = 6 us
// for every node-to-node route, since fabric links carry no latency.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "platform_builder.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

namespace sg4 = simgrid::s4u;
using test::test_topology;

constexpr double kGBps = 1e9;
constexpr double kAlphaS = 6e-6;   // 2 NIC traversals of 3 us
constexpr double kNicBps = 50e9;   // 400 Gb/s

struct Transfer {
  int src = 0, dst = 0;  // global ranks
  double bytes = 1;
};
struct Outcome {
  double finish_s = 0;   // all transfers start at 0
  double latency_s = 0;  // of the route
  double links = 0;      // on the route
};

// Builds the platform in a forked child (SimGrid 3.32: one Engine per process), runs all
// transfers at once, one sender and one receiver actor each, and reports every transfer's end.
std::vector<Outcome> run_transfers(const TopologySpec& topo, int nodes, const std::vector<Transfer>& transfers) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe() failed");
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    int argc = 2;
    char arg0[] = "test", arg1[] = "--log=root.thres:critical";
    char* argv[] = {arg0, arg1, nullptr};
    sg4::Engine engine(&argc, argv);
    configure_network_model(engine);
    const Platform platform = build_platform(topo, nodes, test::kSpeed);
    std::vector<Outcome> out(transfers.size());
    for (size_t i = 0; i < transfers.size(); ++i) {
      const Transfer t = transfers[i];
      std::vector<sg4::Link*> links;
      platform.gpus.at(t.src)->route_to(platform.gpus.at(t.dst), links, &out[i].latency_s);
      out[i].links = double(links.size());
      sg4::Mailbox* mailbox = sg4::Mailbox::by_name("transfer" + std::to_string(i));
      static char token = 0;
      sg4::Actor::create("send", platform.gpus[t.src], [mailbox, t] { mailbox->put(&token, uint64_t(t.bytes)); });
      sg4::Actor::create("recv", platform.gpus[t.dst], [mailbox, &out, i] {
        mailbox->get<char>();
        out[i].finish_s = sg4::Engine::get_clock();
      });
    }
    engine.run();
    // Every GPU must be a host the engine knows (the fabric is built detached from the root).
    if (engine.get_host_count() != platform.gpus.size()) _exit(2);
    const auto bytes = ssize_t(out.size() * sizeof(Outcome));
    _exit(write(fds[1], out.data(), size_t(bytes)) == bytes ? 0 : 1);
  }
  close(fds[1]);
  std::vector<Outcome> out(transfers.size());
  const auto bytes = ssize_t(out.size() * sizeof(Outcome));
  ssize_t got = 0;
  for (ssize_t n; got < bytes && (n = read(fds[0], reinterpret_cast<char*>(out.data()) + got, size_t(bytes - got))) > 0;)
    got += n;
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (got != bytes || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("platform child failed for " + topo.name);
  return out;
}

// The flows of a ring all-reduce of `bytes` over `order` (ranks, in ring order).
std::vector<Transfer> ring_edges(const std::vector<int>& order, double bytes) {
  const size_t n = order.size();
  std::vector<Transfer> edges;
  for (size_t i = 0; i < n; ++i) edges.push_back({order[i], order[(i + 1) % n], 2.0 * double(n - 1) / double(n) * bytes});
  return edges;
}

// Every edge has latency alpha, the slowest ends at alpha + 2(n-1)/n S / B; the all-reduce adds
// the other 2(n-1) - 1 steps' latencies and must equal the alpha-beta formula.
void expect_ring_allreduce(const std::vector<Outcome>& edges, double bytes, double alpha_s, double bw_Bps) {
  const double n = double(edges.size());
  double slowest_s = 0;
  for (const Outcome& e : edges) {
    EXPECT_NEAR(e.latency_s, alpha_s, 1e-12);
    slowest_s = std::max(slowest_s, e.finish_s);
  }
  const double formula_s = 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * bytes / bw_Bps;
  EXPECT_NEAR(slowest_s + (2 * (n - 1) - 1) * alpha_s, formula_s, 1e-6 * formula_s);
}

// ---- fat-tree shapes (no SimGrid) ----

TopologySpec stock(const std::string& name) { return load_topology(test::source_dir() / "topologies" / (name + ".yaml")); }

TEST(PlatformShape, StockThreeTierAt2048Nodes) {
  // 16 nodes per leaf, 8 leaves per pod: 128 leaves, 16 pods. Leaves non-blocking: 16/1 = 16
  // aggregation up-links; pods 2:1: each aggregation switch has 8 leaves below, 8/2 = 4 core up-links.
  const TreeFabricParams p = tree_fabric_params(stock("dgx-h100-ndr-3tier"), 2048);
  EXPECT_EQ(p.nodes_per_leaf, 16);
  EXPECT_EQ(p.leaves_per_pod, 8);
  EXPECT_EQ(p.up1, 16);
  EXPECT_EQ(p.up2, 4);
}

TEST(PlatformShape, OneLeafOnePodAndPartialLeaves) {
  const TopologySpec t = stock("dgx-h100-ndr-3tier");
  EXPECT_EQ(tree_fabric_params(t, 10).nodes_per_leaf, 10);   // 1 leaf of 10 nodes
  EXPECT_EQ(tree_fabric_params(t, 100).leaves_per_pod, 0);   // 7 leaves: 1 pod, 2 tiers
  EXPECT_EQ(tree_fabric_params(t, 100).up1, 16);
  EXPECT_EQ(tree_fabric_params(t, 129).leaves_per_pod, 8);   // 9 leaves: 2 pods
}

TEST(PlatformShape, OversubscribedLeavesAndSpineLeaf) {
  // 2:1 with 16 nodes per leaf: 8 spine up-links per leaf, each of a node's 8 x 400 Gb/s.
  const TreeFabricParams s = tree_fabric_params(stock("dgx-h100-ndr-fattree-2to1"), 2048);
  EXPECT_EQ(s.nodes_per_leaf, 16);
  EXPECT_EQ(s.up1, 8);
  EXPECT_DOUBLE_EQ(s.up1_bw_Bps, 8 * 400e9 / 8);
  // RoCE spine-leaf: 4 nodes per leaf, one 800 Gb/s up-link to each of 8 spines, hashed (ECMP).
  const TreeFabricParams r = tree_fabric_params(stock("dgx-h100-roce-spine-leaf"), 8);
  EXPECT_EQ(r.nodes_per_leaf, 4);
  EXPECT_EQ(r.up1, 8);
  EXPECT_DOUBLE_EQ(r.up1_bw_Bps, 800e9 / 8);
}

// ---- fat_tree and spine_leaf ----

TEST(PlatformFatTree, ThreeTierRingAcrossTheCoreMatchesAlphaBeta) {
  // 8 nodes: 4 leaves, 2 pods. Ring 0..7: 0->1 stays in a leaf (NIC, node-leaf, leaf-node, NIC:
  // 4 links), 1->2 crosses its pod's aggregation (6 links), 3->4 and 7->0 cross the core
  // (8 links). One flow leaves each leaf and each pod, so nothing is shared: B = 50 GB/s.
  const double bytes = 1e9;
  const auto edges = run_transfers(test_topology("platform-3tier"), 8, ring_edges({0, 1, 2, 3, 4, 5, 6, 7}, bytes));
  EXPECT_EQ(edges[0].links, 4);
  EXPECT_EQ(edges[1].links, 6);
  EXPECT_EQ(edges[3].links, 8);
  EXPECT_EQ(edges[7].links, 8);
  expect_ring_allreduce(edges, bytes, kAlphaS, kNicBps);
  // Each edge: 6 us + 2 * 7/8 * 1 GB / 50 GB/s = 6 us + 35 ms.
  EXPECT_NEAR(edges[3].finish_s, 6e-6 + 35e-3, 1e-9);
}

TEST(PlatformFatTree, PodOversubscriptionHalvesCrossPodBandwidth) {
  // Pod 0's 4 nodes each send to the node 4 ranks up, in pod 1. Each pod has 2 aggregation
  // switches (leaves non-blocking) with 2 leaves / 2:1 = 1 core up-link each: 2 links of 50 GB/s
  // for 4 flows. Destinations 4..7 pick aggregation switch dst % 2, so each up-link carries 2:
  // 25 GB/s per flow. With pod_oversubscription 1 every aggregation switch has 2 core up-links
  // (picked by dst / 2 % 2) and every flow has its own: 50 GB/s.
  const double bytes = 1e9;
  const std::vector<Transfer> across{{0, 4, bytes}, {1, 5, bytes}, {2, 6, bytes}, {3, 7, bytes}};
  TopologySpec topo = test_topology("platform-3tier");
  for (const Outcome& o : run_transfers(topo, 8, across)) EXPECT_NEAR(o.finish_s, kAlphaS + bytes / 25e9, 1e-9);
  topo.fabric.pod_oversubscription = 1;
  for (const Outcome& o : run_transfers(topo, 8, across)) EXPECT_NEAR(o.finish_s, kAlphaS + bytes / 50e9, 1e-9);
}

TEST(PlatformFatTree, OneLeafOnePodAndAPartialLeaf) {
  // Route lengths in links, NICs included: same leaf 4, same pod 6, across the core 8.
  const TopologySpec topo = test_topology("platform-3tier");
  EXPECT_EQ(run_transfers(topo, 2, {{0, 1}})[0].links, 4);  // one leaf: no aggregation at all
  EXPECT_EQ(run_transfers(topo, 4, {{0, 2}})[0].links, 6);  // one pod: no core
  // 5 nodes: 3 leaves, the last one half empty, in 2 pods.
  const auto five = run_transfers(topo, 5, {{0, 1}, {0, 2}, {3, 4}, {4, 0}});
  EXPECT_EQ(five[0].links, 4);
  EXPECT_EQ(five[1].links, 6);
  EXPECT_EQ(five[2].links, 8);
  EXPECT_EQ(five[3].links, 8);
  for (const Outcome& o : five) EXPECT_NEAR(o.latency_s, kAlphaS, 1e-12);
}

TEST(PlatformFatTree, TwoToOneLeavesHalveRingsCrossingTheSpine) {
  // 4 nodes, 2 per leaf; ring 0->2->1->3->0: every edge crosses the spine, and both nodes of a
  // leaf send up at once. 2:1: round(2 / 2) = 1 up-link of 50 GB/s per leaf for 2 flows, 25 GB/s
  // each. Non-blocking: 2 up-links, picked by destination % 2 (0->2 on one, 1->3 on the other),
  // 50 GB/s each.
  const double bytes = 1e9;
  const std::vector<int> ring{0, 2, 1, 3};
  TopologySpec topo = test_topology("platform-fattree-2to1");
  const auto half = run_transfers(topo, 4, ring_edges(ring, bytes));
  for (const Outcome& e : half) EXPECT_EQ(e.links, 6);
  expect_ring_allreduce(half, bytes, kAlphaS, 25e9);
  topo.fabric.oversubscription = 1;
  expect_ring_allreduce(run_transfers(topo, 4, ring_edges(ring, bytes)), bytes, kAlphaS, 50e9);
}

TEST(PlatformSpineLeaf, LeafUplinksLimitCrossLeafFlows) {
  // Leaf: 4 x 50 GB/s down, 2 spines x 200 Gb/s = 50 GB/s up = 1 node link. Leaf 0's 4 nodes
  // all send to leaf 1: 4 flows on one 50 GB/s up-link, 12.5 GB/s each.
  const double bytes = 1e9;
  const auto out = run_transfers(test_topology("platform-spine-leaf"), 8,
                                 {{0, 4, bytes}, {1, 5, bytes}, {2, 6, bytes}, {3, 7, bytes}});
  for (const Outcome& o : out) {
    EXPECT_EQ(o.links, 6);
    EXPECT_NEAR(o.finish_s, kAlphaS + bytes / 12.5e9, 1e-9);
  }
}

// ---- routing over the equal-cost up-links (tree_fabric_zone.hpp) ----
// platform-fattree-4to2: leaves of 4 nodes with 2 up-links of 50 GB/s each; 8 nodes, 2 leaves.
// Static routing takes up-link dst mod 2; ECMP the splitmix64 finaliser of (src << 32 | dst)
// mod 2, which is 0 for 0->4, 1->5, 2->6 and 1 for 3->7 and 1->6; adaptive routing one bundle of
// 100 GB/s per leaf.

std::vector<double> finish_times(const TopologySpec& topo, const std::vector<Transfer>& transfers) {
  std::vector<double> out;
  for (const Outcome& o : run_transfers(topo, 8, transfers)) out.push_back(o.finish_s);
  return out;
}

TEST(PlatformRouting, EcmpFlowsHashedToOneUplinkShareIt) {
  const double bytes = 1e9;
  TopologySpec topo = test_topology("platform-fattree-4to2");
  for (double t : finish_times(topo, {{0, 4, bytes}, {1, 5, bytes}})) EXPECT_NEAR(t, kAlphaS + bytes / 25e9, 1e-9);
  for (double t : finish_times(topo, {{0, 4, bytes}, {1, 6, bytes}})) EXPECT_NEAR(t, kAlphaS + bytes / 50e9, 1e-9);
  // Static routing spreads the first pair (destinations 4 and 5) and collides the second (4, 6).
  topo.fabric.routing = FabricRouting::static_routing;
  for (double t : finish_times(topo, {{0, 4, bytes}, {1, 5, bytes}})) EXPECT_NEAR(t, kAlphaS + bytes / 50e9, 1e-9);
  for (double t : finish_times(topo, {{0, 4, bytes}, {1, 6, bytes}})) EXPECT_NEAR(t, kAlphaS + bytes / 25e9, 1e-9);
}

TEST(PlatformRouting, AdaptiveRoutingSpreadsWhatEcmpPilesUp) {
  // Leaf 0's four nodes each send 1 GB to leaf 1. ECMP puts three flows on up-link 0 (16.7 GB/s
  // each until the first three end at 60 ms) and one alone on up-link 1 (50 GB/s, 20 ms).
  // Adaptive routing shares the 100 GB/s of both: 25 GB/s each, all done at 40 ms.
  const double bytes = 1e9;
  const std::vector<Transfer> across{{0, 4, bytes}, {1, 5, bytes}, {2, 6, bytes}, {3, 7, bytes}};
  TopologySpec topo = test_topology("platform-fattree-4to2");
  const std::vector<double> ecmp = finish_times(topo, across);
  for (int i : {0, 1, 2}) EXPECT_NEAR(ecmp[size_t(i)], kAlphaS + bytes / (50e9 / 3), 1e-9);
  EXPECT_NEAR(ecmp[3], kAlphaS + bytes / 50e9, 1e-9);
  topo.fabric.routing = FabricRouting::adaptive;
  for (double t : finish_times(topo, across)) EXPECT_NEAR(t, kAlphaS + bytes / 25e9, 1e-9);
  for (double t : finish_times(topo, {{0, 4, bytes}, {1, 6, bytes}})) EXPECT_NEAR(t, kAlphaS + bytes / 50e9, 1e-9);
}

// ---- rail_optimized ----
// platform-rail: 2 GPUs per node (rank = 2 * node + rail), NVLink 100 GB/s and 1 us, NICs
// 50 GB/s and 2 us, groups of 2 nodes, rail-leaf up-links 2 nodes x 50 GB/s / 2 = 50 GB/s.

TEST(PlatformRail, SameRailGoesAtNicSpeedWithTwoNicLatencies) {
  // node 0 GPU 0 -> node 1 GPU 0: NIC up, NIC down; 2 x 2 us; 50 GB/s.
  const double bytes = 1e9;
  const Outcome o = run_transfers(test_topology("platform-rail"), 2, {{0, 2, bytes}})[0];
  EXPECT_EQ(o.links, 2);
  EXPECT_NEAR(o.latency_s, 4e-6, 1e-12);
  EXPECT_NEAR(o.finish_s, 4e-6 + bytes / 50e9, 1e-9);
}

TEST(PlatformRail, CrossRailGoesThroughNvlinkFirst) {
  // node 0 GPU 0 -> node 1 GPU 1 (PXN): NVLink of GPU 0 up, NVLink of GPU 1 down, rail 1's NICs:
  // 4 links, 2 x 1 us + 2 x 2 us = 6 us; bottleneck the 50 GB/s NICs.
  // Within a node, GPU 0 -> GPU 1: two NVLinks, 2 us, 100 GB/s.
  const double bytes = 1e9;
  const auto out = run_transfers(test_topology("platform-rail"), 2, {{0, 3, bytes}, {2, 3, bytes}});
  EXPECT_EQ(out[0].links, 4);
  EXPECT_NEAR(out[0].latency_s, 6e-6, 1e-12);
  EXPECT_NEAR(out[0].finish_s, 6e-6 + bytes / 50e9, 1e-9);
  EXPECT_EQ(out[1].links, 2);
  EXPECT_NEAR(out[1].latency_s, 2e-6, 1e-12);
  EXPECT_NEAR(out[1].finish_s, 2e-6 + bytes / 100e9, 1e-9);
}

TEST(PlatformRail, OversubscribedRailLeavesShareTheirUplink) {
  // 4 nodes, 2 groups. Both rail-0 GPUs of group 0 (ranks 0, 2) send to group 1 (ranks 4, 6):
  // NIC, rail-0 up-link of group 0 up, of group 1 down, NIC: 4 links, 4 us; the 50 GB/s up-link
  // is shared, 25 GB/s each. Rail 1 (rank 1 -> 5) has its own leaf and up-link: 50 GB/s.
  const double bytes = 1e9;
  const auto out = run_transfers(test_topology("platform-rail"), 4, {{0, 4, bytes}, {2, 6, bytes}, {1, 5, bytes}});
  for (const Outcome& o : out) {
    EXPECT_EQ(o.links, 4);
    EXPECT_NEAR(o.latency_s, 4e-6, 1e-12);
  }
  EXPECT_NEAR(out[0].finish_s, 4e-6 + bytes / 25e9, 1e-9);
  EXPECT_NEAR(out[1].finish_s, 4e-6 + bytes / 25e9, 1e-9);
  EXPECT_NEAR(out[2].finish_s, 4e-6 + bytes / 50e9, 1e-9);
}

// ---- dragonfly and torus ----

TEST(PlatformDragonfly, RingMatchesAlphaBeta) {
  // 2 groups x 2 routers x 1 node. Ring 0->1->2->3->0 (SimGrid's minimal routing): 0->1 one
  // local hop (NIC, node-router, router-router, router-node, NIC: 5 links), 1->2 the global link
  // that sits on node 1's router (5), 2->3 local (5), 3->0 local, global, local (7). No link is
  // used twice in one direction: B = 50 GB/s.
  const double bytes = 1e9;
  const auto edges = run_transfers(test_topology("platform-dragonfly"), 4, ring_edges({0, 1, 2, 3}, bytes));
  EXPECT_EQ(edges[0].links, 5);
  EXPECT_EQ(edges[1].links, 5);
  EXPECT_EQ(edges[3].links, 7);
  expect_ring_allreduce(edges, bytes, kAlphaS, kNicBps);
}

TEST(PlatformDragonfly, MoreGroupsThanRoutersPerChassis) {
  // 3 groups of 1 router: SimGrid needs router j in every group for the global link to group j,
  // so routers 1 and 2 of each group are added without nodes. Ring 0->1->2->0 over the three
  // groups: 0->1 local, global (6 links); 1->2 local, global, local (7); 2->0 global, local (6).
  // Every link once per direction: B = 50 GB/s.
  TopologySpec topo = test_topology("platform-dragonfly");
  topo.fabric.groups = 3;
  topo.fabric.routers_per_chassis = 1;
  const double bytes = 1e9;
  const auto edges = run_transfers(topo, 3, ring_edges({0, 1, 2}, bytes));
  EXPECT_EQ(edges[0].links, 6);
  EXPECT_EQ(edges[1].links, 7);
  EXPECT_EQ(edges[2].links, 6);
  expect_ring_allreduce(edges, bytes, kAlphaS, kNicBps);
}

TEST(PlatformTorus, SnakeRingMatchesAlphaBeta) {
  // 4 x 2 torus, position = x + 4y. The ring 0,1,2,3,7,6,5,4 moves one hop per edge (NIC, torus
  // link, NIC: 3 links), each hop on its own link and direction: B = 50 GB/s. 0 -> 5 takes two
  // hops (x then y): 4 links, same latency.
  const double bytes = 1e9;
  const TopologySpec topo = test_topology("platform-torus");
  std::vector<Transfer> flows = ring_edges({0, 1, 2, 3, 7, 6, 5, 4}, bytes);
  const auto edges = run_transfers(topo, 8, flows);
  for (const Outcome& e : edges) EXPECT_EQ(e.links, 3);
  expect_ring_allreduce(edges, bytes, kAlphaS, kNicBps);
  const Outcome diagonal = run_transfers(topo, 8, {{0, 5}})[0];
  EXPECT_EQ(diagonal.links, 4);
  EXPECT_NEAR(diagonal.latency_s, kAlphaS, 1e-12);
}

TEST(PlatformTorus, FewerNodesThanPositions) {
  // 5 nodes on 8 positions: positions 5..7 hold routers; 0 -> 4 is one y hop, 4 -> 0 back.
  const auto out = run_transfers(test_topology("platform-torus"), 5, {{0, 4}, {4, 0}, {3, 0}});
  EXPECT_EQ(out[0].links, 3);
  EXPECT_EQ(out[1].links, 3);
  EXPECT_EQ(out[2].links, 3);  // wraparound in x
}

}  // namespace
}  // namespace dtsim
