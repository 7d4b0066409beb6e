#include "link_names.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace dtsim {

const char* to_string(LinkRole r) {
  switch (r) {
    case LinkRole::nvlink: return "nvlink";
    case LinkRole::nic: return "nic";
    case LinkRole::pcie: return "pcie";
    case LinkRole::fabric: return "fabric";
  }
  return "?";
}

std::string link_name(const LinkOwner& owner) {
  switch (owner.role) {
    case LinkRole::nvlink: return fmt::format("gpu{}-nvlink", owner.gpu);
    case LinkRole::nic: return fmt::format("node{}-nic{}", owner.node, owner.nic);
    case LinkRole::pcie: return fmt::format("gpu{}-pcie", owner.gpu);
    case LinkRole::fabric: break;
  }
  return "";
}

LinkOwner parse_link_name(const std::string& name) {
  int a = -1, b = -1, consumed = 0;
  if (std::sscanf(name.c_str(), "gpu%d-nvlink%n", &a, &consumed) == 1 && size_t(consumed) == name.size())
    return LinkOwner::nvlink_of(a);
  if (std::sscanf(name.c_str(), "gpu%d-pcie%n", &a, &consumed) == 1 && size_t(consumed) == name.size())
    return LinkOwner::pcie_of(a);
  if (std::sscanf(name.c_str(), "node%d-nic%d%n", &a, &b, &consumed) == 2 && size_t(consumed) == name.size())
    return LinkOwner::nic_of(a, b);
  return {};
}

const char* to_string(LinkTier t) {
  switch (t) {
    case LinkTier::nvlink: return "nvlink";
    case LinkTier::pcie: return "pcie";
    case LinkTier::nic: return "nic";
    case LinkTier::node_leaf: return "node-leaf";
    case LinkTier::leaf_up: return "leaf-up";
    case LinkTier::pod_up: return "pod-up";
    case LinkTier::fabric: return "fabric";
  }
  return "?";
}

std::string without_direction(std::string name, bool* down) {
  if (down) *down = false;
  for (const std::string suffix : {"_UP", "_DOWN"})
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      if (down) *down = suffix == "_DOWN";
      name.resize(name.size() - suffix.size());
      break;
    }
  return name;
}

LinkTier link_tier(const std::string& name_with_direction) {
  const std::string name = without_direction(name_with_direction);
  switch (parse_link_name(name).role) {
    case LinkRole::nvlink: return LinkTier::nvlink;
    case LinkRole::pcie: return LinkTier::pcie;
    case LinkRole::nic: return LinkTier::nic;
    case LinkRole::fabric: break;
  }
  // The names tree_fabric_zone.cpp and rail_zone.cpp give their links: whole names, or (up-links
  // of one switch to several parents) a prefix followed by the parent's index.
  const auto matches = [&](const char* pattern, int fields, bool whole) {
    int x = -1, y = -1, consumed = 0;
    const int got = fields == 1 ? std::sscanf(name.c_str(), pattern, &x, &consumed)
                                : std::sscanf(name.c_str(), pattern, &x, &y, &consumed);
    return got == fields && consumed > 0 && (!whole || size_t(consumed) == name.size());
  };
  if (matches("node%d-leaf%n", 1, true)) return LinkTier::node_leaf;
  if (matches("leaf%d-up%n", 1, false) || matches("group%d-rail%d-up%n", 2, true)) return LinkTier::leaf_up;
  if (matches("pod%d-up%n", 1, false)) return LinkTier::pod_up;
  return LinkTier::fabric;
}

}  // namespace dtsim
