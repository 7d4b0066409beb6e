#include "network_report.hpp"

#include <fmt/format.h>

#include <map>

namespace dtsim {

namespace {

bool has_routing(FabricKind k) { return k == FabricKind::fat_tree || k == FabricKind::spine_leaf; }

const char* tier_title(LinkTier t) {
  switch (t) {
    case LinkTier::nvlink: return "NVLink";
    case LinkTier::pcie: return "PCIe";
    case LinkTier::nic: return "NICs";
    case LinkTier::node_leaf: return "node-leaf";
    case LinkTier::leaf_up: return "leaf up-links";
    case LinkTier::pod_up: return "pod up-links";
    case LinkTier::fabric: return "fabric";
  }
  return "?";
}

}  // namespace

NetworkReport network_report(const ResolvedScenario& scenario, const SimulationResult& base,
                             const SimulationOptions& options) {
  NetworkReport r;
  r.iteration_s = base.engine.iteration_s;
  const FabricSpec& fabric = scenario.scenario.cluster.topology.fabric;
  if (has_routing(fabric.kind)) r.routing = to_string(fabric.routing);
  std::map<LinkTier, TierUsage> by_tier;
  for (const LinkUsage& link : base.links) {
    const LinkTier tier = link_tier(link.name);
    TierUsage& u = by_tier[tier];
    u.tier = tier;
    ++u.links;
    u.bytes += link.up_bytes + link.down_bytes;
    const double utilisation = link.utilisation(r.iteration_s);
    if (u.busiest_link.empty() || utilisation > u.busiest_utilisation) {
      u.busiest_link = link.name;
      u.busiest_utilisation = utilisation;
    }
  }
  for (LinkTier tier : kLinkTiers) {
    const auto it = by_tier.find(tier);
    if (it == by_tier.end() || it->second.bytes <= 0) continue;
    SimulationOptions unlimited = options;
    unlimited.record_link_usage = false;
    unlimited.record_trace = false;
    unlimited.unlimited_tier = tier;
    it->second.cost_s = r.iteration_s - simulate(scenario, unlimited).engine.iteration_s;
    r.tiers.push_back(it->second);
  }
  return r;
}

std::string format_network_report(const NetworkReport& r) {
  std::string out = "network by tier (one iteration; cost = iteration time minus the time with that tier unlimited)\n";
  if (!r.routing.empty()) out += fmt::format("  fabric routing    {}\n", r.routing);
  out += fmt::format("  {:<14} {:>6} {:>11} {:>10}  {:>9}  {}\n", "tier", "links", "GB carried", "cost s", "busiest",
                     "busiest link");
  for (const TierUsage& t : r.tiers)
    out += fmt::format("  {:<14} {:>6} {:>11.2f} {:>10.4f}  {:>8.1f}%  {}\n", tier_title(t.tier), t.links, t.bytes / 1e9,
                       t.cost_s, 100 * t.busiest_utilisation, t.busiest_link);
  if (r.tiers.empty()) out += "  no link carried any bytes\n";
  return out;
}

nlohmann::json network_report_to_json(const NetworkReport& r) {
  nlohmann::json tiers = nlohmann::json::array();
  for (const TierUsage& t : r.tiers)
    tiers.push_back({{"tier", to_string(t.tier)},
                     {"links", t.links},
                     {"bytes", t.bytes},
                     {"cost_s", t.cost_s},
                     {"busiest_link", t.busiest_link},
                     {"busiest_utilisation", t.busiest_utilisation}});
  nlohmann::json j = {{"iteration_s", r.iteration_s}, {"tiers", tiers}};
  if (!r.routing.empty()) j["routing"] = r.routing;
  return j;
}

}  // namespace dtsim
