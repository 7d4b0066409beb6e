#pragma once
// How busy each network link of the simulated platform was during the iteration: bytes carried
// in each direction, from SimGrid's link-load plugin, and what the link stands for (a GPU's
// NVLink, a node's NIC, or a link of the inter-node fabric). The GUI's topology view colours
// links with it.
#include <string>
#include <vector>

namespace dtsim {

enum class LinkRole { nvlink, nic, fabric };
const char* to_string(LinkRole r);

struct LinkUsage {
  std::string name;          // SimGrid link name without _UP/_DOWN ("gpu5-nvlink", "node3-nic2")
  LinkRole role = LinkRole::fabric;
  int gpu = -1;              // nvlink: global rank of its GPU
  int node = -1, nic = -1;   // nic: node index and NIC index in the node
  double bandwidth_Bps = 0;  // one direction
  double up_bytes = 0;       // carried away from the GPU / node (UP), during the iteration
  double down_bytes = 0;     // carried towards it (DOWN)

  // Busier direction's bytes / (bandwidth x iteration_s): 0 = idle, 1 = busy all the time.
  double utilisation(double iteration_s) const;
};

// Role, GPU, node and NIC read from a SimGrid link name made by platform_builder / rail_zone
// ("gpu5-nvlink", "node3-nic2"); every other name is a fabric link.
LinkUsage classify_link(const std::string& name);

}  // namespace dtsim
