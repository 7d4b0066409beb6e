#include "topo_command.hpp"

namespace dtsim {

void add_topo_options(CLI::App& command, TopoOptions& options) {
  command.add_option("file", options.file, "topology YAML")->required();
}
int run_topo_command(const TopoOptions&) { return 0; }

}  // namespace dtsim
