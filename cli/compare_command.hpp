#pragma once
// `dtsim compare-strategies`: a layer-graph scenario trained with each data-parallel strategy
// side by side (sim/analysis/strategy_comparison.hpp): a table, the bottleneck of each, and
// optionally JSON and a chart (throughput and scaling efficiency per strategy, PNG or SVG, when
// dtsim was built with Qt 6).
#include <CLI/CLI.hpp>

#include <string>

#include "slurm_flags.hpp"

namespace dtsim {

struct CompareOptions {
  std::string scenario;  // the default is given to add_compare_options
  std::string json_file, png_file, svg_file;
  std::string samples, usd_per_gpu_hour, pue;  // empty: the defaults
  SlurmFlags slurm;
};

CompareOptions& add_compare_options(CLI::App& command, const std::string& default_scenario);
int run_compare_command(const CompareOptions& options);

}  // namespace dtsim
