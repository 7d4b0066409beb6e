#include "compare_command.hpp"

#include <fmt/format.h>

#include <cstring>
#include <iostream>
#include <limits>
#include <thread>

#include "flag_values.hpp"
#include "scenario_loader.hpp"
#include "strategy_comparison.hpp"
#include "sweep_command.hpp"

#ifdef DTSIM_WITH_PLOT
#include "line_chart.hpp"
#endif

namespace dtsim {

namespace {

#ifdef DTSIM_WITH_PLOT

// "allreduce nccl + fp16 (the scenario's)" -> "DDP+fp16": short enough for a tick label.
std::string tick_label(std::string name) {
  name = name.substr(0, name.find(" ("));
  const std::pair<const char*, const char*> short_forms[] = {
      {"allreduce nccl", "DDP"}, {"allreduce horovod", "Horovod"}, {"allreduce mpi", "Horovod MPI"},
      {"parameter_server", "PS"},
      {"hierarchical", "hierarchical PS"}, {" + ", "+"}};
  for (const auto& [long_form, short_form] : short_forms)
    if (const size_t at = name.find(long_form); at != std::string::npos)
      name.replace(at, strlen(long_form), short_form);
  return name;
}

plot::LineChart chart_of(const StrategyComparison& c) {
  plot::LineChart chart;
  chart.width_px = 1200;
  chart.height_px = 800;
  chart.title = fmt::format("{}: {} on {} x {}, by data-parallel strategy", c.scenario, c.model, c.gpus, c.gpu);
  chart.x_scale = plot::XScale::categorical;
  chart.x_label = "strategy";
  plot::Panel throughput{"Throughput", c.sample_unit + "s/s", {}};
  plot::Panel scaling{"Scaling efficiency (against the GPUs training alone)", "%", {}};
  const double none = std::numeric_limits<double>::quiet_NaN();
  for (const StrategyOutcome& r : c.rows) {
    chart.x_labels.push_back(tick_label(r.strategy));
    chart.x_notes.push_back(r.error.empty() ? "" : "not simulated");
    throughput.y.push_back(r.error.empty() ? r.samples_per_s : none);
    scaling.y.push_back(r.error.empty() ? 100 * r.scaling_efficiency : none);
  }
  chart.panels = {throughput, scaling};
  return chart;
}

#endif

}  // namespace

CompareOptions& add_compare_options(CLI::App& command, const std::string& default_scenario) {
  static CompareOptions o;
  o.scenario = default_scenario;
  command.add_option("scenario", o.scenario,
                     "scenario YAML with a layer-graph model (default: scenarios/vgg16-16-k80-parameter-server.yaml)");
  command.add_option("--json", o.json_file, "write the comparison as JSON to this file");
  command.add_option("--png", o.png_file,
                     "draw throughput and scaling efficiency per strategy to this PNG (needs Qt 6)");
  command.add_option("--svg", o.svg_file, "draw the same chart to this SVG (needs Qt 6)");
  command.add_option("--samples", o.samples,
                     "images, sequences or records to train on, for days, GPU-hours, cost and energy (default: a "
                     "usual run, e.g. 90 ImageNet epochs)");
  command.add_option("--usd-per-gpu-hour", o.usd_per_gpu_hour, "price of a GPU-hour (default 2.00)");
  command.add_option("--pue", o.pue, "the facility's power usage effectiveness (default 1.3)");
  add_slurm_flags(command, o.slurm);
  return o;
}

int run_compare_command(const CompareOptions& options) {
  check_chart_flags(options.png_file, options.svg_file, sweep_plots_available());
  check_output_path("--json", options.json_file);
  const double samples =
      options.samples.empty() ? 0 : number_flag("--samples", options.samples, 1, 1e30, "a number of samples from 1 to 1e30");
  const CostInputs inputs = cost_input_flags(options.usd_per_gpu_hour, options.pue);
  const int parallel = int(std::max(1u, std::thread::hardware_concurrency()));
  const std::optional<SlurmOptions> slurm = slurm_options_from(options.slurm);
  const StrategyComparison c = compare_strategies(load_scenario(options.scenario), parallel, samples, inputs, slurm);
  if (said_submitted(c.slurm, slurm)) return 0;  // dtsim collect gathers
  std::cout << format_strategy_comparison(c);
  if (!options.json_file.empty())
    write_announced_output("--json", options.json_file, strategy_comparison_to_json(c).dump(2) + "\n");
#ifdef DTSIM_WITH_PLOT
  if (!options.png_file.empty() || !options.svg_file.empty()) {
    const plot::LineChart chart = chart_of(c);
    if (!options.png_file.empty()) write_announced_output("--png", options.png_file, plot::render_png(chart));
    if (!options.svg_file.empty()) write_announced_output("--svg", options.svg_file, plot::render_svg(chart));
  }
#endif
  return 0;
}

}  // namespace dtsim
