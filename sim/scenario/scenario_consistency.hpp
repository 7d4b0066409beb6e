#pragma once
// Checks that apply however a scenario was made (file or code): counts and sizes in range,
// divisibility of batch, layers, heads and sequence, tp*cp*pp*dp against the cluster's GPU
// count, the schedule's and the device's requirements, event targets in range.
#include <functional>
#include <string>

#include "scenario.hpp"

namespace dtsim {

// Reports a problem with the dotted `field` by throwing (it must not return); load_scenario's
// reporter adds file and line, check_scenario_consistency's line 0.
using ConsistencyFailure =
    std::function<void(const std::string& field, const std::string& expected, const std::string& found)>;

void check_consistency(const Scenario& s, const ConsistencyFailure& fail);

// The events' targets (GPU ranks, nodes, NICs, leaf switches) on `nodes` nodes of `topology` with
// `gpus` GPUs, and their amounts and times, in range; fields named "events[i].node".
void check_events(const std::vector<Event>& events, const TopologySpec& topology, int nodes, int gpus,
                  const ConsistencyFailure& fail);

// check_consistency for scenarios built in code (validation harness, planner, tests): throws
// InputError naming the scenario's file (or "<scenario>") and line 0.
void check_scenario_consistency(const Scenario& s);

// The cluster can be built: `dtsim topo`'s checks and messages (switch ports in use per tier,
// port speeds, wiring, connectivity), an InputError naming the topology file. Once per cluster:
// load_scenario, the planner per GPU count, import per replay platform (a graph of the whole
// cluster is built for it).
void check_cluster_buildable(const TopologySpec& topology, long nodes);

// The topology's nodes are built for one GPU generation (their NVLink): an A100 on an H100 node's
// NVLink 4 and NDR NICs is a mistake unless ClusterConfig::gpu_differs_from_topology says it is
// meant. Calls `fail(expected, found)` for a mismatch.
void check_gpu_matches_topology(const ClusterConfig& cluster,
                                const std::function<void(const std::string&, const std::string&)>& fail);

}  // namespace dtsim
