#pragma once
// A cluster topology as described by a YAML file under topologies/: what one node holds and
// how nodes are wired together. The number of nodes is not part of it: a scenario (or the
// --nodes/--gpus flag of `dtsim topo` and `dtsim collective`) says how many are used.
#include <filesystem>
#include <string>
#include <vector>

namespace dtsim {

struct NodeSpec {
  std::string type;  // free label, e.g. "DGX H100"
  int gpus = 8;      // GPUs sharing one NVLink domain (72 for a GB200 NVL72 rack)
  // NVSwitch: every GPU has one link of this bandwidth (one direction) to the switch.
  int nvlink_generation = 0;     // 0 = not stated
  double nvlink_bw_Bps = 0;
  double nvlink_latency_s = 0;   // per traversal of a GPU's NVLink (two per GPU-to-GPU route)
  bool nvlink_sharp = false;     // NVSwitch reduces in the switch (NVLS, NVLink4 and later)
  int nics = 8;                  // GPU k uses NIC k % nics
  double nic_bw_Bps = 0;         // one direction
  double nic_latency_s = 0;      // per traversal of a NIC (two per node-to-node route)
  double nic_aggregate_bw_Bps() const { return nic_bw_Bps * nics; }
  // Each GPU's PCIe link to the node's CPU (parameter servers on the CPU reach the GPUs over it).
  // Default: Gen3 x16 at the 12 GB/s NCCL counts on (src/graph/topo.h PCI_BW), 1 us a traversal.
  double pcie_bw_Bps = 12e9;
  double pcie_latency_s = 1e-6;
  // The whole node's maximum power from its datasheet (GPUs, CPUs, NICs, NVSwitches, fans), W;
  // 0 when the file does not say (energy is then the GPUs' alone).
  double power_w = 0;
  bool operator==(const NodeSpec&) const = default;
};

enum class FabricKind { fat_tree, spine_leaf, rail_optimized, dragonfly, torus };
const char* to_string(FabricKind k);

// How a fat_tree or spine_leaf fabric picks one of the equal-cost paths up the tree
// (tree_fabric_zone.hpp): by the destination (an InfiniBand subnet manager's static D-mod-K
// tables, SimGrid's fat-tree), by a hash of the two endpoints (Ethernet ECMP, so flows can
// collide on one up-link while another idles), or spread over all of them by load (InfiniBand
// adaptive routing, modelled as perfect load balancing).
enum class FabricRouting { static_routing, ecmp, adaptive };
const char* to_string(FabricRouting r);
inline constexpr FabricRouting kFabricRoutings[] = {FabricRouting::static_routing, FabricRouting::ecmp,
                                                    FabricRouting::adaptive};

// Optional switch hardware; when given, the topology graph checks ports and speeds against it.
struct SwitchSpec {
  int radix = 0;             // ports per switch; 0 = not checked
  double port_bw_Bps = 0;    // one direction; 0 = not checked
};

struct FabricSpec {
  FabricKind kind = FabricKind::fat_tree;
  // fat_tree, spine_leaf, rail_optimized: nodes under one leaf (for rail_optimized: nodes in one
  // rail group, whose NIC k all go to that group's rail-k leaf).
  int nodes_per_leaf = 16;
  double oversubscription = 1;  // leaf down-bandwidth / leaf up-bandwidth (fat_tree, rail_optimized)
  // fat_tree only
  int tiers = 2;                    // 2 (leaf, spine) or 3 (leaf, aggregation, core)
  int leaves_per_pod = 0;           // tiers 3: leaves under one aggregation block
  double pod_oversubscription = 1;  // tiers 3: pod down-bandwidth / pod up-bandwidth
  // spine_leaf: every leaf has one up-link of uplink_bw_Bps to each of `spines` spines.
  int spines = 0;
  double uplink_bw_Bps = 0;
  FabricRouting routing = FabricRouting::static_routing;  // fat_tree, spine_leaf
  // dragonfly (SimGrid's DragonflyZone): groups x chassis x routers, nodes per router
  int groups = 0, chassis_per_group = 0, routers_per_chassis = 0, nodes_per_router = 0;
  // torus (SimGrid's TorusZone): one node per position
  std::vector<int> dimensions;
  SwitchSpec switch_hw;
  // How many nodes this fabric can hold at most (0 = no limit).
  long capacity_nodes() const;
};

struct TopologySpec {
  std::string name;
  std::string description;
  std::filesystem::path source_file;
  NodeSpec node;
  FabricSpec fabric;
};

// Reads and checks a topology YAML file; bad input throws InputError.
TopologySpec load_topology(const std::filesystem::path& file);

// Throws InputError (naming the topology file and field) when `nodes` do not fit the fabric.
void check_node_count(const TopologySpec& topo, long nodes, const std::string& requested_by);

}  // namespace dtsim
