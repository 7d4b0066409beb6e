#pragma once
// Turns a TopologySpec into a SimGrid platform, built in C++ (no XML):
//   root zone "cluster"
//   └─ "fabric-holder" (built detached from the root, attached at the end: build time stays
//      linear, see build_platform), holding "fabric", one of
//      ├─ fat_tree / spine_leaf: FatTreeZone of node zones
//      ├─ dragonfly: DragonflyZone of node zones (plus node-less routers where SimGrid needs them)
//      ├─ torus: TorusZone of node zones
//      │    node zone (full zone, one per node): GPUs, a gateway router, per-GPU NVLink and
//      │    per-NIC links; GPU k leaves the node through NIC k % nics; with CPU hosts (parameter
//      │    servers), a CPU reached from each GPU over its PCIe link and from outside over NIC 0
//      └─ rail_optimized: one RailZone (rail_zone.hpp) holding every GPU directly
// Positions of a cluster zone beyond the last node hold empty routers. Fabric links
// (fat-tree, dragonfly, torus) carry one node's aggregate NIC bandwidth. Network
// latency sits on the NVLink and NIC links only, so every route of one kind has the same
// latency and CM02 splits shared links equally (in SimGrid 3.32 a flow's share of a link is
// weighted by 1/(route latency), even in CM02).
#include <simgrid/s4u.hpp>

#include <vector>

#include "topology_spec.hpp"

namespace dtsim {

struct Platform {
  std::vector<simgrid::s4u::Host*> gpus;  // index = global rank = node * gpus_per_node + local
  std::vector<simgrid::s4u::Host*> cpus;  // index = node; empty unless asked for
  int gpus_per_node = 0;
};

// RDMA-like max-min sharing: CM02, no cross-traffic, no TCP window cap. Must run before the
// first zone is created.
void configure_network_model(simgrid::s4u::Engine& engine);

// `gpu_speed_flops` is each GPU host's nominal speed. With `cpu_speed` > 0 every node also gets a
// CPU host of that speed (parameter servers execute bytes of memory traffic: B/s). Throws
// InputError when `nodes` do not fit a dragonfly or torus, or CPUs are asked of a rail fabric.
Platform build_platform(const TopologySpec& topo, int nodes, double gpu_speed_flops, double cpu_speed = 0);

// The SimGrid fat-tree that stands for a fat_tree or spine_leaf fabric of `nodes` nodes, in
// FatTreeParams terms: down[i] children per level-(i+1) switch, up[i] parents per level-i
// element, one link of node-aggregate NIC bandwidth to each parent.
//   1 leaf:   {nodes}                            {1}
//   2 tiers:  {per_leaf, leaves}                 {1, spines}
//   3 tiers:  {per_leaf, leaves_per_pod, pods}   {1, aggregations, cores}  (2 tiers if 1 pod)
// spines (aggregations) = round(nodes_per_leaf / oversubscription) >= 1 and
// cores = round(leaves_per_pod / pod_oversubscription) >= 1, so the leaf's and the
// aggregation switch's down/up ratios are the requested oversubscriptions (exact when the
// division is). A spine_leaf fabric is a 2-tier tree whose leaf up-bandwidth, spines x uplink,
// is rounded to whole node links: its oversubscription (topology_spec.cpp) gives the count.
struct FatTreeShape {
  std::vector<unsigned> down, up;
};
FatTreeShape fat_tree_shape(const FabricSpec& fabric, int nodes);

}  // namespace dtsim
