#pragma once
// `dtsim topo FILE`: checks a topology file through its graph and prints its figures.
#include <CLI/CLI.hpp>

#include <string>

namespace dtsim {

struct TopoOptions {
  std::string file;
  std::string nodes;       // empty: a default that fills the fabric's natural unit
  std::string dot_file;    // write Graphviz DOT here when set
};

void add_topo_options(CLI::App& command, TopoOptions& options);
int run_topo_command(const TopoOptions& options);

}  // namespace dtsim
