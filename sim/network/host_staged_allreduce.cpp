#include "host_staged_allreduce.hpp"

#include <algorithm>

namespace dtsim {

namespace {

// Bytes summed (3 B of memory traffic each) and sent then received (2 B each) by one rank.
double ring_memory_bytes(int p, double bytes) {
  const double share = double(p - 1) / p;
  return 3 * share * bytes + 2 * (2 * share * bytes);
}

}  // namespace

HostStagedPart host_staged_part(const std::vector<int>& ranks, int gpus_per_node, double bytes, int rank) {
  HostStagedPart part;
  const auto at = std::find(ranks.begin(), ranks.end(), rank);
  const int p = int(ranks.size());
  if (at == ranks.end() || p < 2) return part;
  const size_t i = size_t(at - ranks.begin());
  part.successor = ranks[(i + 1) % size_t(p)];
  part.predecessor = ranks[(i + size_t(p) - 1) % size_t(p)];
  part.copy_bytes = bytes;
  if (part.successor / gpus_per_node != rank / gpus_per_node) part.ring_network_bytes = 2.0 * (p - 1) / p * bytes;
  part.ring_memory_bytes = ring_memory_bytes(p, bytes);
  part.ring_steps = 2 * (p - 1);
  return part;
}

double host_staged_step_latency_s(const GroupShape& g, const NodeSpec& node) {
  return g.nodes > 1 ? 2 * node.nic_latency_s : 0.0;
}

double host_staged_allreduce_s(const GroupShape& g, double bytes, const NodeSpec& node, double cpu_memory_Bps) {
  const int p = g.ranks;
  if (p < 2 || bytes <= 0) return 0;
  const double per_node = g.ranks_per_node;
  const double copy_s = std::max(bytes / node.pcie_bw_Bps + node.pcie_latency_s, per_node * bytes / cpu_memory_Bps);
  const double network_s = g.nodes > 1 ? 2.0 * (p - 1) / p * bytes / node.nic_bw_Bps : 0.0;
  const double ring_s = std::max(network_s, per_node * ring_memory_bytes(p, bytes) / cpu_memory_Bps);
  return 2 * copy_s + ring_s + 2 * (p - 1) * host_staged_step_latency_s(g, node);
}

}  // namespace dtsim
