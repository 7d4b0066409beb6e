#pragma once
// MPI's all-reduce on the CPUs, as Horovod runs it without NCCL (HOROVOD_GPU_ALLREDUCE unset):
// each rank copies its fused buffer to host memory over its GPU's PCIe link, the ranks' processes
// run a ring (reduce-scatter then all-gather) whose hops between nodes cross the NIC and whose
// hops inside a node are shared-memory copies, the CPU sums the chunks, and the result is copied
// back. Memory traffic counts against the node CPU's memory bandwidth, which its ranks share:
//   copies      n bytes written (to host) or read (back) per rank;
//   reductions  3 B per byte summed (two read, one written), (p - 1) / p x n per rank;
//   ring hops   h = 2 (p - 1) / p x n sent per rank: read where it leaves, written where it
//               arrives (a shared-memory single copy or a NIC's DMA), 2h per rank.
// sim/workload/README.md "Layer graphs" ("MPI on the CPUs").
#include <vector>

#include "collective_model.hpp"

namespace dtsim {

// One rank's part: the phases run one after another (copy to host, ring, copy back).
struct HostStagedPart {
  int successor = -1, predecessor = -1;  // global ranks, ring order = the group's order
  double copy_bytes = 0;                 // each way over PCIe, and memory traffic of each copy
  double ring_network_bytes = 0;         // to the successor's node CPU; 0 when it is on this node
  double ring_memory_bytes = 0;          // on this node's CPU during the ring
  int ring_steps = 0;                    // 2 (p - 1), each paying the step latency
};

// `ranks` in ring order; rank r sits on node r / gpus_per_node. Empty part for a rank not in it.
HostStagedPart host_staged_part(const std::vector<int>& ranks, int gpus_per_node, double bytes, int rank);

// Latency of one ring step: two NIC traversals when the ring crosses nodes, nothing for
// shared memory.
double host_staged_step_latency_s(const GroupShape& g, const NodeSpec& node);

// The closed form of the same phases on a uniform group: 2 x max(n / PCIe + its latency,
// g n / memory) + max(h / NIC, g x ring memory bytes / memory) + 2 (p - 1) x step latency.
double host_staged_allreduce_s(const GroupShape& g, double bytes, const NodeSpec& node, double cpu_memory_Bps);

}  // namespace dtsim
