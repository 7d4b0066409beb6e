#pragma once
// A cluster topology as described by a YAML file under topologies/: what one node holds
// and how nodes are wired together.
#include <filesystem>
#include <string>

namespace dtsim {

struct NodeSpec {
  int gpus = 8;
  // NVSwitch: every GPU has one link of this bandwidth (one direction) to the switch.
  double nvlink_bw_Bps = 0;
  double nvlink_latency_s = 0;  // per traversal of a GPU's NVLink (two per GPU-to-GPU route)
  int nics = 8;                 // GPU k uses NIC k % nics
  double nic_bw_Bps = 0;        // one direction
  double nic_latency_s = 0;     // per traversal of a NIC (two per node-to-node route)
};

enum class FabricKind { fat_tree };

struct FabricSpec {
  FabricKind kind = FabricKind::fat_tree;
  int nodes_per_leaf = 16;       // nodes under one leaf switch
  double oversubscription = 1;   // leaf down-bandwidth / leaf up-bandwidth
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

}  // namespace dtsim
