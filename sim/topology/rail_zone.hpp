#pragma once
// A rail-optimised fabric as one custom SimGrid zone that holds every GPU host of the cluster
// (a host belongs to exactly one zone, so GPUs cannot sit both in a node zone and on a rail).
//
// Per GPU (rank r = node * gpus + k): a split-duplex NVLink to the node's NVSwitch and a
// split-duplex NIC to rail k's leaf of the node's group. Per group and rail, when there is more
// than one group: one split-duplex up-link from the rail leaf to the spine tier (the spines
// themselves are non-blocking). Routes are computed from host ids on demand, so no N x N table
// is kept; a 16,384-GPU zone builds in well under a second.
//
//   same node       a -> b : nvlink(a) UP, nvlink(b) DOWN
//   same rail k     a -> b : nic(a) UP, [railup(gA,k) UP, railup(gB,k) DOWN], nic(b) DOWN
//   rail i -> rail j       : PXN as NCCL does it: nvlink(A,i) UP, nvlink(A,j) DOWN, then the
//                            rail-j route from GPU j of node A to GPU j of node B
// A route's latency is the sum of its links' latencies: 2 NVLink latencies within a node,
// 2 NIC latencies on one rail, 2 NVLink + 2 NIC latencies across rails. CM02 weights a flow's
// share of a link by 1/(route latency), so a PXN flow that shares a NIC with a same-rail flow
// gets somewhat less than half of it.
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <string>
#include <vector>

namespace dtsim {

struct RailFabricParams {
  int nodes = 1;
  int gpus_per_node = 1;    // = NICs per node = rails
  int nodes_per_group = 1;  // nodes whose NIC k share the group's rail-k leaf
  double nvlink_bw_Bps = 0, nvlink_latency_s = 0;
  double nic_bw_Bps = 0, nic_latency_s = 0;
  double rail_uplink_bw_Bps = 0;  // per rail leaf, towards the spines (unused with one group)
};

class RailZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  RailZone(const std::string& name, const RailFabricParams& params);

  // Creates the GPU hosts ("gpu<rank>") and every link. Call after set_parent() (which hands
  // the zone its network and CPU models) and before seal(). Returns the hosts by rank.
  std::vector<simgrid::s4u::Host*> populate(double gpu_speed_flops);

  int groups() const { return groups_; }

  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;
  // One edge per physical attachment instead of the base class's all-pairs route walk.
  void get_graph(const s_xbt_graph_t* graph, std::map<std::string, xbt_node_t, std::less<>>* nodes,
                 std::map<std::string, xbt_edge_t, std::less<>>* edges) override;

 private:
  struct Duplex {
    simgrid::s4u::Link* up = nullptr;    // towards the switch
    simgrid::s4u::Link* down = nullptr;  // from the switch
  };
  Duplex make_duplex(const std::string& name, double bw_Bps, double latency_s);
  int rank_of(const simgrid::kernel::routing::NetPoint* p) const;

  RailFabricParams p_;
  int groups_ = 1;
  std::vector<simgrid::s4u::Host*> hosts_by_rank_;
  std::vector<int> rank_of_id_;     // netpoint id within this zone -> rank
  std::vector<Duplex> nvlink_;      // by rank
  std::vector<Duplex> nic_;         // by rank
  std::vector<Duplex> rail_up_;     // by group * gpus_per_node + rail; empty with one group
};

}  // namespace dtsim
