#pragma once
// Predicts one collective over a size sweep on a topology, as nccl-tests measures it (each size
// simulated on its own, all GPUs in one communicator), and prints it in nccl-tests' format.
#include <functional>
#include <string>
#include <vector>

#include "program.hpp"
#include "topology_spec.hpp"

namespace dtsim {

struct CollectivePoint {
  double bytes = 0;  // nccl-tests' size: the whole buffer
  double time_s = 0;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Protocol protocol = Protocol::simple;
  double algbw_Bps = 0;
  double busbw_Bps = 0;
};

struct CollectiveSweepRequest {
  CollectiveKind kind = CollectiveKind::all_reduce;
  int gpus = 8;  // fewer than a node's GPUs, or a whole number of nodes
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  Protocol protocol = Protocol::automatic;
  std::vector<double> sizes_bytes;
};

// Throws InputError (naming the topology file) when the GPU count does not fit the topology,
// std::invalid_argument when a forced algorithm cannot run the collective.
// `on_point`, if set, is called with each size's point as soon as it is simulated.
std::vector<CollectivePoint> simulate_collective_sweep(
    const TopologySpec& topo, const CollectiveSweepRequest& request,
    const std::function<void(const CollectivePoint&)>& on_point = {});

// nccl-tests sizes: min, min*factor, ... up to max.
std::vector<double> size_sweep(double min_bytes, double max_bytes, double factor);

// The table of nccl-tests' all_reduce_perf & co, in parts so that each row prints as it is
// simulated (as nccl-tests does): the header; per size: size, count, type, redop, root, then
// time, algbw, busbw, #wrong for out-of-place and in-place (the same prediction); the footer.
std::string nccl_tests_header(const TopologySpec& topo, const CollectiveSweepRequest& request);
std::string nccl_tests_row(const CollectiveSweepRequest& request, const CollectivePoint& point);
std::string nccl_tests_footer(const std::vector<CollectivePoint>& points);

}  // namespace dtsim
