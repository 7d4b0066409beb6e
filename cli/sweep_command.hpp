#pragma once
// `dtsim sweep`: a scenario at several GPU counts or values of one field, simulated in parallel on
// the local cores (see sim/analysis/sweep.hpp); a table, and optionally CSV, JSON, and the scaling curve
// (throughput, MFU, time to train) as PNG and SVG when dtsim was built with Qt 6 (plot/).
#include <CLI/CLI.hpp>

#include <string>

#include "slurm_flags.hpp"

namespace dtsim {

// Flags as written; run_sweep_command checks them (an InputError names the flag).
struct SweepOptions {
  std::string scenario;   // the default is given to add_sweep_options
  std::string gpus;       // "64,128,256" or "64-1024" (powers of two)
  std::string field;      // dotted scenario field, with --values
  std::string values;     // "1,2,4" or "1-8" (powers of two), or words ("1f1b,zero_bubble")
  std::string tokens;     // a transformer's training length; empty: 300e9 (usual_training_amount)
  std::string samples;    // a layer model's, in its images, sequences or records; empty: the usual
  std::string csv_file, json_file, png_file, svg_file;
  std::string plot_size = "1000x1500";  // WIDTHxHEIGHT in pixels, for --png and --svg
  bool replan = false;                   // --replan: dtsim plan's best layout at each GPU count
  SlurmFlags slurm;                      // --slurm and its settings
};

// Returns the options object the parsed flags are written into (owned by the command).
SweepOptions& add_sweep_options(CLI::App& command, const std::string& default_scenario);
int run_sweep_command(const SweepOptions& options);

// Whether this build can draw --png/--svg (Qt 6 was found at build time).
bool sweep_plots_available();

}  // namespace dtsim
