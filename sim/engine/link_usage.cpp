#include "link_usage.hpp"

#include <algorithm>
#include <cstdio>

namespace dtsim {

const char* to_string(LinkRole r) {
  switch (r) {
    case LinkRole::nvlink: return "nvlink";
    case LinkRole::nic: return "nic";
    case LinkRole::fabric: return "fabric";
  }
  return "?";
}

double LinkUsage::utilisation(double iteration_s) const {
  if (bandwidth_Bps <= 0 || iteration_s <= 0) return 0;
  return std::max(up_bytes, down_bytes) / (bandwidth_Bps * iteration_s);
}

LinkUsage classify_link(const std::string& name) {
  LinkUsage u;
  u.name = name;
  int a = -1, b = -1, consumed = 0;
  // The names platform_builder.cpp and rail_zone.cpp give: "gpu<rank>-nvlink", "node<n>-nic<k>".
  if (std::sscanf(name.c_str(), "gpu%d-nvlink%n", &a, &consumed) == 1 && size_t(consumed) == name.size()) {
    u.role = LinkRole::nvlink;
    u.gpu = a;
  } else if (std::sscanf(name.c_str(), "node%d-nic%d%n", &a, &b, &consumed) == 2 && size_t(consumed) == name.size()) {
    u.role = LinkRole::nic;
    u.node = a;
    u.nic = b;
  }
  return u;
}

}  // namespace dtsim
