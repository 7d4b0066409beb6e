// The checks of a topology graph: switch hardware, wiring, connectivity; see topology_graph.hpp.
//
// fabric.switch checks apply to fabric switches (not NVSwitches, not torus ports): each link
// uses one port; a link may run slower than its port (auto-negotiation), never faster.
#include <boost/graph/connected_components.hpp>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "input_error.hpp"
#include "topology_graph.hpp"
#include "topology_graph_detail.hpp"

namespace dtsim {

namespace {

using detail::kGbps;
using detail::other_end;

// 1-based line of a nested key of the topology file, or of its deepest existing parent; 0 when
// the file cannot be read (e.g. a spec made in code).
int yaml_line(const std::filesystem::path& file, std::initializer_list<const char*> keys) {
  try {
    YAML::Node node = YAML::LoadFile(file.string());
    int line = 0;
    for (const char* key : keys) {
      const YAML::Node& parent = node;  // const: operator[] must not add the key
      const YAML::Node child = parent[key];
      if (!child) break;
      node.reset(child);
      line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
    }
    return line;
  } catch (const std::exception&) {
    return 0;
  }
}

[[noreturn]] void fail(const TopologySpec& topo, int line, std::string field, std::string expected,
                       std::string found) {
  throw InputError({topo.source_file.string(), line, std::move(field), std::move(expected), std::move(found)});
}

void check_switch_hardware(const TopologyGraph& tg, const TopologySpec& topo) {
  const SwitchSpec& hw = topo.fabric.switch_hw;
  const TopologyAdjacency& g = tg.graph;
  for (GraphVertexId v : boost::make_iterator_range(boost::vertices(g))) {
    if (!is_fabric_switch(g[v].kind)) continue;
    const long ports = long(boost::out_degree(v, g));
    if (hw.radix > 0 && ports > hw.radix)
      fail(topo, yaml_line(topo.source_file, {"fabric", "switch", "radix"}),
           fmt::format("fabric.switch.radix ({})", g[v].name), fmt::format("at most {} ports in use", hw.radix),
           fmt::format("{} ports in use", ports));
    if (hw.port_bw_Bps <= 0) continue;
    for (auto e : boost::make_iterator_range(boost::out_edges(v, g)))
      if (g[e].bw_Bps > hw.port_bw_Bps * (1 + 1e-9))
        fail(topo, yaml_line(topo.source_file, {"fabric", "switch", "port_Gbps"}),
             fmt::format("fabric.switch.port_Gbps ({})", g[v].name),
             fmt::format("links of at most the port speed, {:g} Gb/s", hw.port_bw_Bps / kGbps),
             fmt::format("{} at {:g} Gb/s (from {})", g[e].name, g[e].bw_Bps / kGbps, g[other_end(g, e, v)].name));
  }
}

// A port that should be wired but is not: a switch without links, or (with more than one node) a
// NIC or torus port without a link into the fabric.
void check_wired(const TopologyGraph& tg, const TopologySpec& topo) {
  const TopologyAdjacency& g = tg.graph;
  for (GraphVertexId v : boost::make_iterator_range(boost::vertices(g))) {
    const VertexKind kind = g[v].kind;
    bool wired = true;
    if (is_fabric_switch(kind)) {
      wired = boost::out_degree(v, g) > 0;
    } else if (tg.nodes > 1 && (kind == VertexKind::nic || kind == VertexKind::torus_port)) {
      wired = false;
      for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
        const VertexKind far = g[other_end(g, e, v)].kind;
        if (is_fabric_switch(far) || far == VertexKind::torus_port) wired = true;
      }
    }
    if (!wired)
      fail(topo, 0, fmt::format("fabric ({})", g[v].name), "every NIC and switch port wired into the fabric",
           fmt::format("{} {} with no fabric link", to_string(kind), g[v].name));
  }
}

void check_connected(const TopologyGraph& tg, const TopologySpec& topo) {
  const TopologyAdjacency& g = tg.graph;
  if (boost::num_vertices(g) == 0) return;
  std::vector<int> component(boost::num_vertices(g));
  const int count = boost::connected_components(g, component.data());
  if (count <= 1) return;
  const GraphVertexId origin = tg.gpus.empty() ? 0 : tg.gpus.front();
  for (GraphVertexId v : boost::make_iterator_range(boost::vertices(g)))
    if (component[v] != component[origin])
      fail(topo, 0, fmt::format("fabric ({})", g[v].name),
           fmt::format("a connected fabric (every vertex reachable from {})", g[origin].name),
           fmt::format("{} unreachable ({} separate parts)", g[v].name, count));
}

}  // namespace

void validate_topology_graph(const TopologyGraph& g, const TopologySpec& topo) {
  check_switch_hardware(g, topo);
  check_wired(g, topo);
  check_connected(g, topo);
}

}  // namespace dtsim
