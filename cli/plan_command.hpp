#pragma once
// `dtsim plan`: the best parallel layouts of a model on a number of GPUs (see sim/planner.hpp).
#include <CLI/CLI.hpp>

#include <string>

namespace dtsim {

struct PlanOptions;  // defined in plan_command.cpp

// Returns the options object the parsed flags are written into (owned by the command).
PlanOptions& add_plan_options(CLI::App& command);
int run_plan_command(const PlanOptions& options);

}  // namespace dtsim
