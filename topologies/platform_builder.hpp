#pragma once
// Turns a TopologySpec into a SimGrid platform, built in C++ (no XML):
//   root zone
//   └─ fat-tree zone of nodes (built-in FatTreeZone); links of node-aggregate NIC bandwidth
//      └─ one full zone per node: GPUs, a gateway router, per-GPU NVLink and per-NIC links
// Network latency sits on the NVLink and NIC links only, so every inter-node route has the same
// latency and CM02 splits shared links equally (shared/notes/simgrid-3.32.md).
#include <simgrid/s4u.hpp>

#include <vector>

#include "topology_spec.hpp"

namespace dtsim {

struct Platform {
  std::vector<simgrid::s4u::Host*> gpus;  // index = global rank = node * gpus_per_node + local
  int gpus_per_node = 0;
};

// RDMA-like max-min sharing: CM02, no cross-traffic, no TCP window cap. Must run before the
// first zone is created.
void configure_network_model(simgrid::s4u::Engine& engine);

// `gpu_speed_flops` is each GPU host's nominal speed.
Platform build_platform(const TopologySpec& topo, int nodes, double gpu_speed_flops);

}  // namespace dtsim
