#include "tree_topology.hpp"

#include <algorithm>

namespace dtsim {

std::vector<int> double_tree_parents(int nodes, int which) {
  std::vector<int> parent(nodes, -1);
  auto node_at = [&](int position) { return which == 0 ? position : nodes - 1 - position; };
  for (int p = 1; p < nodes; ++p) parent[node_at(p)] = node_at((p - 1) / 2);
  return parent;
}

int max_double_tree_degree(int nodes) {
  std::vector<int> degree(nodes, 0);
  for (int which : {0, 1}) {
    const std::vector<int> parent = double_tree_parents(nodes, which);
    for (int v = 0; v < nodes; ++v)
      if (parent[v] >= 0) {
        ++degree[v];
        ++degree[parent[v]];
      }
  }
  return nodes > 0 ? *std::max_element(degree.begin(), degree.end()) : 0;
}

}  // namespace dtsim
