#include "collective_plan.hpp"

#include <algorithm>
#include <map>

#include "tree_topology.hpp"

namespace dtsim {

namespace {

using Algo = CollectiveAlgorithm;
using Layout = std::vector<std::vector<int>>;  // the group's ranks, per node, in group order

Layout layout_by_node(const std::vector<int>& ranks, int gpus_per_node) {
  std::map<int, std::vector<int>> by_node;
  std::vector<int> order;
  for (int r : ranks) {
    auto& list = by_node[r / gpus_per_node];
    if (list.empty()) order.push_back(r / gpus_per_node);
    list.push_back(r);
  }
  Layout layout;
  for (int node : order) layout.push_back(by_node[node]);
  return layout;
}

std::vector<int> rotated(const std::vector<int>& v, int by) {
  std::vector<int> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = v[(i + by) % v.size()];
  return out;
}

// Collects the flows of one phase, merging flows between the same pair of ranks.
class PhaseBuilder {
 public:
  void add(int src, int dst, double bytes) {
    if (src != dst && bytes > 0) bytes_[{src, dst}] += bytes;
  }
  PlanPhase build(double latency_s) const {
    PlanPhase p;
    p.latency_s = latency_s;
    for (const auto& [pair, bytes] : bytes_) p.flows.push_back({pair.first, pair.second, bytes});
    return p;
  }

 private:
  std::map<std::pair<int, int>, double> bytes_;
};

int channel_count(const Layout& layout, const NodeSpec& node) {
  if (layout.size() == 1 || layout[0].size() == 1) return 1;
  return std::min<int>(int(layout[0].size()), node.nics);
}

// Ring edges, one ring per channel; channel c enters every node at its c-th rank, so the
// channels leave nodes through different NICs. `edge_bytes` is per ring edge, all channels.
void add_rings(PhaseBuilder& phase, const Layout& layout, const NodeSpec& node, double edge_bytes, int root = -1) {
  const int channels = channel_count(layout, node);
  for (int c = 0; c < channels; ++c) {
    std::vector<int> ring;
    for (const auto& local : layout) {
      const std::vector<int> r = rotated(local, c);
      ring.insert(ring.end(), r.begin(), r.end());
    }
    for (size_t i = 0; i < ring.size(); ++i) {
      const int dst = ring[(i + 1) % ring.size()];
      if (dst != root) phase.add(ring[i], dst, edge_bytes / channels);  // a broadcast's chain ends before its root
    }
  }
}

// Double binary trees over nodes between the c-th ranks of every node (one per channel), each
// tree edge carrying half of `bytes` each way; inside nodes, a chain from that rank.
void add_trees(PhaseBuilder& phase, const Layout& layout, int channels, double bytes, bool chains) {
  const int nodes = int(layout.size());
  for (int c = 0; c < channels; ++c) {
    auto head = [&](int v) { return layout[v][c % layout[v].size()]; };
    for (int which : {0, 1}) {
      const std::vector<int> parent = double_tree_parents(nodes, which);
      for (int v = 0; v < nodes; ++v)
        if (parent[v] >= 0) {
          phase.add(head(v), head(parent[v]), bytes / 2 / channels);  // reduce, up
          phase.add(head(parent[v]), head(v), bytes / 2 / channels);  // broadcast, down
        }
    }
    if (!chains) continue;
    for (const auto& local : layout) {
      const std::vector<int> chain = rotated(local, c);
      for (size_t k = 0; k + 1 < chain.size(); ++k) {
        phase.add(chain[k + 1], chain[k], bytes / channels);
        phase.add(chain[k], chain[k + 1], bytes / channels);
      }
    }
  }
}

void add_all_pairs(PhaseBuilder& phase, const std::vector<int>& ranks, double bytes_per_pair) {
  for (int a : ranks)
    for (int b : ranks) phase.add(a, b, bytes_per_pair);
}

// Ranks in node order: the node-major order the layout gives.
std::vector<int> node_order(const Layout& layout) {
  std::vector<int> order;
  for (const auto& local : layout) order.insert(order.end(), local.begin(), local.end());
  return order;
}

// Reduce-scatter by recursive halving, then all-gather by recursive doubling: one phase per
// distance, each paying its share of the latency.
void add_halving_doubling(std::vector<PlanPhase>& phases, CollectiveKind kind, const Layout& layout, double s,
                          double latency_s) {
  const std::vector<int> order = node_order(layout);
  const int n = int(order.size());
  std::vector<int> distances;
  if (kind != CollectiveKind::all_gather)
    for (int d = n / 2; d >= 1; d /= 2) distances.push_back(d);  // reduce-scatter by halving
  if (kind != CollectiveKind::reduce_scatter)
    for (int d = 1; d < n; d *= 2) distances.push_back(d);  // all-gather by doubling
  for (int d : distances) {
    PhaseBuilder p;
    for (int i = 0; i < n; ++i) p.add(order[i], order[i ^ d], s * d / n);
    phases.push_back(p.build(latency_s / distances.size()));
  }
}

// Reduce-scatter in each node, all-reduce across nodes per local rank, all-gather in each node.
void add_hierarchical(std::vector<PlanPhase>& phases, const Layout& layout, const NodeSpec& node,
                      Protocol protocol, const LatencyTable& table, double s) {
  const int nodes = int(layout.size()), ppn = int(layout[0].size());
  const GroupShape in_node{ppn, 1, ppn}, across{nodes, nodes, 1};
  PhaseBuilder rs, ar, ag;
  for (const auto& local : layout) add_rings(rs, {local}, node, double(ppn - 1) / ppn * s);
  for (int j = 0; j < ppn; ++j) {
    std::vector<std::vector<int>> column;
    for (const auto& local : layout) column.push_back({local[j]});
    add_rings(ar, column, node, 2.0 * (nodes - 1) / nodes * s / ppn);
  }
  for (const auto& local : layout) add_rings(ag, {local}, node, double(ppn - 1) / ppn * s);
  auto ring_latency = [&](CollectiveKind k, const GroupShape& g) {
    return estimate_collective(k, Algo::ring, protocol, g, 0, node, table).latency_s;
  };
  phases.push_back(rs.build(ring_latency(CollectiveKind::reduce_scatter, in_node)));
  phases.push_back(ar.build(ring_latency(CollectiveKind::all_reduce, across)));
  phases.push_back(ag.build(ring_latency(CollectiveKind::all_gather, in_node)));
}

// Every rank sends straight to its peers: a send/recv to the next rank, or all pairs (an
// all-reduce as reduce-scatter then all-gather, two phases).
void add_direct(std::vector<PlanPhase>& phases, CollectiveKind kind, const Layout& layout,
                const std::vector<int>& ranks, double s, double latency_s) {
  const int n = int(ranks.size());
  PhaseBuilder phase;
  if (kind == CollectiveKind::send_recv) {
    const std::vector<int> order = node_order(layout);
    for (int i = 0; i < n; ++i) phase.add(order[i], order[(i + 1) % n], s);
    phases.push_back(phase.build(latency_s));
    return;
  }
  const int count = kind == CollectiveKind::all_reduce ? 2 : 1;  // reduce-scatter, then all-gather
  add_all_pairs(phase, ranks, s / n);
  for (int i = 0; i < count; ++i) phases.push_back(phase.build(latency_s / count));
}

}  // namespace

CollectivePlan plan_collective(CollectiveKind kind, const CollectiveEstimate& chosen, const std::vector<int>& ranks,
                               int gpus_per_node, const NodeSpec& node, double bytes) {
  CollectivePlan plan;
  plan.estimate = chosen;
  const int n = int(ranks.size());
  if (n < 2) return plan;
  const LatencyTable& table = collective_latency_table();
  const Layout layout = layout_by_node(ranks, gpus_per_node);
  const int ppn = int(layout[0].size());
  // Bytes a flow carries per useful byte: the protocol's (and NVLS's) efficiency.
  const double inflate = 1.0 / protocol_efficiency(chosen.algorithm, chosen.protocol, group_shape(ranks, gpus_per_node), table);
  const double nvls_inflate = 1.0 / table.nvls_efficiency;
  const double s = bytes * inflate;

  PhaseBuilder phase;
  switch (chosen.algorithm) {
    case Algo::ring:
    case Algo::automatic:
      add_rings(phase, layout, node, ring_edge_factor(kind, n) * s, kind == CollectiveKind::broadcast ? ranks[0] : -1);
      plan.phases.push_back(phase.build(chosen.latency_s));
      break;
    case Algo::tree:
      add_trees(phase, layout, channel_count(layout, node), s, true);
      plan.phases.push_back(phase.build(chosen.latency_s));
      break;
    case Algo::nvls:
      add_all_pairs(phase, ranks, s * nvls_inflate * (n + 1) / (double(n) * (n - 1)));
      plan.phases.push_back(phase.build(chosen.latency_s));
      break;
    case Algo::nvls_tree:
      for (const auto& local : layout) add_all_pairs(phase, local, s * nvls_inflate * (ppn + 1) / (double(ppn) * (ppn - 1)));
      add_trees(phase, layout, ppn, s, false);  // one tree pair per local rank, each with 1/ppn of the buffer
      plan.phases.push_back(phase.build(chosen.latency_s));
      break;
    case Algo::recursive_halving_doubling:
      add_halving_doubling(plan.phases, kind, layout, s, chosen.latency_s);
      break;
    case Algo::hierarchical:
      add_hierarchical(plan.phases, layout, node, chosen.protocol, table, s);
      break;
    case Algo::direct:
      add_direct(plan.phases, kind, layout, ranks, s, chosen.latency_s);
      break;
  }
  return plan;
}

}  // namespace dtsim
