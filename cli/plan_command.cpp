#include "plan_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "device_spec.hpp"
#include "error_band.hpp"
#include "flag_values.hpp"
#include "input_error.hpp"
#include "input_file.hpp"
#include "planner.hpp"
#include "scenario_writer.hpp"
#include "sweep.hpp"
#include "training_cost.hpp"
#include "topology_spec.hpp"
#include "validation.hpp"

namespace dtsim {

namespace {

const std::filesystem::path kSourceDir = DTSIM_SOURCE_DIR;
const std::filesystem::path kTopologiesDir = kSourceDir / "topologies";

// Layouts simulated in full after the analytic ranking: each is a whole simulation.
constexpr int kMaxFinalists = 100;

Precision precision_flag(const std::string& text) {
  for (Precision p : {Precision::bf16, Precision::fp16, Precision::fp8, Precision::fp32})
    if (text == to_string(p)) return p;
  flag_error("--precision", "one of [bf16, fp16, fp8, fp32]", "'" + text + "'");
}

PlanRequest request_from(const PlanOptions& o) {
  PlanRequest r;
  r.model = resolve_model("--model", o.model);
  if (!o.seq_len.empty()) r.model.seq_len = int(integer_flag("--seq-len", o.seq_len, 1, 10'000'000));
  r.gpu = o.gpu;
  if (!find_device(r.gpu)) {
    flag_error("--gpu", fmt::format("one of [{}]", fmt::join(device_ids(), ", ")), "'" + r.gpu + "'");
  }
  r.topology_file = o.topology.empty() ? default_topology_for(r.gpu, kTopologiesDir) : std::filesystem::path(o.topology);
  if (!is_existing_file(r.topology_file))
    flag_error("--topology", "an existing topology file", r.topology_file.string());
  r.gpu_counts = parse_gpu_counts("--gpus", o.gpus, load_topology(r.topology_file).node.gpus);
  r.slurm = slurm_options_from(o.slurm);
  r.global_batch = int(integer_flag("--global-batch", o.global_batch, 1, 1'000'000'000));
  r.precision = precision_flag(o.precision);
  r.finalists = int(integer_flag("--finalists", o.finalists, 0, kMaxFinalists));
  r.extrapolate_micro_batches = !o.full_simulation;
  return r;
}

std::string seconds(double t) { return t > 0 ? fmt::format("{:.3f}", t) : "-"; }

// What training on the request's tokens takes on a row's layout, from the row's throughput.
TrainingCost row_cost(const PlanResult& r, const PlanRow& row, double tokens, const CostInputs& inputs) {
  Report report;
  report.gpus = row.gpus;
  report.gpus_per_node = r.base.cluster.topology.node.gpus;
  report.gpu_board_power_w = find_device(r.base.cluster.gpu)->board_power_w;
  report.node_power_w = r.base.cluster.topology.node.power_w;
  report.tokens_per_s = row.tokens_per_s;
  return training_cost(report, tokens, inputs);
}

void print_plan(std::ostream& out, const PlanResult& r, int top, const std::optional<std::pair<double, CostInputs>>& length,
                const std::map<int, ErrorBand>& bands) {
  const Scenario& s = r.base;
  out << fmt::format("model        {} ({} layers, hidden {}, {} heads, seq {}), global batch {}, {}\n", s.model.name,
                     s.model.layers, s.model.hidden, s.model.heads, s.model.seq_len, s.training.global_batch,
                     to_string(s.training.precision));
  out << fmt::format("cluster      {} ({:.0f} GB HBM), {}\n", s.cluster.gpu, r.memory_capacity_bytes / 1e9,
                     s.cluster.topology_file.filename().string());
  out << fmt::format("searched     {} layouts: {} invalid, {} out of memory, {} estimated, {} simulated\n", r.enumerated,
                     r.invalid, r.out_of_memory, r.estimated, r.simulated);
  for (size_t i = 0; i < r.invalid_by_field.size(); ++i)
    out << fmt::format("  invalid    {} by {}, e.g. {}\n", r.invalid_by_field[i].second, r.invalid_by_field[i].first,
                       r.invalid_examples[i]);
  out << fmt::format("wall time    search {:.3f} s (enumerate, check, memory, analytic, sort), simulations {:.2f} s{}\n",
                     r.search_wall_s, r.simulation_wall_s,
                     r.slurm ? fmt::format(" on Slurm (job {}, {})", r.slurm->job_id, r.slurm->work_dir.string()) : "");
  if (r.simulated > 0) out << fmt::format("simulation   {}\n", r.simulation_method);
  for (int gpus : r.gpu_counts)
    if (std::none_of(r.rows.begin(), r.rows.end(), [&](const PlanRow& row) { return row.gpus == gpus; }))
      out << fmt::format("{} GPUs: no layout fits\n", gpus);
  if (r.rows.empty()) return;
  out << "ranking      per GPU count: the best by analytic estimate simulated and ranked by simulated s/iter, the "
         "rest by analytic s/iter\n";
  if (length)
    out << fmt::format("training     {} tokens at ${:.2f} per GPU-hour, PUE {:g} (energy: {})\n",
                       format_count(length->first), length->second.usd_per_gpu_hour, length->second.pue,
                       s.cluster.topology.node.power_w > 0 ? "nodes at their datasheet power"
                                                           : "GPUs at board power; the topology gives no node power");
  for (size_t i = 0; i < r.rows.size();) {
    const int gpus = r.rows[i].gpus;
    size_t end = i;
    while (end < r.rows.size() && r.rows[end].gpus == gpus) ++end;
    out << fmt::format("\n{} GPUs ({} nodes): {} layouts fit\n", gpus, gpus / s.cluster.topology.node.gpus, end - i);
    if (const auto band = bands.find(gpus); band != bands.end() && length) {
      const TrainingCost best = row_cost(r, r.rows[i], length->first, length->second);
      out << (band->second.runs > 0
                  ? fmt::format("evidence     rank 1: {:.1f} to {:.1f} days: {}\n", band->second.low * best.time_s / 86400,
                                band->second.high * best.time_s / 86400, band->second.describe())
                  : "evidence     " + band->second.describe() + "\n");
    }
    out << fmt::format("{:>4} {:>3} {:>3} {:>3} {:>3} {:>5} {:>3} {:>3}  {:<16} {:<9} {:>4} {:>7} {:>9} {:>4} {:>10} "
                       "{:>6}",
                       "rank", "tp", "cp", "pp", "v", "dp", "ep", "mb", "schedule", "recompute", "zero", "mem GB",
                       "s/iter", "from", "tokens/s", "MFU %");
    if (length) out << fmt::format(" {:>7} {:>11} {:>13} {:>7}", "days", "GPU-hours", "cost $", "MWh");
    out << "\n";
    for (size_t k = i; k < end && int(k - i) < top; ++k) {
      const PlanRow& row = r.rows[k];
      const ParallelismConfig& p = row.parallelism;
      const double t = row.simulated_s.value_or(row.analytic_s);
      out << fmt::format("{:>4} {:>3} {:>3} {:>3} {:>3} {:>5} {:>3} {:>3}  {:<16} {:<9} {:>4} {:>7.1f} {:>9} {:>4} "
                         "{:>10} {:>6}",
                         k - i + 1, p.tp, p.cp, p.pp, p.virtual_stages, p.dp, p.ep, row.training.micro_batch,
                         to_string(p.schedule), to_string(row.training.recompute), p.zero_stage,
                         row.memory_bytes / 1e9, seconds(t), row.simulated_s ? "sim" : "est",
                         row.tokens_per_s > 0 ? fmt::format("{:.0f}", row.tokens_per_s) : "-",
                         row.mfu > 0 ? fmt::format("{:.1f}", 100 * row.mfu) : "-");
      if (length) {
        const TrainingCost c = row_cost(r, row, length->first, length->second);
        out << fmt::format(" {:>7.1f} {:>11} {:>13} {:>7.0f}", c.time_s / 86400, with_thousands(c.gpu_hours),
                           with_thousands(c.cost_usd), c.energy_mwh);
      }
      out << "\n";
      if (!row.simulation_error.empty()) out << "     simulation failed: " << row.simulation_error << "\n";
    }
    i = end;
  }
  out << "\n(s/iter: seconds per iteration, from: sim = simulated with SimGrid, est = the analytic estimate (no "
         "contention); mem GB: peak per GPU, 1e9 bytes; tokens/s and MFU from that time)\n";
}

// FILE for one GPU count; FILE-<gpus>.EXT for each of several.
std::filesystem::path scenario_file_for(const std::filesystem::path& file, int gpus, bool several) {
  if (!several) return file;
  std::filesystem::path out = file;
  out.replace_filename(fmt::format("{}-{}{}", file.stem().string(), gpus, file.extension().string()));
  return out;
}

}  // namespace

PlanOptions& add_plan_options(CLI::App& command) {
  static PlanOptions o;
  command.add_option("--model", o.model, "model preset (e.g. gpt3-175b, llama2-70b) or a Hugging Face config.json");
  command.add_option("--seq-len", o.seq_len, "sequence length (default: the model's)");
  command.add_option("--gpu", o.gpu, "GPU type (default a100-80gb-sxm)");
  command.add_option("--gpus", o.gpus, "GPU count: 1024, a list 512,1024, or a range 256-2048 (its powers of two)");
  command.add_option("--topology", o.topology, "topology YAML (default: the stock one for the GPU type)");
  command.add_option("--global-batch", o.global_batch, "sequences per iteration (default 1536)");
  command.add_option("--precision", o.precision, "bf16 | fp16 | fp8 | fp32 (default bf16)");
  command.add_option("--top", o.top, "rows printed (default 10)");
  command.add_option("--finalists", o.finalists, "best analytic layouts re-ranked by simulation (default 2, simulated two at a time; 0: none)");
  command.add_flag("--full-simulation", o.full_simulation,
                   "simulate every micro-batch of the finalists (default: pp and 2 pp micro-batches, extrapolated)");
  command.add_option("--json", o.json_file, "also write every ranked layout as JSON to this file");
  command.add_option("--tokens", o.tokens, "a training length in tokens: days, GPU-hours, cost and energy per layout");
  command.add_option("--usd-per-gpu-hour", o.usd_per_gpu_hour, "with --tokens: price of a GPU-hour (default 2.00)");
  command.add_option("--pue", o.pue, "with --tokens: the facility's power usage effectiveness (default 1.3)");
  command.add_option("--write-scenario", o.write_scenario,
                     "write the best layout as a scenario file that `dtsim run` simulates (with several GPU counts: "
                     "FILE-<gpus>.yaml for each)");
  add_slurm_flags(command, o.slurm);
  return o;
}

int run_plan_command(const PlanOptions& options) {
  const PlanRequest request = request_from(options);
  const int top = int(integer_flag("--top", options.top, 1, 1'000'000));
  check_output_path("--json", options.json_file);
  std::optional<std::pair<double, CostInputs>> length;
  if (!options.tokens.empty()) {
    length = std::pair{number_flag("--tokens", options.tokens, 1, 1e30),
                       cost_input_flags(options.usd_per_gpu_hour, options.pue)};
  } else if (!options.usd_per_gpu_hour.empty() || !options.pue.empty()) {
    flag_error(options.pue.empty() ? "--usd-per-gpu-hour" : "--pue", "--tokens with it (a training length)",
               "no --tokens");
  }
  const bool several = request.gpu_counts.size() > 1;
  if (!options.write_scenario.empty())
    for (int gpus : request.gpu_counts)
      check_output_path("--write-scenario", scenario_file_for(options.write_scenario, gpus, several).string());
  const PlanResult result = plan_layouts(request);
  if (said_submitted(result.slurm, request.slurm)) return 0;  // dtsim collect gathers
  std::map<int, ErrorBand> bands;  // per GPU count, for its best layout, where a training length is given
  if (length) {
    ValidationEvidence evidence(kSourceDir / "validation", kTopologiesDir);  // read and simulated once
    for (size_t i = 0; i < result.rows.size(); ++i)
      if (result.rank_in_count(i) == 1) bands[result.rows[i].gpus] = evidence.band(result.scenario_of(result.rows[i]));
  }
  print_plan(std::cout, result, top, length, bands);
  if (!options.json_file.empty()) {
    nlohmann::json json = plan_to_json(result);
    if (length)
      for (size_t i = 0; i < result.rows.size(); ++i) {
        json["rows"][i]["training_cost"] =
            training_cost_to_json(row_cost(result, result.rows[i], length->first, length->second));
        if (result.rank_in_count(i) == 1)
          json["rows"][i]["training_cost"]["error_band"] = error_band_to_json(bands.at(result.rows[i].gpus));
      }
    write_output_file("--json", options.json_file, json.dump(2) + "\n");
    std::cout << fmt::format("{} layouts written to {}\n", result.rows.size(), options.json_file);
  }
  if (!options.write_scenario.empty())
    for (size_t i = 0; i < result.rows.size(); ++i) {
      if (result.rank_in_count(i) != 1) continue;
      const PlanRow& row = result.rows[i];
      const std::filesystem::path file = scenario_file_for(options.write_scenario, row.gpus, several);
      const std::string comment = fmt::format(
          "Written by dtsim plan: the best of {} layouts of {} on {} x {} ({}).\nplan: {:.4f} s per iteration ({})",
          result.estimated, result.base.model.name, row.gpus, result.base.cluster.gpu, layout_label(row),
          row.simulated_s.value_or(row.analytic_s), row.simulated_s ? result.simulation_method : "analytic estimate");
      write_output_file("--write-scenario", file.string(), scenario_to_yaml(result.scenario_of(row), comment));
      std::cout << fmt::format("scenario     {} GPUs: {} written to {}\n", row.gpus, layout_label(row), file.string());
    }
  return 0;
}

}  // namespace dtsim
