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

}  // namespace dtsim
