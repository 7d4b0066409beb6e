#pragma once
// NCCL-style double binary tree over the nodes of a group: tree 0 is a binary heap over node
// positions (parent of p is (p-1)/2); tree 1 is its mirror (position p holds node n-1-p), so a
// node that is inner in one tree is mostly a leaf in the other. Each tree carries half the data.
#include <vector>

namespace dtsim {

// parent[node] in tree `which` (0 or 1); -1 for the root.
std::vector<int> double_tree_parents(int nodes, int which);

// Most tree edges (both trees together) any node has: it sends half the buffer on each.
int max_double_tree_degree(int nodes);

}  // namespace dtsim
