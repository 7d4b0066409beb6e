#include "goodput_command.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "comma_list.hpp"
#include "device_spec.hpp"
#include "flag_values.hpp"
#include "goodput_setup.hpp"
#include "input_error.hpp"
#include "memory_model.hpp"
#include "planner.hpp"
#include "reliability_config.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "slurm_monte_carlo.hpp"
#include "training_cost.hpp"
#include "validation.hpp"

namespace dtsim {

namespace {

using nlohmann::json;

constexpr int kExitOutOfMemory = 3;
constexpr double kDay_s = 86400, kHour_s = 3600;

// A positive amount (tokens, days, seconds), from 1e-9 to 1e30.
double amount_flag(const std::string& flag, const std::string& text) {
  return number_flag(flag, text, 1e-9, 1e30, "a number > 0 (at most 1e30)");
}

CheckpointMode checkpoint_mode_flag(const std::string& text) {
  for (CheckpointMode m : kCheckpointModes)
    if (text == to_string(m)) return m;
  flag_error("--checkpoint", "one of [blocking, async, in_memory]", "'" + text + "'");
}

// The flags that change the scenario's reliability section; `unit`: what the scenario's model counts.
void apply_flags(const GoodputOptions& o, const std::string& unit, ReliabilityConfig& c) {
  const int given = !o.iterations.empty() + !o.tokens.empty() + !o.samples.empty() + !o.days.empty();
  if (given > 1)
    flag_error("--iterations/--tokens/--samples/--days", "at most one of them", fmt::format("{} of them", given));
  check_length_flag_unit(!o.tokens.empty(), !o.samples.empty(), unit);
  if (given == 1) c.training = TrainingLength{};
  if (!o.iterations.empty()) c.training.iterations = double(integer_flag("--iterations", o.iterations, 1, 1'000'000'000'000));
  if (!o.tokens.empty()) c.training.tokens = amount_flag("--tokens", o.tokens);
  if (!o.samples.empty()) c.training.samples = amount_flag("--samples", o.samples);
  if (!o.days.empty()) c.training.days = amount_flag("--days", o.days);
  if (!o.checkpoint_mode.empty()) c.checkpoint.mode = checkpoint_mode_flag(o.checkpoint_mode);
  if (o.interval == "auto") c.checkpoint.interval_s.reset();
  else if (!o.interval.empty()) c.checkpoint.interval_s = amount_flag("--interval", o.interval);
}

// The best layout `dtsim plan` finds for --model on --gpus of --gpu (one simulated finalist).
Scenario planned_scenario(const GoodputOptions& o) {
  const std::filesystem::path source = DTSIM_SOURCE_DIR;
  PlanRequest r;
  r.model = resolve_model("--model", o.model.empty() ? "gpt3-175b" : o.model);
  r.gpu = o.gpu.empty() ? "a100-80gb-sxm" : o.gpu;
  if (!find_device(r.gpu))
    flag_error("--gpu", fmt::format("one of [{}]", fmt::join(device_ids(), ", ")), "'" + r.gpu + "'");
  r.topology_file = default_topology_for(r.gpu, source / "topologies");
  if (o.gpus.empty()) flag_error("--gpus", "a GPU count with --model or --gpu", "none");
  r.gpu_counts = parse_gpu_counts("--gpus", o.gpus, load_topology(r.topology_file).node.gpus);
  if (r.gpu_counts.size() != 1) flag_error("--gpus", "one GPU count", o.gpus);
  if (!o.global_batch.empty()) r.global_batch = int(integer_flag("--global-batch", o.global_batch, 1, 1'000'000'000));
  r.finalists = 1;
  const PlanResult plan = plan_layouts(r);
  if (plan.rows.empty())
    flag_error("--gpus", fmt::format("a GPU count {} fits on ({} layouts invalid, {} out of memory)", r.model.name,
                                     plan.invalid, plan.out_of_memory),
               o.gpus);
  std::cout << fmt::format("layout       planned: {} (the best of {} layouts, dtsim plan)\n", layout_label(plan.rows[0]),
                           plan.estimated);
  return plan.scenario_of(plan.rows[0]);
}

std::vector<RecoveryStrategy> strategies_of(const std::string& flag) {
  if (flag == "all") return {std::begin(kRecoveryStrategies), std::end(kRecoveryStrategies)};
  try {
    return {recovery_strategy_from(flag)};
  } catch (const std::invalid_argument&) {
    flag_error("--strategy", "one of [wait_for_repair, spare_nodes, elastic, all]", "'" + flag + "'");
  }
}

std::string hours(double mtbf_hours) { return std::isinf(mtbf_hours) ? "never" : fmt::format("{:.0f}", mtbf_hours); }
std::string per_day(double rate_per_s) { return fmt::format("{:.3f}", rate_per_s * kDay_s); }
std::string cluster_mtbf_hours(double rate_per_s) {
  return rate_per_s > 0 ? fmt::format("{:.1f}", 1 / rate_per_s / kHour_s) : "never";
}
std::string days(double s) { return std::isfinite(s) ? fmt::format("{:.2f}", s / kDay_s) : "inf"; }
std::string percent(double f) { return fmt::format("{:.2f}", 100 * f); }

void print_setup(std::ostream& out, const Scenario& s, const GoodputSetup& g, double simulation_wall_s) {
  const ParallelismConfig& p = s.parallelism;
  out << fmt::format("scenario     {}: {} on {} {} ({} nodes; tp {} cp {} pp {} dp {})\n", s.name, s.model.name, g.gpus,
                     s.cluster.gpu, g.nodes, p.tp, p.cp, p.pp, p.dp);
  out << fmt::format("iteration    {:.3f} s (simulated, {:.1f} s wall)\n", g.iteration_s, simulation_wall_s);
  out << fmt::format("training     {:.0f} iterations ({}), {:.2f} days of failure-free compute\n", g.iterations,
                     g.training_source, g.problem.work_s / kDay_s);
  out << "\nfailure rates (MTBF per unit: Llama 3 405B pre-training defaults, see docs/goodput.md; reliability.mtbf_hours)\n";
  out << fmt::format("  {:<10} {:>7} {:>13} {:>15} {:>13}  {}\n", "component", "units", "MTBF/unit h", "cluster MTBF h",
                     "failures/day", "after a failure");
  for (const FailureClass& c : g.problem.failures)
    out << fmt::format("  {:<10} {:>7.0f} {:>13} {:>15} {:>13}  {}\n", c.name, c.units, hours(c.mtbf_hours),
                       cluster_mtbf_hours(c.rate_per_s()), per_day(c.rate_per_s()),
                       c.takes_node_out ? "node out until repaired" : "restart");
  const double rate = g.problem.failure_rate_per_s();
  out << fmt::format("  {:<10} {:>7} {:>13} {:>15} {:>13}\n", "all", "", "", cluster_mtbf_hours(rate), per_day(rate));
  out << fmt::format("\ncheckpoint   {:.1f} GB ({}), {}: ", g.checkpoint_bytes / 1e9, g.checkpoint_size_source,
                     to_string(g.mode));
  const double stall_s = g.problem.checkpoint_stall_s, persist_s = g.problem.checkpoint_persist_s;
  const std::string storage = fmt::format("{:.0f} GB/s (min(nodes x per node, storage))", g.write_Bps / 1e9);
  const std::string host_copy = fmt::format("stall δ {:.2f} s to copy {:.2f} GB per GPU to host memory at {:.1f} GB/s",
                                            stall_s, g.checkpoint_bytes / double(g.gpus) / 1e9, g.host_copy_Bps / 1e9);
  switch (g.mode) {
    case CheckpointMode::blocking: out << fmt::format("stall δ {:.1f} s to write at {}\n", stall_s, storage); break;
    case CheckpointMode::async:
      out << fmt::format("{}, then safe P {:.1f} s later (written at {} while training)\n", host_copy, persist_s,
                         storage);
      break;
    case CheckpointMode::in_memory:
      out << fmt::format("{}, then safe P {:.2f} s later ({:.2f} GB per node to a peer's memory at {:.0f} GB/s of NICs)\n",
                         host_copy, persist_s, g.checkpoint_bytes / double(g.nodes) / 1e9, g.peer_Bps / 1e9);
      break;
  }
  out << fmt::format("restart      {:.0f} s + reload {:.2f} s {} = R {:.1f} s per failure\n", g.restart_s, g.reload_s,
                     g.mode == CheckpointMode::in_memory ? "from the peer"
                                                         : fmt::format("at {:.0f} GB/s", g.read_Bps / 1e9),
                     g.problem.recovery_s);
  out << fmt::format("intervals    Young sqrt(2δ/λ) {:.0f} s, Daly sqrt(2δM)-δ {:.0f} s, closed-form optimum {:.0f} s; "
                     "used {:.0f} s = {:.0f} iterations{}\n",
                     young_interval_s(stall_s, rate), daly_interval_s(stall_s, rate), optimal_interval_s(g.problem),
                     g.interval_s, g.interval_s / g.iteration_s,
                     g.interval_auto ? " (auto: the optimum in whole iterations)" : "");
  out << fmt::format("recovery     repair {:.1f} h; spare_nodes: {} spares, swap {:.0f} s; elastic: {} data-parallel "
                     "replicas, {} lost per node failure, iterations dp/(dp - lost) slower until it rejoins\n",
                     g.recovery.repair_s / kHour_s, g.recovery.spares, g.recovery.swap_s, g.recovery.dp,
                     g.recovery.replicas_per_node_failure);
}

void print_monte_carlo(std::ostream& out, const GoodputSetup& g, const std::vector<StrategyMonteCarlo>& results, int runs,
                       uint64_t seed, const WallClockCost& cost) {
  out << fmt::format("\nMonte Carlo  {} runs, seed {}, checkpoint every {:.0f} s of training\n", runs, seed, g.interval_s);
  std::string header = fmt::format("  {:<24}", "");
  for (const StrategyMonteCarlo& r : results) header += fmt::format(" {:>16}", to_string(r.strategy));
  out << header << fmt::format(" {:>16}\n", "closed form*");
  const ClosedFormRun closed = closed_form_run(g.problem, g.interval_s);
  const double closed_wall = closed.wall_s;
  auto row = [&](const std::string& label, auto value, const std::string& closed_text) {
    std::string line = fmt::format("  {:<24}", label);
    for (const StrategyMonteCarlo& r : results)  // no runs: every one missing on Slurm
      line += fmt::format(" {:>16}", r.mc.runs > 0 ? value(r.mc) : std::string("missing"));
    out << line << fmt::format(" {:>16}\n", closed_text);
  };
  using M = MonteCarloResult;
  auto h = [](double s) { return fmt::format("{:.1f}", s / kHour_s); };
  // Unfinished runs stopped early: their times are lower bounds, the goodput an upper bound.
  auto bound = [](const M& m, const char* sign) { return std::string(m.unfinished > 0 ? sign : ""); };
  row("wall-clock days, mean", [&](const M& m) { return bound(m, ">") + days(m.mean_wall_s); }, days(closed_wall));
  row("wall-clock days, p90", [&](const M& m) { return bound(m, ">") + days(m.p90_wall_s); }, "");
  row("goodput %", [&](const M& m) { return bound(m, "<") + percent(m.goodput); },
      percent(closed_form_goodput(g.problem, g.interval_s)));
  row("lost work h", [&](const M& m) { return h(m.mean_lost_s); }, h(closed.lost_s));
  row("failures", [](const M& m) { return fmt::format("{:.1f}", m.mean_failures); },
      fmt::format("{:.1f}", g.problem.failure_rate_per_s() * closed_wall));
  row("restarts", [](const M& m) { return fmt::format("{:.1f}", m.mean_restarts); }, "");
  row("checkpointing h", [&](const M& m) { return h(m.mean_checkpoint_s); }, h(closed.checkpoint_s));
  row("restarting h", [&](const M& m) { return h(m.mean_restart_s); }, h(closed.recovery_s));
  row("waiting h", [&](const M& m) { return h(m.mean_wait_s); }, h(0));
  row("computing h", [&](const M& m) { return h(m.mean_compute_s); }, h(closed.compute_s));
  row("GPU-hours, mean", [&](const M& m) { return with_thousands(cost.gpu_hours(m.mean_wall_s)); },
      with_thousands(cost.gpu_hours(closed_wall)));
  row(fmt::format("cost $ at ${:.2f}/GPU-h", cost.inputs.usd_per_gpu_hour),
      [&](const M& m) { return with_thousands(cost.cost_usd(m.mean_wall_s)); },
      with_thousands(cost.cost_usd(closed_wall)));
  row(fmt::format("energy MWh, PUE {:g}", cost.inputs.pue),
      [&](const M& m) { return fmt::format("{:.0f}", cost.energy_mwh(m.mean_wall_s)); },
      fmt::format("{:.0f}", cost.energy_mwh(closed_wall)));
  row("of which lost %", [&](const M& m) { return percent(1 - m.mean_compute_s / m.mean_wall_s); },
      percent(1 - closed.compute_s / closed_wall));
  for (const StrategyMonteCarlo& r : results)
    if (r.mc.unfinished > 0)
      out << fmt::format("  {}: {} of {} runs stopped unfinished (past 100 x the failure-free time or a million failures)"
                         "{}\n",
                         to_string(r.strategy), r.mc.unfinished, r.mc.runs,
                         r.mc.runs == 1 ? "; the first run did, so the others were not run" : "");
  out << "  * closed form: every failure costs the time since the last checkpoint plus R, failures during R\n"
         "    restart it (unlimited spares swapped in at no cost); mean wall = W / goodput\n"
         "  GPU-hours, cost and energy: the cluster held and powered for the whole wall-clock time; lost: the share of\n"
         "    it not computing (checkpoints, lost work, restarts, waiting)\n";
}

void print_sweep(std::ostream& out, const GoodputSetup& g, const IntervalSweep& sweep, RecoveryStrategy strategy,
                 const MonteCarloResult& young_mc, const MonteCarloResult& daly_mc, int runs) {
  auto mc_percent = [](const MonteCarloResult& m) { return (m.unfinished > 0 ? "<" : "") + percent(m.goodput); };
  out << fmt::format("\ninterval sweep ({}, {} runs per interval, the same failures at every interval)\n",
                     to_string(strategy), runs);
  out << fmt::format("  {:>12} {:>11} {:>14} {:>14}\n", "interval s", "iterations", "closed form %", "Monte Carlo %");
  for (size_t i = 0; i < sweep.points.size(); ++i) {
    const IntervalPoint& p = sweep.points[i];
    out << fmt::format("  {:>12.0f} {:>11.1f} {:>14} {:>14}{}\n", p.interval_s, p.interval_s / g.iteration_s,
                       percent(p.closed_form_goodput),
                       (p.monte_carlo_finished ? "" : "<") + percent(p.monte_carlo_goodput),
                       int(i) == sweep.best_monte_carlo ? "  <- best Monte Carlo" : "");
  }
  const std::string best =
      sweep.best_monte_carlo < 0
          ? "none (no interval's runs all finished)"
          : fmt::format("{:.0f} s ({}%)", sweep.points[sweep.best_monte_carlo].interval_s,
                        percent(sweep.points[sweep.best_monte_carlo].monte_carlo_goodput));
  out << fmt::format("best interval  Monte Carlo {}, closed-form optimum {:.0f} s ({}%), Young {:.0f} s "
                     "({}% closed form, {}% Monte Carlo), Daly {:.0f} s ({}%, {}%)\n",
                     best, sweep.optimal_interval_s,
                     percent(sweep.optimal_goodput), sweep.young_interval_s,
                     percent(closed_form_goodput(g.problem, sweep.young_interval_s)), mc_percent(young_mc),
                     sweep.daly_interval_s, percent(closed_form_goodput(g.problem, sweep.daly_interval_s)),
                     mc_percent(daly_mc));
}

json monte_carlo_json(const MonteCarloResult& m) {
  json j = {{"runs", m.runs},
            {"unfinished", m.unfinished},
            {"mean_wall_s", m.mean_wall_s},
            {"p90_wall_s", m.p90_wall_s},
            {"stderr_wall_s", m.stderr_wall_s},
            {"goodput", m.goodput},
            {"mean_compute_s", m.mean_compute_s},
            {"mean_checkpoint_s", m.mean_checkpoint_s},
            {"mean_lost_s", m.mean_lost_s},
            {"mean_restart_s", m.mean_restart_s},
            {"mean_wait_s", m.mean_wait_s},
            {"mean_failures", m.mean_failures},
            {"mean_restarts", m.mean_restarts},
            {"mean_checkpoints", m.mean_checkpoints}};
  if (!m.missing.empty()) j["missing"] = m.missing;
  return j;
}

json setup_json(const Scenario& s, const GoodputSetup& g) {
  json classes = json::array();
  for (const FailureClass& c : g.problem.failures)
    classes.push_back({{"name", c.name},
                       {"units", c.units},
                       {"mtbf_hours", std::isinf(c.mtbf_hours) ? json(nullptr) : json(c.mtbf_hours)},
                       {"takes_node_out", c.takes_node_out},
                       {"failures_per_day", c.rate_per_s() * kDay_s}});
  const double rate = g.problem.failure_rate_per_s();
  auto finite = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  return {{"scenario", s.name},
          {"iteration_s", g.iteration_s},
          {"iterations", g.iterations},
          {"training_source", g.training_source},
          {"unit", g.unit},
          {"units_per_iteration", g.units_per_iteration},
          {"work_s", g.problem.work_s},
          {"nodes", g.nodes},
          {"gpus", g.gpus},
          {"switches", g.switches},
          {"failure_classes", classes},
          {"failures_per_day", rate * kDay_s},
          {"checkpoint_bytes", g.checkpoint_bytes},
          {"checkpoint_mode", to_string(g.mode)},
          {"checkpoint_write_s", g.write_s},
          {"checkpoint_stall_s", g.problem.checkpoint_stall_s},
          {"checkpoint_persist_s", g.problem.checkpoint_persist_s},
          {"host_copy_Bps", g.host_copy_Bps},
          {"reload_s", g.reload_s},
          {"restart_s", g.restart_s},
          {"recovery_s", g.problem.recovery_s},
          {"interval_s", g.interval_s},
          {"interval_auto", g.interval_auto},
          {"young_interval_s", finite(young_interval_s(g.problem.checkpoint_stall_s, rate))},
          {"daly_interval_s", finite(daly_interval_s(g.problem.checkpoint_stall_s, rate))},
          {"optimal_interval_s", finite(optimal_interval_s(g.problem))},
          {"closed_form_wall_s", finite(closed_form_wall_s(g.problem, g.interval_s))},
          {"closed_form_lost_s", finite(closed_form_run(g.problem, g.interval_s).lost_s)},
          {"closed_form_recovery_s", finite(closed_form_run(g.problem, g.interval_s).recovery_s)},
          {"closed_form_goodput", closed_form_goodput(g.problem, g.interval_s)},
          {"repair_s", g.recovery.repair_s},
          {"spares", g.recovery.spares},
          {"swap_s", g.recovery.swap_s},
          {"dp", g.recovery.dp},
          {"replicas_per_node_failure", g.recovery.replicas_per_node_failure}};
}

// --sweep FIELD=V1,V2,...: the field and its values, checked.
struct WhatIfSweep {
  std::string field;
  std::vector<double> values;
};
std::optional<WhatIfSweep> what_if_sweep_flag(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const std::string expected = "storage_GBps=A,B,.. or restart_s=A,B,.. or mtbf_scale=A,B,.. (positive numbers)";
  const size_t eq = text.find('=');
  WhatIfSweep out;
  out.field = text.substr(0, eq);
  if (eq == std::string::npos || (out.field != "storage_GBps" && out.field != "restart_s" && out.field != "mtbf_scale"))
    flag_error("--sweep", expected, text);
  for (const std::string& item : comma_separated(text.substr(eq + 1))) {
    out.values.push_back(number_flag("--sweep", item, 1e-6, 1e9, expected));
    if (out.values.size() > 100) flag_error("--sweep", "at most 100 values", text);
  }
  return out;
}

// The configuration with the swept field at `value`.
ReliabilityConfig with_value(ReliabilityConfig c, const std::string& field, double value) {
  if (field == "storage_GBps") {
    c.checkpoint.storage_write_GBps = c.checkpoint.storage_read_GBps = value;
  } else if (field == "restart_s") {
    c.checkpoint.restart_s = value;
  } else {  // mtbf_scale
    for (double* h : {&c.mtbf.gpu_hours, &c.mtbf.hbm_hours, &c.mtbf.nic_hours, &c.mtbf.switch_hours, &c.mtbf.host_hours,
                      &c.mtbf.software_hours})
      *h *= value;
  }
  return c;
}

json print_what_if_sweep(std::ostream& out, const WhatIfSweep& sweep, const std::vector<GoodputSetup>& setups,
                         const MonteCarloResult* results, RecoveryStrategy strategy, int runs,
                         const WallClockCost& cost) {
  out << fmt::format("\nsweep of {} ({}, {} runs per value, the same failures at every value)\n", sweep.field,
                     to_string(strategy), runs);
  out << fmt::format("  {:>12} {:>11} {:>10} {:>12} {:>14} {:>13} {:>8}\n", sweep.field, "interval s", "goodput %",
                     "days, mean", "GPU-hours", "cost $", "MWh");
  json points = json::array();
  for (size_t i = 0; i < sweep.values.size(); ++i) {
    const double value = sweep.values[i];
    const GoodputSetup& g = setups[i];
    const MonteCarloResult& mc = results[i];
    out << fmt::format("  {:>12g} {:>11.0f} {:>10} {:>12} {:>14} {:>13} {:>8.0f}\n", value, g.interval_s,
                       (mc.unfinished > 0 ? "<" : "") + percent(mc.goodput), days(mc.mean_wall_s),
                       with_thousands(cost.gpu_hours(mc.mean_wall_s)), with_thousands(cost.cost_usd(mc.mean_wall_s)),
                       cost.energy_mwh(mc.mean_wall_s));
    points.push_back({{"value", value},
                      {"interval_s", g.interval_s},
                      {"goodput", mc.goodput},
                      {"mean_wall_s", mc.mean_wall_s},
                      {"unfinished", mc.unfinished},
                      {"gpu_hours", cost.gpu_hours(mc.mean_wall_s)},
                      {"cost_usd", cost.cost_usd(mc.mean_wall_s)},
                      {"energy_mwh", cost.energy_mwh(mc.mean_wall_s)}});
    if (!mc.missing.empty()) points.back()["missing"] = mc.missing;
  }
  return {{"field", sweep.field}, {"strategy", to_string(strategy)}, {"points", points}};
}

// Every Monte Carlo of the command, listed first and then run at once: here, or as one Slurm job
// array. `labels` name each where runs are missing.
struct MonteCarloJobs {
  std::vector<MonteCarloJob> jobs;
  std::vector<std::string> labels;
  size_t add(MonteCarloJob job, std::string label) {
    jobs.push_back(std::move(job));
    labels.push_back(std::move(label));
    return jobs.size() - 1;
  }
  // The job at another interval.
  size_t add(MonteCarloJob job, double interval_s, std::string label) {
    job.interval_s = interval_s;
    return add(std::move(job), std::move(label));
  }
};

std::vector<MonteCarloResult> run_jobs(const MonteCarloJobs& all, const std::optional<SlurmOptions>& slurm,
                                       std::optional<SlurmBatch>& batch) {
  if (!slurm) {
    std::vector<MonteCarloResult> results;
    for (const MonteCarloJob& job : all.jobs) results.push_back(monte_carlo(job));
    return results;
  }
  MonteCarloOnSlurm on_slurm = monte_carlo_on_slurm(all.jobs, *slurm, std::clog);
  batch = on_slurm.batch;
  return on_slurm.results;
}

}  // namespace

GoodputOptions& add_goodput_options(CLI::App& command, const std::string& default_scenario) {
  static GoodputOptions o;
  o.default_scenario = default_scenario;
  command.add_option("scenario", o.scenario, "scenario YAML, optionally with a reliability: section (default: "
                                             "scenarios/gpt3-175b-1024-a100.yaml)");
  command.add_option("--model", o.model, "instead of a scenario: a model preset or Hugging Face config.json, on the "
                                         "best layout dtsim plan finds for --gpus");
  command.add_option("--gpu", o.gpu, "with --model: the GPU type (default a100-80gb-sxm)");
  command.add_option("--gpus", o.gpus, "with --model: the GPU count (one, whole nodes)");
  command.add_option("--global-batch", o.global_batch, "with --model: sequences per iteration (default 1536)");
  command.add_option("--iterations", o.iterations, "training length in iterations");
  command.add_option("--tokens", o.tokens, "training length in tokens");
  command.add_option("--samples", o.samples, "training length of a layer model, in its images, sequences or records");
  command.add_option("--days", o.days, "training length in days of failure-free compute");
  command.add_option("--runs", o.runs, "Monte Carlo runs (default 1000)");
  command.add_option("--seed", o.seed, "Monte Carlo seed (default 1)");
  command.add_option("--interval", o.interval, "checkpoint interval in seconds of training, or auto");
  command.add_option("--checkpoint", o.checkpoint_mode,
                     "blocking | async | in_memory: how checkpoints are taken (default: the scenario's, else blocking)");
  command.add_option("--strategy", o.strategy, "wait_for_repair | spare_nodes | elastic | all (default all)");
  command.add_option("--sweep-points", o.sweep_points, "checkpoint intervals in the sweep (default 17; 0: no sweep)");
  command.add_option("--json", o.json_file, "also write the figures as JSON to this file");
  command.add_option("--usd-per-gpu-hour", o.usd_per_gpu_hour, "price of a GPU-hour, for the cost rows (default 2.00)");
  command.add_option("--pue", o.pue, "the facility's power usage effectiveness, for the energy rows (default 1.3)");
  command.add_option("--sweep", o.what_if_sweep,
                     "storage_GBps=A,B,.. | restart_s=A,B,.. | mtbf_scale=A,B,..: the Monte Carlo of one strategy "
                     "(--strategy, else the scenario's) at each value: storage read and write bandwidth, restart "
                     "time, or every MTBF times the factor");
  add_slurm_flags(command, o.slurm);
  return o;
}

int run_goodput_command(const GoodputOptions& options) {
  // Everything that can be checked before the simulation is.
  const int runs = int(integer_flag("--runs", options.runs, 1, 10'000'000));
  const uint64_t seed = uint64_t(integer_flag("--seed", options.seed, 0, 999'999'999'999));
  const int sweep_points = int(integer_flag("--sweep-points", options.sweep_points, 0, 1000));
  const std::vector<RecoveryStrategy> strategies = strategies_of(options.strategy);
  const std::optional<WhatIfSweep> what_if = what_if_sweep_flag(options.what_if_sweep);
  check_output_path("--json", options.json_file);
  const bool planned = !options.model.empty() || !options.gpu.empty() || !options.gpus.empty() ||
                       !options.global_batch.empty();
  if (planned && !options.scenario.empty())
    flag_error("--model", "a scenario file or --model/--gpu/--gpus, not both", "both");
  const std::optional<SlurmOptions> slurm = slurm_options_from(options.slurm);
  const std::string file = options.scenario.empty() ? options.default_scenario : options.scenario;
  const Scenario scenario = planned ? planned_scenario(options) : load_scenario(file);
  ReliabilityConfig config = planned ? ReliabilityConfig{} : load_reliability_config(file);
  apply_flags(options, scenario.throughput_unit(), config);

  const MemoryBreakdown memory = peak_memory_per_gpu(scenario);
  if (!memory.fits()) {
    std::cout << format_out_of_memory(scenario, memory);
    return kExitOutOfMemory;
  }
  const SimulationResult simulated = simulate(scenario);
  if (!simulated.engine.completed)  // a failure event of the scenario stopped the iteration
    throw InputError({file, 0, "events", "events that let one iteration finish (goodput needs its time)",
                      fmt::format("{} ranks stopped", simulated.engine.unfinished_ranks)});
  const GoodputSetup setup = make_goodput_setup(scenario, config, simulated.engine.iteration_s);
  print_setup(std::cout, scenario, setup, simulated.simulation_wall_s + simulated.platform_build_wall_s);

  // The Monte Carlo runs: each strategy; the interval sweep of the one strategy asked for, else
  // the scenario's, on a log grid over 1/8 to 8 times the closed-form optimum (pointless without
  // failures), with Young's and Daly's intervals; the what-if sweep's values.
  MonteCarloJobs all;
  for (RecoveryStrategy strategy : strategies)
    all.add(monte_carlo_job(setup, strategy, runs, seed), to_string(strategy));
  // The sweeps' strategy: the one asked for, else the scenario's.
  const RecoveryStrategy study_strategy = strategies.size() == 1 ? strategies.front() : setup.recovery.strategy;
  const MonteCarloJob study = monte_carlo_job(setup, study_strategy, runs, seed);
  const double rate = setup.problem.failure_rate_per_s();
  const double optimum_s = optimal_interval_s(setup.problem);
  const bool interval_sweep = sweep_points > 0 && rate > 0 && std::isfinite(optimum_s) && optimum_s > 0;
  const std::vector<double> intervals_s =
      interval_sweep ? sweep_grid(optimum_s / 8, optimum_s * 8, sweep_points) : std::vector<double>{};
  const size_t first_interval = all.jobs.size();
  for (double interval_s : intervals_s)
    all.add(study, interval_s, fmt::format("the sweep's interval {:.0f} s", interval_s));
  const double stall_s = setup.problem.checkpoint_stall_s;
  const size_t young = interval_sweep ? all.add(study, young_interval_s(stall_s, rate), "Young's interval") : 0;
  const size_t daly = interval_sweep ? all.add(study, daly_interval_s(stall_s, rate), "Daly's interval") : 0;
  std::vector<GoodputSetup> what_if_setups;
  const size_t first_what_if = all.jobs.size();
  for (double value : what_if ? what_if->values : std::vector<double>{}) {
    what_if_setups.push_back(
        make_goodput_setup(scenario, with_value(config, what_if->field, value), simulated.engine.iteration_s));
    all.add(monte_carlo_job(what_if_setups.back(), study_strategy, runs, seed),
            fmt::format("{}={:g}", what_if->field, value));
  }
  std::optional<SlurmBatch> batch;
  const std::vector<MonteCarloResult> mcs = run_jobs(all, slurm, batch);
  if (said_submitted(batch, slurm)) return 0;  // dtsim collect gathers

  std::vector<StrategyMonteCarlo> results;
  for (size_t i = 0; i < strategies.size(); ++i) results.push_back({strategies[i], mcs[i]});
  const WallClockCost cost = wall_clock_cost(scenario, cost_input_flags(options.usd_per_gpu_hour, options.pue));
  print_monte_carlo(std::cout, setup, results, runs, seed, cost);

  json out = {{"setup", setup_json(scenario, setup)}, {"seed", seed}, {"monte_carlo", json::object()}};
  for (const StrategyMonteCarlo& r : results) {
    json& j = out["monte_carlo"][to_string(r.strategy)] = monte_carlo_json(r.mc);
    j["gpu_hours"] = cost.gpu_hours(r.mc.mean_wall_s);
    j["cost_usd"] = cost.cost_usd(r.mc.mean_wall_s);
    j["energy_mwh"] = cost.energy_mwh(r.mc.mean_wall_s);
  }
  out["cost_inputs"] = {{"usd_per_gpu_hour", cost.inputs.usd_per_gpu_hour}, {"pue", cost.inputs.pue},
                        {"facility_power_w", cost.facility_power_w}};

  if (interval_sweep) {
    const IntervalSweep sweep = interval_sweep_of(
        setup.problem, intervals_s,
        std::vector<MonteCarloResult>(mcs.begin() + long(first_interval), mcs.begin() + long(young)));
    const MonteCarloResult &young_mc = mcs[young], &daly_mc = mcs[daly];
    print_sweep(std::cout, setup, sweep, study_strategy, young_mc, daly_mc, runs);
    json points = json::array();
    for (size_t i = 0; i < sweep.points.size(); ++i) {
      const IntervalPoint& p = sweep.points[i];
      points.push_back({{"interval_s", p.interval_s},
                        {"closed_form_goodput", p.closed_form_goodput},
                        {"monte_carlo_goodput", p.monte_carlo_goodput},
                        {"monte_carlo_finished", p.monte_carlo_finished}});
      if (const std::string& missing = mcs[first_interval + i].missing; !missing.empty()) points.back()["missing"] = missing;
    }
    out["sweep"] = {{"strategy", to_string(study_strategy)},
                    {"points", points},
                    {"best_monte_carlo_interval_s", sweep.best_monte_carlo < 0 ? json(nullptr)
                                                    : json(sweep.points[sweep.best_monte_carlo].interval_s)},
                    {"optimal_interval_s", sweep.optimal_interval_s},
                    {"optimal_goodput", sweep.optimal_goodput},
                    {"young_interval_s", sweep.young_interval_s},
                    {"young_monte_carlo_goodput", young_mc.goodput},
                    {"daly_interval_s", sweep.daly_interval_s},
                    {"daly_monte_carlo_goodput", daly_mc.goodput}};
  }
  if (what_if)
    out["what_if_sweep"] = print_what_if_sweep(std::cout, *what_if, what_if_setups, mcs.data() + first_what_if,
                                               study_strategy, runs, cost);
  // Runs no Slurm task delivered (after its second try): the figures are of the others.
  for (size_t i = 0; i < mcs.size(); ++i)
    if (!mcs[i].missing.empty())
      std::cout << fmt::format("missing Monte Carlo runs of {} (left out of its figures): {}\n", all.labels[i],
                               mcs[i].missing);
  if (!options.json_file.empty()) {
    write_output_file("--json", options.json_file, out.dump(2) + "\n");
    std::cout << fmt::format("written to {}\n", options.json_file);
  }
  return 0;
}

}  // namespace dtsim
