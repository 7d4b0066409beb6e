#pragma once
// Turns a TopologySpec into a SimGrid platform, built in C++ (no XML):
//   root zone "cluster"
//   └─ "fabric-holder" (built detached from the root, attached at the end: build time stays
//      linear, see build_platform), holding "fabric", one of
//      ├─ fat_tree / spine_leaf: TreeFabricZone (tree_fabric_zone.hpp) of node zones
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
#include "tree_fabric_zone.hpp"

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

// The tree fabric zone (tree_fabric_zone.hpp) that stands for a fat_tree or spine_leaf fabric
// of `nodes` nodes: leaves of nodes_per_leaf nodes (one leaf of all of them if fewer), and
//   fat_tree:   round(nodes_per_leaf / oversubscription) >= 1 up-links per leaf, and with 3
//               tiers and more than one pod, round(leaves_per_pod / pod_oversubscription) >= 1
//               core up-links per aggregation switch, every fabric link of one node's
//               aggregate NIC bandwidth, so the down/up ratios are the requested
//               oversubscriptions (exact when the division is);
//   spine_leaf: one up-link of uplink_Gbps to each of the spines.
TreeFabricParams tree_fabric_params(const TopologySpec& topo, int nodes);

}  // namespace dtsim
