// MPI's all-reduce through the CPUs (issue 18: Horovod without NCCL): each rank's part of the
// ring, its closed form and the engine's run of it, by hand on nodes of two GPUs behind 10 GB/s
// PCIe, one 12.5 GB/s NIC and a CPU streaming 20 GB/s.
#include <gtest/gtest.h>

#include <fstream>

#include "host_staged_allreduce.hpp"
#include "data_parallel_config.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

constexpr double kMemoryBps = 20e9;
constexpr double kBytes = 100e6;

TEST(HostStagedAllreduce, EachRankCopiesSumsAndSendsItsShareOfTheRing) {
  // Four ranks on two nodes: ring 0 -> 1 -> 2 -> 3 -> 0; ranks 1 and 3 send across nodes.
  const std::vector<int> ranks = {0, 1, 2, 3};
  const HostStagedPart inside = host_staged_part(ranks, 2, kBytes, 0);
  EXPECT_EQ(inside.successor, 1);
  EXPECT_EQ(inside.predecessor, 3);
  EXPECT_EQ(inside.ring_network_bytes, 0);  // shared memory
  const HostStagedPart across = host_staged_part(ranks, 2, kBytes, 1);
  EXPECT_DOUBLE_EQ(across.ring_network_bytes, 150e6);  // 2 x 3/4 x 100 MB
  // Sums 3/4 x 100 MB at 3 B per byte, sends and receives 150 MB at 1 B per byte each.
  EXPECT_DOUBLE_EQ(across.ring_memory_bytes, 225e6 + 300e6);
  EXPECT_DOUBLE_EQ(across.copy_bytes, kBytes);
  EXPECT_EQ(across.ring_steps, 6);
  EXPECT_EQ(host_staged_part(ranks, 2, kBytes, 7).successor, -1);  // not in the group
}

TEST(HostStagedAllreduce, ClosedFormIsTheSlowerOfWireAndMemoryInEachPhase) {
  const NodeSpec node = test::test_topology("two-gpu-nodes-pcie").node;
  // Copies: 100 MB over 10 GB/s PCIe (10 ms + 1 us) against 2 ranks x 100 MB at 20 GB/s (10 ms).
  // Ring: 150 MB over the 12.5 GB/s NIC (12 ms) against 2 x 525 MB at 20 GB/s (52.5 ms): memory.
  // 6 steps of two NIC traversals (4 us each).
  const GroupShape g{.ranks = 4, .nodes = 2, .ranks_per_node = 2};
  const double expected_s = 2 * (0.010 + 1e-6) + 0.0525 + 6 * 4e-6;
  EXPECT_NEAR(host_staged_allreduce_s(g, kBytes, node, kMemoryBps), expected_s, 1e-12);
  // On one node the ring is all shared memory: no network, no step latency.
  const GroupShape one{.ranks = 2, .nodes = 1, .ranks_per_node = 2};
  const double one_node_s = 2 * (0.010 + 1e-6) + 2 * (3 * 0.5 + 4 * 0.5) * kBytes / kMemoryBps;
  EXPECT_NEAR(host_staged_allreduce_s(one, kBytes, node, kMemoryBps), one_node_s, 1e-12);
  EXPECT_EQ(host_staged_allreduce_s(g, 0, node, kMemoryBps), 0);
}

TEST(HostStagedAllreduce, TheEngineRunsTheSamePhases) {
  // One blocking host-staged all-reduce over four GPUs: the engine's copies, ring and step
  // latencies take what the closed form says (memory-bound ring: the node's two ranks share the CPU).
  Workload w;
  w.cpu_memory_Bps = kMemoryBps;
  w.groups.push_back({"dp", {0, 1, 2, 3}});
  for (int rank = 0; rank < 4; ++rank)
    w.ranks.push_back({0, {{.kind = TaskKind::collective, .phase = Phase::gradient_sync, .group = 0,
                            .bytes = kBytes, .host_staged = true}}});
  const TopologySpec topology = test::test_topology("two-gpu-nodes-pcie");
  const SimulationResult r = simulate_workload(topology, 2, test::kSpeed, w, {});
  const GroupShape g{.ranks = 4, .nodes = 2, .ranks_per_node = 2};
  const double expected_s = host_staged_allreduce_s(g, kBytes, topology.node, kMemoryBps);
  EXPECT_NEAR(r.engine.iteration_s, expected_s, 1e-3 * expected_s);
  EXPECT_NEAR(r.engine.ranks[0].communication_by_kind.at("dp").exposed_s, expected_s, 1e-3 * expected_s);
}

TEST(HostStagedAllreduce, OnHorovodsClusterTheCpuPathAddsTheCopiesToNcclsRing) {
  // Horovod's first README (validation/data-parallel-runs.yaml, S9): 16 GPUs, 4 per server, one
  // 25 Gb/s NIC each. VGG-16's 138,357,544 fp32 gradients (553 MB) all-reduced at once: both
  // rings are NIC-bound (2 x 15/16 x 553 MB at 3.125 GB/s, 0.33 s), and the CPU path adds its
  // two copies over 12 GB/s PCIe (46 ms each); its memory traffic, 4 ranks x 7 x 15/16 x 553 MB
  // at 76.8 GB/s (0.19 s), stays under the wire time.
  NodeSpec node = load_topology(test::source_dir() / "topologies" / "pcie-gpu-server-ethernet.yaml").node;
  node.gpus = 4;
  const GroupShape g{.ranks = 16, .nodes = 4, .ranks_per_node = 4};
  const double bytes = 138357544.0 * 4;
  const double wire_s = 2.0 * 15 / 16 * bytes / 3.125e9;
  const double copy_s = bytes / 12e9 + 1e-6;
  const double mpi_s = host_staged_allreduce_s(g, bytes, node, kServerMemoryGBs * 1e9);
  EXPECT_NEAR(mpi_s, 2 * copy_s + wire_s + 30 * 2 * 1.5e-6, 1e-9);
  const double nccl_s = choose_collective(CollectiveKind::all_reduce, g, bytes, node).time_s;
  EXPECT_GT(mpi_s, nccl_s + copy_s);
}

TEST(HostStagedAllreduce, ARailFabricHasNoNodeCpuToReduceOn) {
  const test::ScratchDir dir;
  const std::filesystem::path file = dir.path() / "rail.yaml";
  std::ofstream(file) << "name: rail-mpi\nmodel: {zoo: resnet-50}\n"
                         "training: {global_batch: 1024, micro_batch: 64, precision: bf16}\nparallelism: {dp: 16}\n"
                         "data_parallel: {strategy: allreduce, library: mpi}\n"
                         "cluster: {gpu: h100-sxm, nodes: 2, topology: "
                      << (test::source_dir() / "topologies" / "dgx-h100-ndr-rail.yaml").string() << "}\n";
  const InputErrorInfo info = test::error_of([&] { load_scenario(file); });
  EXPECT_EQ(info.field, "data_parallel.library");
  EXPECT_EQ(info.found, "mpi");
}

}  // namespace
}  // namespace dtsim
