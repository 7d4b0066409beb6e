#pragma once
// Programs of a layer-graph model trained with parameter servers (sim/workload/README.md
// "Parameter servers"): where the servers run, which weights each holds, and what every GPU does over the
// simulated iterations.
#include <vector>

#include "program.hpp"
#include "scenario.hpp"
#include "workload_builder.hpp"

namespace dtsim {

// The servers of `s` (data_parallel.strategy parameter_server or hierarchical): `servers` of
// them (one per node by default), colocated with the workers (server i on node i % nodes) or
// on dedicated nodes after the workers' (node nodes + i). Each layer's weights are one tensor,
// placed by data_parallel.sharding in layer order, so one large tensor loads one server. `buckets`
// are the pushes of one iteration (the gradient buckets of the backward pass).
ParameterServers parameter_servers(const Scenario& s, const std::vector<GradientBucket>& buckets);
// [layer]: the server holding that layer's weights, -1 for a layer without any.
std::vector<int> tensor_servers(const Scenario& s);

// parameter_server: every GPU pulls, computes, pushes each bucket as the backward pass fills it
// and waits for its pushes, data_parallel.iterations times. hierarchical: the node's first GPU
// pulls and broadcasts the weights over the node; after the backward pass the node all-reduces
// the gradients and the first GPU pushes them.
Workload assemble_parameter_server_workload(const Scenario& s, const WorkloadInputs& in);

}  // namespace dtsim
