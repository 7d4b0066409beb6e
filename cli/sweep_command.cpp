#include "sweep_command.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <vector>

#include "flag_values.hpp"
#include "input_error.hpp"
#include "planner.hpp"
#include "scenario_loader.hpp"
#include "sweep.hpp"
#include "training_cost.hpp"

#ifdef DTSIM_WITH_PLOT
#include "line_chart.hpp"
#endif

namespace dtsim {

namespace {

namespace fs = std::filesystem;

// --tokens for a transformer, --samples for a layer model (its images, sequences or records); 0
// when neither is given (run_sweep takes the unit's usual amount). The other flag is an error when
// the base scenario loads and says which unit it counts in.
double amount_flag(const SweepOptions& o) {
  if (o.tokens.empty() && o.samples.empty()) return 0;
  if (!o.tokens.empty() && !o.samples.empty()) flag_error("--samples", "--tokens or --samples, not both", "both");
  const bool tokens = !o.tokens.empty();
  const std::string flag = tokens ? "--tokens" : "--samples";
  const double amount = number_flag(flag, tokens ? o.tokens : o.samples, 1, 1e30,
                                    tokens ? "a number of tokens from 1 to 1e30 (e.g. 300e9)"
                                           : "a number of samples from 1 to 1e30 (e.g. 115e6)");
  std::string unit;
  try {
    unit = load_scenario(o.scenario).throughput_unit();
  } catch (const InputError&) {
    return amount;  // the sweep reports why the base does not load where it matters
  }
  check_length_flag_unit(tokens, !tokens, unit);
  return amount;
}

struct PlotSize {
  int width_px = 0, height_px = 0;
};

PlotSize plot_size_flag(const std::string& text) {
  const std::string expected = "WIDTHxHEIGHT in pixels, each 100 to 10000 (e.g. 1000x1100)";
  const size_t x = text.find('x');
  auto number = [&](const std::string& part) {
    if (part.empty() || part.size() > 5 || part.find_first_not_of("0123456789") != std::string::npos)
      flag_error("--plot-size", expected, "'" + text + "'");
    const int n = std::stoi(part);  // at most 5 digits
    if (n < 100 || n > 10000) flag_error("--plot-size", expected, "'" + text + "'");
    return n;
  };
  if (x == std::string::npos) flag_error("--plot-size", expected, "'" + text + "'");
  return {number(text.substr(0, x)), number(text.substr(x + 1))};
}

SweepRequest request_from(const SweepOptions& o) {
  SweepRequest r;
  r.scenario_file = o.scenario;
  if (!o.gpus.empty() && !o.field.empty())
    flag_error("--gpus", "either --gpus LIST or --field PATH --values LIST, not both", "both");
  if (o.gpus.empty() && o.field.empty())
    flag_error("--gpus", "--gpus LIST or --field PATH --values LIST", "neither");
  if (!o.gpus.empty() && !o.values.empty()) flag_error("--values", "--values only with --field", "--values with --gpus");
  if (!o.field.empty() && o.values.empty()) flag_error("--values", "a list of values for --field " + o.field, "none");
  r.amount = amount_flag(o);
  r.replan = o.replan;
  r.slurm = slurm_options_from(o.slurm);
  if (o.replan && o.gpus.empty()) flag_error("--replan", "--gpus with it (a GPU-count sweep)", "--field");
  if (!o.gpus.empty()) {
    // Whole nodes: a range keeps the powers of two that are multiples of the GPUs per node.
    const int gpus_per_node = load_scenario(r.scenario_file).cluster.topology.node.gpus;
    r.gpu_counts = parse_gpu_counts("--gpus", o.gpus, gpus_per_node);
  } else {
    r.field = o.field;
    r.values = parse_sweep_values("--values", o.values);
  }
  return r;
}

#ifdef DTSIM_WITH_PLOT

// Numbers when every value is one, else nullopt.
std::optional<std::vector<double>> numeric_values(const std::vector<SweepPoint>& points) {
  std::vector<double> xs;
  for (const SweepPoint& p : points) {
    size_t used = 0;
    double x = 0;
    try {
      x = std::stod(p.value, &used);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (used != p.value.size() || !std::isfinite(x)) return std::nullopt;
    xs.push_back(x);
  }
  return xs;
}

bool powers_of_two(const std::vector<double>& xs) {
  for (double x : xs)
    if (!(x >= 1) || std::exp2(std::round(std::log2(x))) != x) return false;
  return true;
}

plot::LineChart chart_of(const SweepResult& r, PlotSize size) {
  plot::LineChart c;
  c.width_px = size.width_px;
  c.height_px = size.height_px;
  const std::string what = r.what.empty() ? r.scenario : r.what;
  c.title = r.gpu_sweep ? fmt::format("{}: scaling over GPU count", what) : fmt::format("{}: sweep of {}", what, r.swept);
  const std::optional<std::vector<double>> xs = numeric_values(r.points);
  if (r.gpu_sweep || (xs && powers_of_two(*xs))) {
    c.x_scale = plot::XScale::log2;
  } else {
    c.x_scale = xs ? plot::XScale::linear : plot::XScale::categorical;
  }
  if (xs) c.x = *xs;
  c.x_label = (r.gpu_sweep ? std::string("GPUs") : r.swept) + (c.x_scale == plot::XScale::log2 ? " (log2 scale)" : "");
  plot::Panel throughput{"Throughput (log scale)", r.unit + "s/s", {}};
  throughput.log_y = true;
  plot::Panel efficiency{"Scaling efficiency (throughput per GPU against the first point)", "%", {}};
  plot::Panel mfu{"Model FLOPs utilisation", "MFU %", {}};
  plot::Panel days{"Time to train " + format_count(r.amount) + " " + r.unit + "s", "days", {}};
  plot::Panel gpu_hours{fmt::format("GPU-hours to train (x ${:.2f} = cost)", kDefaultUsdPerGpuHour), "GPU-hours", {}};
  const double none = std::numeric_limits<double>::quiet_NaN();
  const SweepPoint* first = r.reference ? &r.points[*r.reference] : nullptr;
  for (const SweepPoint& p : r.points) {
    c.x_labels.push_back(p.value);
    c.x_notes.push_back(p.simulated() ? "" : p.status == SweepStatus::out_of_memory ? "out of memory" : to_string(p.status));
    throughput.y.push_back(p.simulated() && p.unit == r.unit ? p.throughput_per_s : none);
    // Ideal scaling: the first point's throughput per GPU at every GPU count.
    if (r.gpu_sweep && first)
      throughput.reference.push_back(p.gpus > 0 ? first->throughput_per_s / first->gpus * p.gpus : none);
    efficiency.y.push_back(p.has_scaling() ? 100 * p.scaling_efficiency : none);
    mfu.y.push_back(p.simulated() ? 100 * p.mfu : none);
    days.y.push_back(p.has_time_to_train() ? p.time_to_train_s / 86400 : none);
    gpu_hours.y.push_back(p.has_time_to_train() ? p.gpu_hours : none);
  }
  if (!throughput.reference.empty()) throughput.reference_label = "ideal scaling";
  if (r.gpu_sweep) {
    efficiency.reference.assign(r.points.size(), 100);
    efficiency.reference_label = "100%";
    c.panels = {throughput, efficiency, mfu, days, gpu_hours};
  } else {
    c.panels = {throughput, mfu, days, gpu_hours};
  }
  return c;
}

#endif

}  // namespace

bool sweep_plots_available() {
#ifdef DTSIM_WITH_PLOT
  return true;
#else
  return false;
#endif
}

SweepOptions& add_sweep_options(CLI::App& command, const std::string& default_scenario) {
  static SweepOptions o;
  o.scenario = default_scenario;
  command.add_option("scenario", o.scenario, "scenario YAML (default: scenarios/gpt3-175b-1024-a100.yaml)");
  command.add_option("--gpus", o.gpus,
                     "GPU counts: a list 64,128,256 or a range 64-1024 (its powers of two); cluster.nodes and "
                     "parallelism.dp follow, the global batch is kept");
  command.add_flag("--replan", o.replan,
                   "with --gpus: at each GPU count, the layout dtsim plan ranks first (parallelism, micro-batch, "
                   "recompute) instead of the scenario's with dp scaled");
  command.add_option("--field", o.field, "sweep this dotted scenario field instead (e.g. parallelism.tp), with --values");
  command.add_option("--values", o.values, "values of --field: a list 1,2,4, a range 1-8 (powers of two), or words");
  command.add_option("--tokens", o.tokens, "tokens to train on, for time to train (default 300e9)");
  command.add_option("--samples", o.samples,
                     "for a layer model: images, sequences or records to train on (default: 90 ImageNet epochs, "
                     "BERT's 256M sequences, one Criteo 1TB epoch)");
  command.add_option("--csv", o.csv_file, "write one line per point as CSV to this file");
  command.add_option("--json", o.json_file, "write the sweep as JSON to this file");
  command.add_option("--png", o.png_file, "draw throughput, MFU and time to train to this PNG (needs Qt 6)");
  command.add_option("--svg", o.svg_file, "draw the same chart to this SVG (needs Qt 6)");
  command.add_option("--plot-size", o.plot_size, "chart size WIDTHxHEIGHT in pixels (default 1000x1500)");
  add_slurm_flags(command, o.slurm);
  return o;
}

int run_sweep_command(const SweepOptions& options) {
  check_chart_flags(options.png_file, options.svg_file, sweep_plots_available());
  const PlotSize size = plot_size_flag(options.plot_size);
  check_output_path("--csv", options.csv_file);
  check_output_path("--json", options.json_file);
  const SweepRequest request = request_from(options);

  const SweepResult result = run_sweep(request);
  if (said_submitted(result.slurm, request.slurm)) return 0;  // dtsim collect gathers
  std::cout << format_sweep_table(result);
  if (!options.csv_file.empty()) write_announced_output("--csv", options.csv_file, sweep_to_csv(result));
  if (!options.json_file.empty())
    write_announced_output("--json", options.json_file, sweep_to_json(result).dump(2) + "\n");
#ifdef DTSIM_WITH_PLOT
  if (!options.png_file.empty() || !options.svg_file.empty()) {
    const plot::LineChart chart = chart_of(result, size);
    if (!options.png_file.empty()) write_announced_output("--png", options.png_file, plot::render_png(chart));
    if (!options.svg_file.empty()) write_announced_output("--svg", options.svg_file, plot::render_svg(chart));
  }
#else
  (void)size;
#endif
  return 0;
}

}  // namespace dtsim
