#include "collective_sweep.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "collective_model.hpp"
#include "input_error.hpp"
#include "simulation.hpp"

namespace dtsim {

namespace {

constexpr double kGpuSpeedFlops = 1e12;  // no compute happens; any speed will do
constexpr double kFloatBytes = 4;        // nccl-tests' default type

int nodes_for(const TopologySpec& topo, int gpus) {
  const int per_node = topo.node.gpus;
  if (gpus < 2 || (gpus > per_node && gpus % per_node != 0))
    flag_error("--gpus",
               fmt::format("2 to {} GPUs, or a multiple of {} (whole nodes of {})", per_node, per_node, topo.name),
               std::to_string(gpus));
  const int nodes = (gpus + per_node - 1) / per_node;
  check_node_count(topo, nodes, "--gpus");
  return nodes;
}

Workload one_collective(int gpus, int gpus_per_node, const CollectiveSweepRequest& req, double bytes) {
  Workload w;
  CommGroup group{"all", {}};
  const int per_node = std::min(gpus, gpus_per_node);
  for (int i = 0; i < gpus; ++i) group.ranks.push_back(i / per_node * gpus_per_node + i % per_node);
  const int world = group.ranks.back() + 1;
  w.ranks.resize(world);
  for (int r : group.ranks)
    w.ranks[r].tasks.push_back({.kind = TaskKind::collective, .phase = Phase::gradient_sync, .group = 0,
                                .collective = req.kind, .bytes = bytes, .algorithm = req.algorithm, .protocol = req.protocol});
  w.groups.push_back(group);
  return w;
}

const char* nccl_tests_redop(CollectiveKind k) {
  return k == CollectiveKind::all_reduce || k == CollectiveKind::reduce_scatter ? "sum" : "none";
}

// Elements per rank buffer as nccl-tests counts them.
long nccl_tests_count(CollectiveKind k, double bytes, int gpus) {
  const double elements = bytes / kFloatBytes;
  const bool per_rank = k == CollectiveKind::all_gather || k == CollectiveKind::reduce_scatter ||
                        k == CollectiveKind::all_to_all;
  return long(per_rank ? elements / gpus : elements);
}

}  // namespace

std::vector<double> size_sweep(double min_bytes, double max_bytes, double factor) {
  std::vector<double> sizes;
  for (double s = min_bytes; s <= max_bytes * (1 + 1e-12); s *= factor) {
    sizes.push_back(s);
    if (factor <= 1) break;
  }
  return sizes;
}

std::vector<CollectivePoint> simulate_collective_sweep(const TopologySpec& topo, const CollectiveSweepRequest& r,
                                                      const std::function<void(const CollectivePoint&)>& on_point) {
  const int nodes = nodes_for(topo, r.gpus);
  std::vector<CollectivePoint> points;
  for (double bytes : r.sizes_bytes) {
    const Workload w = one_collective(r.gpus, topo.node.gpus, r, bytes);
    const GroupShape shape = group_shape(w.groups[0].ranks, topo.node.gpus);
    const CollectiveEstimate chosen = choose_collective(r.kind, shape, bytes, topo.node, r.algorithm, r.protocol);
    CollectivePoint p;
    p.bytes = bytes;
    p.algorithm = chosen.algorithm;
    p.protocol = chosen.protocol;
    p.time_s = simulate_workload(topo, nodes, kGpuSpeedFlops, w, {}).engine.iteration_s;
    p.algbw_Bps = bytes / p.time_s;
    p.busbw_Bps = p.algbw_Bps * bus_bandwidth_factor(r.kind, r.gpus);
    points.push_back(p);
    if (on_point) on_point(p);
  }
  return points;
}

std::string nccl_tests_header(const TopologySpec& topo, const CollectiveSweepRequest& r) {
  const int nodes = (r.gpus + topo.node.gpus - 1) / topo.node.gpus;
  std::string out = fmt::format(
      "# dtsim collective: {} predicted (not measured) on {} GPUs, {} node(s) of {} ({})\n"
      "# algorithm/protocol: {}/{} ({} = NCCL-like choice by size)\n"
      "#\n",
      to_string(r.kind), r.gpus, nodes, topo.name, topo.source_file.filename().string(), to_string(r.algorithm),
      to_string(r.protocol), "auto");
  out += fmt::format("# {:>62}{:>32}\n", "out-of-place", "in-place");
  out += fmt::format("# {:>10} {:>12} {:>8} {:>6} {:>6} {:>8} {:>7} {:>7} {:>6} {:>8} {:>7} {:>7} {:>6}  {}\n", "size",
                     "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
                     "#wrong", "algorithm/protocol");
  out += fmt::format("# {:>10} {:>12} {:>8} {:>6} {:>6} {:>8} {:>7} {:>7} {:>6} {:>8} {:>7} {:>7} {:>6}\n", "(B)",
                     "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  return out;
}

std::string nccl_tests_row(const CollectiveSweepRequest& r, const CollectivePoint& p) {
  const double us = p.time_s * 1e6;
  const std::string time = us < 10000 ? fmt::format("{:8.2f}", us) : fmt::format("{:8.0f}", us);
  const std::string cols = fmt::format("{} {:7.2f} {:7.2f} {:>6}", time, p.algbw_Bps / 1e9, p.busbw_Bps / 1e9, "N/A");
  return fmt::format("  {:>10.0f} {:>12} {:>8} {:>6} {:>6} {} {}  # {}/{}\n", p.bytes,
                     nccl_tests_count(r.kind, p.bytes, r.gpus), "float", nccl_tests_redop(r.kind),
                     r.kind == CollectiveKind::broadcast ? 0 : -1, cols, cols, to_string(p.algorithm),
                     to_string(p.protocol));
}

std::string nccl_tests_footer(const std::vector<CollectivePoint>& points) {
  double busbw_sum = 0;
  for (const CollectivePoint& p : points) busbw_sum += p.busbw_Bps / 1e9;
  std::string out = "# Out of bounds values : 0 OK\n";
  out += fmt::format("# Avg bus bandwidth    : {:.4f}\n", points.empty() ? 0.0 : busbw_sum / points.size());
  return out;
}

}  // namespace dtsim
