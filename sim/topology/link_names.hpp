#pragma once
// The SimGrid names of the links that belong to one GPU or one NIC: made by link_name (the
// platform builders create links under them, what-if events look them up) and read back by
// parse_link_name (link usage). Every other link is a fabric link; link_tier says which tier of
// the network any link is in.
//   a GPU's NVLink to its node's NVSwitch: "gpu<rank>-nvlink"
//   a node's NIC:                          "node<node>-nic<index in the node>"
//   a GPU's PCIe link to its node's CPU:   "gpu<rank>-pcie" (platforms with parameter servers)
#include <string>

namespace dtsim {

enum class LinkRole { nvlink, nic, pcie, fabric };
const char* to_string(LinkRole r);

struct LinkOwner {
  LinkRole role = LinkRole::fabric;
  int gpu = -1;             // nvlink, pcie: global rank of its GPU
  int node = -1, nic = -1;  // nic: node index and NIC index in the node

  static LinkOwner nvlink_of(int gpu) { return {LinkRole::nvlink, gpu, -1, -1}; }
  static LinkOwner nic_of(int node, int nic) { return {LinkRole::nic, -1, node, nic}; }
  static LinkOwner pcie_of(int gpu) { return {LinkRole::pcie, gpu, -1, -1}; }
};

// The name of an nvlink, nic or pcie owner's link (a fabric owner has no fixed name: "").
std::string link_name(const LinkOwner& owner);
// The owner a name stands for; a name link_name does not make is a fabric link.
LinkOwner parse_link_name(const std::string& name);

// The tiers of a cluster's network, from the GPU outwards: NVLink and PCIe inside a node, the
// NICs, the node's link to its leaf, the leaves' up-links (to spines or aggregation switches;
// rail leaves' too) and the pods' up-links to the cores (tree_fabric_zone.hpp); `fabric` is
// every other fabric link (dragonfly, torus).
enum class LinkTier { nvlink, pcie, nic, node_leaf, leaf_up, pod_up, fabric };
inline constexpr LinkTier kLinkTiers[] = {LinkTier::nvlink,  LinkTier::pcie,   LinkTier::nic,   LinkTier::node_leaf,
                                          LinkTier::leaf_up, LinkTier::pod_up, LinkTier::fabric};
const char* to_string(LinkTier t);
// A split-duplex link's direction suffix taken off its SimGrid name ("node3-nic2_DOWN" ->
// "node3-nic2"); `down` (when given) says whether it was _DOWN. Other names are returned as they are.
std::string without_direction(std::string name, bool* down = nullptr);
// The tier of a link by its SimGrid name (with or without the _UP/_DOWN of a split-duplex link).
LinkTier link_tier(const std::string& name_with_direction);

}  // namespace dtsim
