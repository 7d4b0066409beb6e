#pragma once
// NCCL-like cost model of collectives: time = latency + bytes / algorithm bandwidth, with
// latencies and protocol efficiencies as data tables shaped like NCCL's src/graph/tuning.cc,
// bandwidths from the topology. Used to choose an algorithm and protocol by message size and
// group shape as NCCL does; the engine then simulates the chosen algorithm's flows.
#include <vector>

#include "program.hpp"
#include "topology_spec.hpp"

namespace dtsim {

// How a group's ranks sit on nodes. Groups are assumed uniform (same ranks on every node).
struct GroupShape {
  int ranks = 1;
  int nodes = 1;
  int ranks_per_node = 1;
};
GroupShape group_shape(const std::vector<int>& global_ranks, int gpus_per_node);

// Latencies in microseconds, indexed by protocol (LL, LL128, Simple).
struct ProtocolValues {
  double ll = 0, ll128 = 0, simple = 0;
  double of(Protocol p) const { return p == Protocol::ll ? ll : p == Protocol::ll128 ? ll128 : simple; }
};

struct LatencyTable {
  ProtocolValues ring_base_us, tree_base_us;
  ProtocolValues ring_nvlink_step_us, tree_nvlink_step_us;  // per step over NVLink
  ProtocolValues ring_net_step_us, tree_net_step_us;        // per step over the network
  double nvls_nvlink_us = 0;      // one NVLS all-reduce inside a node (Simple only)
  double nvls_tree_net_step_us = 0;
  ProtocolValues bandwidth_efficiency;  // fraction of link bandwidth each protocol delivers
  double nvls_efficiency = 0;           // NVLS's fraction of NVLink bandwidth
};

// NCCL's constants from tuning.cc, except the base latency of the LL128 and Simple protocols,
// which measured mid-size all-reduces show to be larger (see the .cpp).
const LatencyTable& collective_latency_table();

struct CollectiveEstimate {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Protocol protocol = Protocol::simple;
  double latency_s = 0;
  double algorithm_bw_Bps = 0;  // bytes of the buffer per second once latency is paid
  double time_s = 0;
};

// Whether `algorithm` with `protocol` can run `kind` on this group (e.g. NVLS needs one
// NVLink-SHARP node; recursive halving-doubling a power-of-two group; trees several nodes).
bool is_supported(CollectiveKind kind, CollectiveAlgorithm algorithm, Protocol protocol, const GroupShape& shape,
                  const NodeSpec& node);

// Bytes a ring edge carries per byte of buffer: 2(n-1)/n for all-reduce, (n-1)/n for all-gather
// and reduce-scatter, 1 for a broadcast's chain.
double ring_edge_factor(CollectiveKind kind, int ranks);

// Fraction of link bandwidth a protocol delivers to this algorithm on this group.
double protocol_efficiency(CollectiveAlgorithm algorithm, Protocol protocol, const GroupShape& shape,
                           const LatencyTable& table);

// Time of one collective of `bytes` (nccl-tests' size: the whole buffer) by the given table.
CollectiveEstimate estimate_collective(CollectiveKind kind, CollectiveAlgorithm algorithm, Protocol protocol,
                                       const GroupShape& shape, double bytes, const NodeSpec& node,
                                       const LatencyTable& table);

// NCCL-like choice among NCCL's algorithms (ring, tree, NVLS, NVLS-tree for all-reduce; ring for
// all-gather, reduce-scatter, broadcast; direct for all-to-all and send/recv) and protocols, by
// least time under collective_latency_table(); `automatic` fields are chosen, others are kept.
// Throws std::invalid_argument when a forced algorithm/protocol cannot run this collective.
CollectiveEstimate choose_collective(CollectiveKind kind, const GroupShape& shape, double bytes, const NodeSpec& node,
                                     CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic,
                                     Protocol protocol = Protocol::automatic);

// nccl-tests: busbw = algbw x this factor (all_reduce 2(n-1)/n; all_gather, reduce_scatter,
// all_to_all (n-1)/n; broadcast, send_recv 1).
double bus_bandwidth_factor(CollectiveKind kind, int ranks);

}  // namespace dtsim
