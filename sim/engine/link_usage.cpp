#include "link_usage.hpp"

#include <algorithm>

namespace dtsim {

double LinkUsage::utilisation(double iteration_s) const {
  if (bandwidth_Bps <= 0 || iteration_s <= 0) return 0;
  return std::max(up_bytes, down_bytes) / (bandwidth_Bps * iteration_s);
}

LinkUsage classify_link(const std::string& name) {
  LinkUsage u;
  static_cast<LinkOwner&>(u) = parse_link_name(name);
  u.name = name;
  return u;
}

}  // namespace dtsim
