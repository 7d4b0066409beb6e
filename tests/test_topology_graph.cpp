// The topology graph: vertex and link counts, diameter, bisection bandwidth, oversubscription and
// path diversity against hand-derived figures; checks of bad topologies; `dtsim topo`.
//
// Hop convention: "links" are the edges of a shortest path (cables crossed, GPU-NIC counts as
// one); "switches" are the forwarding vertices on it (NVSwitch, fabric switches, torus ports).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "test_support.hpp"
#include "topology_graph.hpp"

namespace dtsim {
namespace {

using test::CliResult;
using test::run_dtsim;

constexpr double kGBps = 1e9;

TopologySpec graph_topology(const std::string& name) { return test::test_topology(name); }

TEST(TopologyGraph, FatTreeTwoTiersNonBlocking) {
  // 4 nodes of 1 GPU and one 50 GB/s NIC, 2 nodes per leaf: 2 leaves; spines = 2 nodes x 1 NIC / 1 = 2,
  // one 50 GB/s up-link from each leaf to each.
  const TopologyGraph g = build_topology_graph(graph_topology("graph-fattree-1gpu"), 4);
  const TopologyMetrics m = topology_metrics(g);
  // Vertices: 4 x (GPU, NVSwitch, NIC) + 2 leaves + 2 spines = 16. Links: 4 x (NVLink, GPU-NIC,
  // NIC-leaf) + 2 x 2 up-links = 16.
  EXPECT_EQ(m.vertices, 16);
  EXPECT_EQ(m.links, 16);
  EXPECT_EQ(m.gpus, 4);
  EXPECT_EQ(m.fabric_switches, 4);
  // GPU-NIC-leaf-spine-leaf-NIC-GPU: 6 links, 3 switches.
  EXPECT_EQ(m.diameter_links, 6);
  EXPECT_EQ(m.diameter_switches, 3);
  EXPECT_FALSE(m.diameter_sampled);
  // Nodes {0,1} (leaf 0) against {2,3}: the cut is leaf 0's 2 up-links (or the 2 NICs) = 2 x 50 GB/s.
  EXPECT_DOUBLE_EQ(m.bisection_bw_Bps, 100 * kGBps);
  ASSERT_EQ(m.oversubscription.size(), 1u);
  EXPECT_EQ(m.oversubscription[0].tier, VertexKind::leaf);
  EXPECT_DOUBLE_EQ(m.oversubscription[0].max_ratio, 1.0);
  // node0/gpu0 -> node3/gpu0: one shortest path per spine; one GPU per node, so its one NIC
  // link is the only way out: 1 edge-disjoint path.
  EXPECT_EQ(m.path.links, 6);
  EXPECT_EQ(m.path.shortest_paths, 2u);
  EXPECT_EQ(m.edge_disjoint_paths, 1);
}

TEST(TopologyGraph, FatTreeOversubscribedHalvesTheBisection) {
  // oversubscription 2: spines = 2 x 1 / 2 = 1, so each leaf has one 50 GB/s up-link for
  // 100 GB/s of NICs below it.
  const TopologyMetrics m = topology_metrics(build_topology_graph(graph_topology("graph-fattree-1gpu-2to1"), 4));
  EXPECT_EQ(m.fabric_switches, 3);
  EXPECT_EQ(m.diameter_links, 6);
  EXPECT_DOUBLE_EQ(m.bisection_bw_Bps, 50 * kGBps);  // half of the non-blocking 100 GB/s
  ASSERT_EQ(m.oversubscription.size(), 1u);
  EXPECT_DOUBLE_EQ(m.oversubscription[0].max_ratio, 2.0);
  EXPECT_EQ(m.path.shortest_paths, 1u);
}

TEST(TopologyGraph, SingleLeafHasNoSpines) {
  // 2 nodes fill one leaf: GPU-NIC-leaf-NIC-GPU = 4 links, 1 switch; the cut is one NIC, 50 GB/s.
  const TopologyMetrics m = topology_metrics(build_topology_graph(graph_topology("graph-fattree-1gpu"), 2));
  EXPECT_EQ(m.fabric_switches, 1);
  EXPECT_EQ(m.diameter_links, 4);
  EXPECT_EQ(m.diameter_switches, 1);
  EXPECT_DOUBLE_EQ(m.bisection_bw_Bps, 50 * kGBps);
  EXPECT_TRUE(m.oversubscription.empty());
}

TEST(TopologyGraph, FatTreeThreeTiers) {
  // 8 nodes (1 GPU, 50 GB/s NIC), 2 per leaf, 2 leaves per pod: 4 leaves, 2 pods. Per pod
  // 2 aggregation switches (2 nodes x 1 NIC / 1); each has ceil(2 leaves / 2) = 1 core up-link of
  // 2 x 50 / 2 = 50 GB/s; cores = 2 x 1 = 2.
  const TopologySpec topo = graph_topology("graph-3tier");
  EXPECT_EQ(default_node_count(topo), 8);  // two pods
  const TopologyMetrics m = topology_metrics(build_topology_graph(topo, 8));
  // 8 x 3 + 4 leaves + 4 aggregation + 2 cores = 34 vertices; 8 x 3 + 4 x 2 + 4 x 1 = 36 links.
  EXPECT_EQ(m.vertices, 34);
  EXPECT_EQ(m.links, 36);
  // GPU-NIC-leaf-agg-core-agg-leaf-NIC-GPU: 8 links, 5 switches.
  EXPECT_EQ(m.diameter_links, 8);
  EXPECT_EQ(m.diameter_switches, 5);
  // Pod 0 (nodes 0-3, 200 GB/s of NICs) against pod 1: 2 core up-links x 50 GB/s = 100 GB/s.
  EXPECT_DOUBLE_EQ(m.bisection_bw_Bps, 100 * kGBps);
  ASSERT_EQ(m.oversubscription.size(), 2u);
  EXPECT_EQ(m.oversubscription[0].tier, VertexKind::leaf);
  EXPECT_DOUBLE_EQ(m.oversubscription[0].max_ratio, 1.0);
  EXPECT_EQ(m.oversubscription[1].tier, VertexKind::aggregation);
  EXPECT_DOUBLE_EQ(m.oversubscription[1].max_ratio, 2.0);  // 2 x 50 down, 1 x 50 up
  // node0 -> node7: either aggregation switch of pod 0, each on its own core plane: 2 paths.
  EXPECT_EQ(m.path.shortest_paths, 2u);
}

TEST(TopologyGraph, RailOptimisedSameRailIsOneSwitchApart) {
  // 4 nodes of 2 GPUs and 2 NICs (50 GB/s), groups of 2 nodes: 2 groups x 2 rails = 4 rail leaves,
  // spines = 2 / 1 = 2, every rail leaf with a 50 GB/s up-link to each.
  const TopologySpec topo = graph_topology("graph-rail-2gpu");
  EXPECT_EQ(default_node_count(topo), 4);
  const TopologyGraph g = build_topology_graph(topo, 4);
  // Same rail, same group: node0/gpu0 (rank 0) - node1/gpu0 (rank 2): GPU-NIC-rail leaf-NIC-GPU.
  const PathHops same_rail = hops_between(g, 0, 2);
  EXPECT_EQ(same_rail.links, 4);
  EXPECT_EQ(same_rail.switches, 1);
  EXPECT_EQ(same_rail.shortest_paths, 1u);
  // Other rail, same group: node0/gpu0 - node1/gpu1 (rank 3), 6 links by 4 routes: over either
  // spine (3 switches), or over NVLink first or last (PXN: 2 switches).
  const PathHops cross_rail = hops_between(g, 0, 3);
  EXPECT_EQ(cross_rail.links, 6);
  EXPECT_EQ(cross_rail.switches, 2);
  EXPECT_EQ(cross_rail.shortest_paths, 4u);
  // Same rail, other group: node0/gpu0 - node2/gpu0 (rank 4): rail leaf - spine - rail leaf.
  const PathHops cross_group = hops_between(g, 0, 4);
  EXPECT_EQ(cross_group.links, 6);
  EXPECT_EQ(cross_group.switches, 3);
  EXPECT_EQ(cross_group.shortest_paths, 2u);

  const TopologyMetrics m = topology_metrics(g);
  // 4 x (2 GPUs, NVSwitch, 2 NICs) + 4 rail leaves + 2 spines = 26; 4 x 6 + 4 x 2 = 32 links.
  EXPECT_EQ(m.vertices, 26);
  EXPECT_EQ(m.links, 32);
  EXPECT_EQ(m.diameter_links, 6);
  EXPECT_EQ(m.diameter_switches, 3);
  // Group 0 against group 1: 2 rail leaves x 2 up-links x 50 GB/s = 200 GB/s (= group 0's 4 NICs).
  EXPECT_DOUBLE_EQ(m.bisection_bw_Bps, 200 * kGBps);
  ASSERT_EQ(m.oversubscription.size(), 1u);
  EXPECT_EQ(m.oversubscription[0].tier, VertexKind::rail_leaf);
  EXPECT_DOUBLE_EQ(m.oversubscription[0].max_ratio, 1.0);
  // GPU 0 has a NIC link and an NVLink; both lead on to node 3's GPU 0: 2 edge-disjoint paths.
  EXPECT_EQ(m.edge_disjoint_paths, 2);
}

TEST(TopologyGraph, TorusCounts) {
  // 4 x 2 torus, node n at (n % 4, n / 4). Links: dimension 0 (size 4) one +1 link per node = 8;
  // dimension 1 (size 2) one link per column = 4; 12 torus links of 50 GB/s (1 NIC).
  const TopologySpec topo = graph_topology("graph-torus-4x2");
  EXPECT_EQ(default_node_count(topo), 8);
  const TopologyMetrics m = topology_metrics(build_topology_graph(topo, 8));
  EXPECT_EQ(m.fabric_switches, 0);
  EXPECT_EQ(m.vertices, 8 * 4);       // GPU, NVSwitch, NIC, torus port per node
  EXPECT_EQ(m.links, 8 * 3 + 12);     // NVLink, GPU-NIC, NIC-port per node + torus links
  // Farthest nodes: 2 steps along the ring of 4 plus 1 across: 3 port-to-port links, plus
  // GPU-NIC-port at each end: 7 links; 4 ports crossed.
  EXPECT_EQ(m.diameter_links, 7);
  EXPECT_EQ(m.diameter_switches, 4);
  // Row y=0 (nodes 0-3) against row y=1: the 4 column links, 4 x 50 GB/s.
  EXPECT_DOUBLE_EQ(m.bisection_bw_Bps, 200 * kGBps);
  // node0 (0,0) -> node7 (3,1): one wraparound step and one across, in either order.
  EXPECT_EQ(m.path.links, 6);
  EXPECT_EQ(m.path.shortest_paths, 2u);
}

TEST(TopologyGraph, DragonflyCounts) {
  // 3 groups x 2 chassis x 2 routers = 12 routers, 2 nodes each = 24 nodes. Router links: one
  // per chassis (2 routers) = 6, router r of chassis 0 and 1 in each group = 2 x 3 = 6, one
  // global link per pair of groups = 3: 15.
  const TopologySpec topo = graph_topology("graph-dragonfly");
  EXPECT_EQ(default_node_count(topo), 24);
  const TopologyGraph g = build_topology_graph(topo, 24);
  const TopologyMetrics m = topology_metrics(g);
  EXPECT_EQ(m.fabric_switches, 12);
  EXPECT_EQ(m.vertices, 24 * 3 + 12);
  EXPECT_EQ(m.links, 24 * 3 + 15);
  // Nodes 0 and 1 share router 0: GPU-NIC-router-NIC-GPU.
  const PathHops same_router = hops_between(g, 0, 1);
  EXPECT_EQ(same_router.links, 4);
  EXPECT_EQ(same_router.switches, 1);
  // Partly filled: routers without nodes are fine.
  EXPECT_NO_THROW(build_topology_graph(topo, 3));
  // 25 nodes do not fit.
  const InputErrorInfo e = test::error_of([&] { build_topology_graph(topo, 25); });
  EXPECT_EQ(e.field, "fabric");
  EXPECT_NE(e.expected.find("at most 24"), std::string::npos) << e.expected;
  EXPECT_EQ(e.found, "25 nodes");
}

TEST(TopologyGraph, StockTopologiesBuildAtTheirDefaultSize) {
  for (const char* name :
       {"dgx-a100-hdr-fattree", "dgx-b200-ndr-fattree", "dgx-h100-dragonfly", "dgx-h100-ndr-3tier", "dgx-h100-ndr-fattree-2to1",
        "dgx-h100-ndr-fattree", "dgx-h100-ndr-rail", "dgx-h100-roce-spine-leaf", "dgx-h100-torus-3d",
        "gb200-nvl72-fattree", "hgx-h200-ndr-rail"}) {
    const TopologySpec topo = load_topology(test::source_dir() / "topologies" / (std::string(name) + ".yaml"));
    EXPECT_NO_THROW(build_topology_graph(topo, default_node_count(topo))) << name;
  }
}

TEST(TopologyGraph, StockRailFabricOutgrowsItsSpineRadix) {
  // dgx-h100-ndr-rail: radix-64 switches, groups of 32 nodes. A rail leaf uses 32 down + 32 up
  // ports; every spine has one port per rail leaf = 8 rails x groups, so two tiers hold at most
  // 8 groups (256 nodes); a 9th group needs 72 spine ports.
  const TopologySpec topo = load_topology(test::source_dir() / "topologies" / "dgx-h100-ndr-rail.yaml");
  EXPECT_NO_THROW(build_topology_graph(topo, 256));
  const InputErrorInfo e = test::error_of([&] { build_topology_graph(topo, 257); });
  EXPECT_EQ(e.field, "fabric.switch.radix (spine0)");
  EXPECT_EQ(e.found, "72 ports in use");
}

TEST(TopologyGraph, SpineLeafOversubscriptionMatchesTheSpec) {
  // dgx-h100-roce-spine-leaf: 4 nodes x 8 x 400 Gb/s = 12.8 Tb/s down, 8 x 800 Gb/s = 6.4 Tb/s up.
  const TopologySpec topo = load_topology(test::source_dir() / "topologies" / "dgx-h100-roce-spine-leaf.yaml");
  const TopologyMetrics m = topology_metrics(build_topology_graph(topo, 8));
  ASSERT_EQ(m.oversubscription.size(), 1u);
  EXPECT_DOUBLE_EQ(m.oversubscription[0].max_ratio, 2.0);
  // Leaf 0 against leaf 1: 8 up-links of 100 GB/s.
  EXPECT_DOUBLE_EQ(m.bisection_bw_Bps, 800 * kGBps);
}

TEST(TopologyGraph, DgxFatTreeAt2048NodesIsSampledAndNonBlocking) {
  // 2048 DGX H100 (16,384 GPUs), non-blocking: the cut between the halves is the 1024 x 8 NICs
  // of the first half, 8192 x 50 GB/s = 409.6 TB/s.
  const TopologySpec topo = load_topology(test::source_dir() / "topologies" / "dgx-h100-ndr-fattree.yaml");
  const TopologyMetrics m = topology_metrics(build_topology_graph(topo, 2048));
  EXPECT_EQ(m.gpus, 16384);
  EXPECT_EQ(m.fabric_switches, 128 + 128);  // 128 leaves of 16 nodes; 16 x 8 = 128 spines
  EXPECT_TRUE(m.diameter_sampled);
  EXPECT_EQ(m.diameter_links, 6);
  EXPECT_DOUBLE_EQ(m.bisection_bw_Bps, 8192 * 50 * kGBps);
  EXPECT_EQ(m.path.shortest_paths, 128u);  // one per spine
}

// F-21 of the 2026-11-26 campaign: 1,024-GPU nodes on a dragonfly searched from every GPU of each
// sampled node (141.8 s). Sampled, a node is searched from its first GPU on each NIC: 8 per node.
TEST(TopologyGraph, SampledDiameterSearchesFromOneGpuPerNic) {
  const TopologySpec topo =
      load_topology(test::data_dir() / "robustness" / "F-21-dragonfly-1024-gpus-per-node.t.yaml");
  const TopologyMetrics m = topology_metrics(build_topology_graph(topo, 64));
  EXPECT_EQ(m.gpus, 65536);
  EXPECT_TRUE(m.diameter_sampled);
  EXPECT_EQ(m.diameter_sources % 8, 0);
  EXPECT_LE(m.diameter_sources, 8 * 64);
  // GPU -> NVSwitch -> GPU's NIC -> router -> router (global link) -> router -> NIC -> GPU.
  EXPECT_EQ(m.diameter_links, 7);
}

// Issue 46: `run`, `plan`, `sweep` and `import` refused nothing that `topo` refuses. 512 rail-
// optimized nodes need 128 ports on each spine of 64: the same error from each.
TEST(TopologyGraph, EveryCommandRefusesAClusterTopoRefuses) {
  test::ScratchDir dir;
  const std::string rail = (test::source_dir() / "topologies" / "dgx-h100-ndr-rail.yaml").string();
  const std::string message =
      rail + ":20: field 'fabric.switch.radix (spine0)': expected at most 64 ports in use, found 128 ports in use";
  const auto scenario = [&](const std::string& name, int nodes) {
    return dir
        .write(name, fmt::format("name: rail\nmodel: {{preset: gpt3-1.3b}}\n"
                                 "training: {{global_batch: 4096, micro_batch: 1}}\nparallelism: {{dp: {}}}\n"
                                 "cluster: {{gpu: h100-sxm, nodes: {}, topology: {}}}\n",
                                 8 * nodes, nodes, rail))
        .string();
  };
  for (const std::string& args :
       {"topo " + rail + " --nodes 512", "run " + scenario("big.yaml", 512),
        "plan --model gpt3-1.3b --gpu h100-sxm --gpus 4096 --topology " + rail,
        "import " + (test::data_dir() / "traces" / "hta").string() + " --topology " + rail + " --ranks 4096"}) {
    const test::CliResult r = test::run_dtsim(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }
  // A sweep goes on past a point it cannot run, and says why.
  const test::CliResult sweep = test::run_dtsim("sweep " + scenario("small.yaml", 8) + " --gpus 64,4096");
  EXPECT_NE(sweep.output.find("invalid: " + message + " (point: cluster.nodes=512, parallelism.dp=4096)"),
            std::string::npos)
      << sweep.output;
}

// ---- bad topologies -------------------------------------------------------------------------

std::string bad_file(const std::string& name) {
  return (test::data_dir() / "topologies" / (name + ".yaml")).string();
}

TEST(TopologyGraphErrors, NicFasterThanSwitchPort) {
  const TopologySpec topo = graph_topology("bad-graph-nic-faster-than-port");
  const InputErrorInfo e = test::error_of([&] { build_topology_graph(topo, 8); });
  EXPECT_EQ(e.file, bad_file("bad-graph-nic-faster-than-port"));
  EXPECT_EQ(e.line, 10);
  EXPECT_EQ(e.field, "fabric.switch.port_Gbps (leaf0)");
  EXPECT_EQ(e.expected, "links of at most the port speed, 200 Gb/s");
  EXPECT_EQ(e.found, "node0/nic0--leaf0 at 400 Gb/s (from node0/nic0)");
}

TEST(TopologyGraphErrors, RadixExceeded) {
  // A leaf of 4 nodes x 8 NICs: 32 down-ports + 32 up-ports (non-blocking) = 64 > 48.
  const TopologySpec topo = graph_topology("bad-graph-radix");
  const InputErrorInfo e = test::error_of([&] { build_topology_graph(topo, 8); });
  EXPECT_EQ(e.line, 11);
  EXPECT_EQ(e.field, "fabric.switch.radix (leaf0)");
  EXPECT_EQ(e.expected, "at most 48 ports in use");
  EXPECT_EQ(e.found, "64 ports in use");
  // One leaf alone has no up-links: 32 ports fit.
  EXPECT_NO_THROW(build_topology_graph(topo, 4));
}

TEST(TopologyGraphErrors, UplinkFasterThanSwitchPort) {
  const TopologySpec topo = graph_topology("bad-graph-uplink-speed");
  const InputErrorInfo e = test::error_of([&] { build_topology_graph(topo, 8); });
  EXPECT_EQ(e.line, 13);
  EXPECT_EQ(e.field, "fabric.switch.port_Gbps (leaf0)");
  EXPECT_EQ(e.found, "leaf0--spine0 at 800 Gb/s (from spine0)");
}

TEST(TopologyGraphErrors, TooManyNodesForTorus) {
  const TopologySpec topo = graph_topology("bad-graph-torus-2x2");
  EXPECT_NO_THROW(build_topology_graph(topo, 4));
  const InputErrorInfo e = test::error_of([&] { build_topology_graph(topo, 5); });
  EXPECT_EQ(e.file, bad_file("bad-graph-torus-2x2"));
  EXPECT_EQ(e.field, "fabric");
  EXPECT_NE(e.expected.find("at most 4"), std::string::npos) << e.expected;
  EXPECT_EQ(e.found, "5 nodes");
}

// Hand-made graphs for the checks no YAML file can reach: the builder always wires and connects.
TopologyGraph two_node_graph(bool wire_second_nic) {
  TopologyGraph g;
  g.nodes = 2;
  g.gpus_per_node = 1;
  const GraphVertexId leaf = g.add_vertex(VertexKind::leaf, "leaf0");
  for (long n = 0; n < 2; ++n) {
    const GraphVertexId gpu = g.add_vertex(VertexKind::gpu, "node" + std::to_string(n) + "/gpu0", n);
    const GraphVertexId nic = g.add_vertex(VertexKind::nic, "node" + std::to_string(n) + "/nic0", n);
    g.gpus.push_back(gpu);
    g.add_link(gpu, nic, 50 * kGBps);
    if (n == 0 || wire_second_nic) g.add_link(nic, leaf, 50 * kGBps);
  }
  return g;
}

TEST(TopologyGraphErrors, DanglingNic) {
  const TopologySpec topo = graph_topology("graph-fattree-1gpu");
  EXPECT_NO_THROW(validate_topology_graph(two_node_graph(true), topo));
  const InputErrorInfo e = test::error_of([&] { validate_topology_graph(two_node_graph(false), topo); });
  EXPECT_EQ(e.field, "fabric (node1/nic0)");
  EXPECT_EQ(e.expected, "every NIC and switch port wired into the fabric");
  EXPECT_EQ(e.found, "nic node1/nic0 with no fabric link");
}

TEST(TopologyGraphErrors, Disconnected) {
  // Two leaves with no spine between them: every port is wired, but the halves cannot meet.
  TopologyGraph g = two_node_graph(true);
  const GraphVertexId leaf1 = g.add_vertex(VertexKind::leaf, "leaf1");
  const GraphVertexId gpu = g.add_vertex(VertexKind::gpu, "node2/gpu0", 2);
  const GraphVertexId nic = g.add_vertex(VertexKind::nic, "node2/nic0", 2);
  g.gpus.push_back(gpu);
  g.nodes = 3;
  g.add_link(gpu, nic, 50 * kGBps);
  g.add_link(nic, leaf1, 50 * kGBps);
  const InputErrorInfo e = test::error_of([&] { validate_topology_graph(g, graph_topology("graph-fattree-1gpu")); });
  EXPECT_EQ(e.field, "fabric (leaf1)");
  EXPECT_EQ(e.expected, "a connected fabric (every vertex reachable from node0/gpu0)");
  EXPECT_EQ(e.found, "leaf1 unreachable (2 separate parts)");
}

TEST(TopologyGraph, DotHasEveryVertexAndLink) {
  const TopologyGraph g = build_topology_graph(graph_topology("graph-fattree-1gpu"), 4);
  std::ostringstream out;
  write_dot(g, out);
  const std::string dot = out.str();
  EXPECT_EQ(dot.rfind("graph G {", 0), 0u) << dot;
  EXPECT_NE(dot.find("[label=\"node3/gpu0\", kind=gpu"), std::string::npos) << dot;
  EXPECT_NE(dot.find("[label=\"spine1\", kind=spine"), std::string::npos) << dot;
  size_t links = 0;
  for (size_t at = dot.find("--"); at != std::string::npos; at = dot.find("--", at + 2)) ++links;
  EXPECT_EQ(links, 16u);
  EXPECT_NE(dot.find("[label=\"50 GB/s\""), std::string::npos) << dot;
}

// ---- dtsim topo -----------------------------------------------------------------------------

std::string data_topology(const std::string& name) {
  return (test::data_dir() / "topologies" / (name + ".yaml")).string();
}

TEST(TopoCli, PrintsTheFatTreeFigures) {
  const CliResult r = run_dtsim("topo " + data_topology("graph-fattree-1gpu"));  // default: 2 leaves = 4 nodes
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("topology          graph-fattree-1gpu"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nodes             4 x node: 1 GPU each (4 in all)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("16 vertices, 16 links: 4 GPUs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("diameter          6 links, 3 switch hops between GPUs (exact"), std::string::npos)
      << r.output;
  // 2 up-links x 50 GB/s = 100 GB/s = 0.8 Tb/s; 50 GB/s for each of the 2 GPUs of the first half.
  EXPECT_NE(r.output.find("bisection         100.0 GB/s = 0.8 Tb/s one direction, nodes 0-1 | 2-3 (50.0 GB/s per GPU"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("oversubscription  leaf 1.00:1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("node0/gpu0 -> node3/gpu0: 2 shortest paths of 6 links (3 switch hops); 1 edge-disjoint "
                          "path\n"),
            std::string::npos)
      << r.output;
}

TEST(TopoCli, NodesFlagAndOversubscription) {
  const CliResult r = run_dtsim("topo " + data_topology("graph-fattree-1gpu-2to1") + " --nodes 8");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // 4 leaves, one 50 GB/s up-link each: leaves 0-1 (nodes 0-3) send 2 x 50 GB/s.
  EXPECT_NE(r.output.find("bisection         100.0 GB/s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("oversubscription  leaf 2.00:1"), std::string::npos) << r.output;
}

TEST(TopoCli, WritesDot) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "dtsim-topo-cli-test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path dot = dir / "rail.dot";
  const CliResult r = run_dtsim("topo " + data_topology("graph-rail-2gpu") + " --dot " + dot.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("graph written to " + dot.string()), std::string::npos) << r.output;
  std::ifstream in(dot);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("[label=\"rail1/group1\", kind=rail_leaf"), std::string::npos) << text;
  EXPECT_FALSE(std::filesystem::exists(dot.string() + ".tmp"));
  std::filesystem::remove_all(dir);
}

TEST(TopoCli, BadTopologyExitsTwoNamingTheSwitch) {
  const CliResult r = run_dtsim("topo " + data_topology("bad-graph-radix"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("dtsim: error: " + data_topology("bad-graph-radix") +
                          ":11: field 'fabric.switch.radix (leaf0)': expected at most 48 ports in use, found 64 ports "
                          "in use"),
            std::string::npos)
      << r.output;
}

TEST(TopoCli, TooManyNodesAndBadFlags) {
  CliResult r = run_dtsim("topo " + data_topology("bad-graph-torus-2x2") + " --nodes 5");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("found 5 nodes"), std::string::npos) << r.output;
  r = run_dtsim("topo " + data_topology("graph-torus-4x2") + " --nodes 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_dtsim("topo " + data_topology("graph-torus-4x2") + " --dot /no/such/dir/t.dot");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("field '--dot'"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace dtsim
