// Writes a topology graph as Graphviz DOT; see topology_graph.hpp.
#include <boost/graph/graphviz.hpp>
#include <fmt/format.h>

#include <ostream>

#include "topology_graph.hpp"

namespace dtsim {

void write_dot(const TopologyGraph& tg, std::ostream& out) {
  const TopologyAdjacency& g = tg.graph;
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\\\"") : c == '\n' ? std::string(" ") : std::string(1, c);
    return q + "\"";
  };
  auto vertex_writer = [&](std::ostream& os, GraphVertexId v) {
    const VertexKind k = g[v].kind;
    const char* shape = k == VertexKind::gpu ? "box" : k == VertexKind::nic ? "ellipse" : "diamond";
    os << fmt::format("[label={}, kind={}, shape={}]", quoted(g[v].name), to_string(k), shape);
  };
  auto edge_writer = [&](std::ostream& os, TopologyAdjacency::edge_descriptor e) {
    os << fmt::format("[label=\"{:g} GB/s\", bandwidth_Bps={:.0f}]", g[e].bw_Bps / 1e9, g[e].bw_Bps);
  };
  auto graph_writer = [&](std::ostream& os) {
    os << fmt::format("label={};\n", quoted(fmt::format("{} ({} nodes)", tg.topology_name, tg.nodes)));
  };
  boost::write_graphviz(out, g, vertex_writer, edge_writer, graph_writer);
}

}  // namespace dtsim
