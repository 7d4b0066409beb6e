#include "plan_command.hpp"

namespace dtsim {

struct PlanOptions {};

PlanOptions& add_plan_options(CLI::App&) {
  static PlanOptions options;
  return options;
}

int run_plan_command(const PlanOptions&) { return 0; }

}  // namespace dtsim
