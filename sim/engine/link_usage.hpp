#pragma once
// How busy each network link of the simulated platform was during the iteration: bytes carried
// in each direction, from SimGrid's link-load plugin, and what the link stands for (a GPU's
// NVLink, a node's NIC, or a link of the inter-node fabric). The GUI's topology view colours
// links with it.
#include <string>
#include <vector>

#include "link_names.hpp"

namespace dtsim {

// role, gpu, node, nic: what the link belongs to (link_names.hpp).
struct LinkUsage : LinkOwner {
  std::string name;          // SimGrid link name without _UP/_DOWN ("gpu5-nvlink", "node3-nic2")
  double bandwidth_Bps = 0;  // one direction
  double up_bytes = 0;       // carried away from the GPU / node (UP), during the iteration
  double down_bytes = 0;     // carried towards it (DOWN)

  // Busier direction's bytes / (bandwidth x iteration_s): 0 = idle, 1 = busy all the time.
  double utilisation(double iteration_s) const;
};

// A link's usage record, its owner read from its name (parse_link_name), no bytes yet.
LinkUsage classify_link(const std::string& name);

}  // namespace dtsim
