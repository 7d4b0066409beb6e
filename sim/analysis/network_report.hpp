#pragma once
// Why the network matters or not: for each tier of the cluster's network (link_names.hpp,
// LinkTier), the bytes its links carried in one iteration, its busiest link and how busy that
// link was, and what the tier costs: the iteration time minus the iteration time with every link
// of that tier a million times faster (the exposed communication the tier causes; the tiers'
// costs need not add up, as a faster tier can leave another the bottleneck).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "link_names.hpp"
#include "simulation.hpp"

namespace dtsim {

struct TierUsage {
  LinkTier tier = LinkTier::fabric;
  int links = 0;                  // split-duplex links of the tier on the platform
  double bytes = 0;               // carried by its links, both directions, in the iteration
  std::string busiest_link;       // the link of the highest utilisation
  double busiest_utilisation = 0; // its busier direction's bytes / (bandwidth x iteration)
  double cost_s = 0;              // iteration time minus the time with the tier unlimited
};

struct NetworkReport {
  double iteration_s = 0;
  std::string routing;  // the fabric's (topology_spec.hpp, FabricRouting), "" where it has none
  std::vector<TierUsage> tiers;  // the tiers whose links carried bytes, from the GPU outwards
};

// `base` is the scenario's simulation with link usage recorded (SimulationOptions::
// record_link_usage); each tier that carried bytes is simulated once more with `options`.
NetworkReport network_report(const ResolvedScenario& scenario, const SimulationResult& base,
                             const SimulationOptions& options);
std::string format_network_report(const NetworkReport& r);
nlohmann::json network_report_to_json(const NetworkReport& r);

}  // namespace dtsim
