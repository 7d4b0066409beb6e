#include "topo_command.hpp"

#include <fmt/format.h>

#include <iostream>
#include <limits>
#include <sstream>

#include "flag_values.hpp"
#include "input_error.hpp"
#include "size_limits.hpp"
#include "topology_graph.hpp"
#include "topology_spec.hpp"

namespace dtsim {

namespace {

constexpr int kLabelWidth = 18;
constexpr size_t kTextWidth = 110;

// "1 GPU", "8 GPUs"
std::string count(unsigned long long n, const std::string& what) {
  if (n == std::numeric_limits<std::uint64_t>::max()) return fmt::format("over {:.3g} {}s", double(n), what);
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}
std::string gb_per_s(double Bps) { return fmt::format("{:.1f} GB/s", Bps / 1e9); }
std::string tb_per_s(double Bps) { return fmt::format("{:.1f} Tb/s", Bps * 8 / 1e12); }

// "label             text", text wrapped at kTextWidth and indented under itself.
void row(std::ostream& out, const std::string& label, const std::string& text) {
  std::istringstream words(text);
  std::string word, line;
  bool first = true;
  auto flush = [&] {
    out << fmt::format("{:<{}}{}\n", first ? label : "", kLabelWidth, line);
    first = false;
    line.clear();
  };
  while (words >> word) {
    if (!line.empty() && kLabelWidth + line.size() + 1 + word.size() > kTextWidth) flush();
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || first) flush();
}

std::string node_summary(const TopologySpec& topo, long nodes) {
  const NodeSpec& n = topo.node;
  const std::string nvlink = n.nvlink_generation ? fmt::format("NVLink {}", n.nvlink_generation) : "NVLink";
  return fmt::format("{} x {}: {} each ({} in all) on {} ({} per GPU and direction{}), {} x {:g} Gb/s "
                     "({} = {} per node)",
                     nodes, n.type.empty() ? "node" : n.type, count(n.gpus, "GPU"), nodes * n.gpus, nvlink,
                     gb_per_s(n.nvlink_bw_Bps), n.nvlink_sharp ? ", SHARP" : "", count(n.nics, "NIC"),
                     n.nic_bw_Bps * 8 / 1e9,
                     tb_per_s(n.nic_aggregate_bw_Bps()), gb_per_s(n.nic_aggregate_bw_Bps()));
}

void print_topology(std::ostream& out, const TopologySpec& topo, const TopologyGraph& g, const TopologyMetrics& m) {
  row(out, "topology", fmt::format("{} ({})", topo.name, topo.source_file.string()));
  if (!topo.description.empty()) row(out, "description", topo.description);
  row(out, "nodes", node_summary(topo, g.nodes));
  row(out, "fabric", g.fabric_summary);
  row(out, "graph", fmt::format("{} vertices, {} links: {} GPUs, {} NVSwitches, {} NICs, {} fabric switches",
                                m.vertices, m.links, m.gpus, m.nvswitches, m.nics, m.fabric_switches));
  row(out, "diameter", fmt::format("{} links, {} switch hops between GPUs ({}: BFS from {} of {} GPUs)",
                                   m.diameter_links, m.diameter_switches, m.diameter_sampled ? "sampled" : "exact",
                                   m.diameter_sources, m.gpus));
  if (g.nodes > 1) {
    const long first_half_gpus = m.bisection_split_node * g.gpus_per_node;
    row(out, "bisection",
        fmt::format("{} = {} one direction, nodes 0-{} | {}-{} ({} per GPU of the first half)",
                    gb_per_s(m.bisection_bw_Bps), tb_per_s(m.bisection_bw_Bps), m.bisection_split_node - 1,
                    m.bisection_split_node, g.nodes - 1, gb_per_s(m.bisection_bw_Bps / first_half_gpus)));
  } else {
    row(out, "bisection", "none: one node");
  }
  std::string ratios;
  for (const TierOversubscription& t : m.oversubscription)
    ratios += fmt::format("{}{} {:.2f}:1", ratios.empty() ? "" : ", ", to_string(t.tier), t.max_ratio);
  row(out, "oversubscription",
      ratios.empty() ? "none: no switch tier has up-links" : ratios + " (down : up, worst switch)");
  if (g.nodes > 1) {
    const GraphVertexId from = g.gpus[m.path_from_gpu], to = g.gpus[m.path_to_gpu];
    row(out, "path diversity",
        fmt::format("{} -> {}: {} of {} links ({} switch hops); {}", g.vertex(from).name, g.vertex(to).name,
                    count(m.path.shortest_paths, "shortest path"), m.path.links, m.path.switches,
                    count(m.edge_disjoint_paths, "edge-disjoint path")));
  }
  row(out, "", "(links: cables crossed; switch hops: NVSwitches, fabric switches and torus ports crossed)");
}

}  // namespace

void add_topo_options(CLI::App& command, TopoOptions& options) {
  command.add_option("file", options.file, "topology YAML")->required();
  command.add_option("--nodes", options.nodes, "number of nodes (default: two leaves or groups, two pods, or the "
                                                "whole dragonfly / torus)");
  command.add_option("--dot", options.dot_file, "also write the graph as Graphviz DOT to this file");
}

int run_topo_command(const TopoOptions& options) {
  check_output_path("--dot", options.dot_file);
  const TopologySpec topo = load_topology(options.file);
  const long max_nodes = kMaxGpus / topo.node.gpus;
  const std::string limit = fmt::format("1 to {} nodes of {} GPUs ({} GPUs, the largest graph dtsim builds)",
                                        max_nodes, topo.node.gpus, kMaxGpus);
  const long nodes = options.nodes.empty() ? default_node_count(topo)
                                           : long(integer_flag("--nodes", options.nodes, 1, max_nodes, limit));
  if (nodes > max_nodes)  // the default: the whole fabric
    flag_error("--nodes", limit + "; the default is the whole fabric, give fewer", std::to_string(nodes));
  const TopologyGraph graph = build_topology_graph(topo, nodes);
  const TopologyMetrics metrics = topology_metrics(graph);
  print_topology(std::cout, topo, graph, metrics);
  if (!options.dot_file.empty()) {
    std::ostringstream dot;
    write_dot(graph, dot);
    write_output_file("--dot", options.dot_file, dot.str());
    std::cout << fmt::format("graph written to {} (Graphviz DOT)\n", options.dot_file);
  }
  return 0;
}

}  // namespace dtsim
