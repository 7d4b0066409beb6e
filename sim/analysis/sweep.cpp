#include "sweep.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <iostream>
#include <chrono>
#include <cmath>
#include <thread>

#include "comma_list.hpp"
#include "input_error.hpp"
#include "memory_model.hpp"
#include "planner.hpp"
#include "report.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "training_cost.hpp"

namespace dtsim {

const char* to_string(SweepStatus s) {
  switch (s) {
    case SweepStatus::simulated: return "simulated";
    case SweepStatus::invalid: return "invalid";
    case SweepStatus::out_of_memory: return "out_of_memory";
    case SweepStatus::failed: return "failed";
  }
  return "?";
}

int SweepResult::simulated_count() const {
  return int(std::count_if(points.begin(), points.end(), [](const SweepPoint& p) { return p.simulated(); }));
}

namespace {

// A positive integer written in decimal digits only (at most 9 of them), else nullopt.
std::optional<int> positive_integer(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const int n = std::stoi(text);
  if (n <= 0) return std::nullopt;
  return n;
}

bool is_degree_field(const std::string& field) {
  return field == "parallelism.tp" || field == "parallelism.cp" || field == "parallelism.pp";
}

// The fields set along with the swept one (see sweep.hpp).
std::vector<std::string> tied_fields(const SweepRequest& r) {
  if (!r.gpu_counts.empty()) return {"cluster.nodes", "parallelism.dp"};
  if (r.field == "cluster.nodes" || is_degree_field(r.field)) return {"parallelism.dp"};
  if (r.field == "parallelism.dp") return {"cluster.nodes"};
  return {};
}

std::string override_value(long long n) { return std::to_string(n); }

// Overrides for one point of a field sweep: the field itself and, where the division is exact,
// its tied field.
std::vector<FieldOverride> field_overrides(const SweepRequest& r, const std::string& value, const Scenario* base) {
  std::vector<FieldOverride> overrides = {{r.field, value}};
  const std::optional<int> n = positive_integer(value);
  if (!base || !n) return overrides;
  const ParallelismConfig& p = base->parallelism;
  const int gpus_per_node = base->cluster.topology.node.gpus;
  const long long degrees = (long long)p.tp * p.cp * p.pp;
  if (r.field == "cluster.nodes") {
    const long long gpus = (long long)*n * gpus_per_node;
    if (gpus % degrees == 0) overrides.push_back({"parallelism.dp", override_value(gpus / degrees)});
  } else if (r.field == "parallelism.dp") {
    const long long gpus = (long long)*n * degrees;
    if (gpus % gpus_per_node == 0) overrides.push_back({"cluster.nodes", override_value(gpus / gpus_per_node)});
  } else if (is_degree_field(r.field)) {
    const long long others = r.field == "parallelism.tp" ? (long long)p.cp * p.pp
                             : r.field == "parallelism.cp" ? (long long)p.tp * p.pp
                                                           : (long long)p.tp * p.cp;
    const long long new_degrees = others * *n;
    if (base->gpu_count() % new_degrees == 0)
      overrides.push_back({"parallelism.dp", override_value(base->gpu_count() / new_degrees)});
  }
  return overrides;
}

// Overrides for one GPU count, or the InputError that says why the count cannot be laid out.
std::vector<FieldOverride> gpu_overrides(const SweepRequest& r, int gpus, const Scenario& base) {
  const ParallelismConfig& p = base.parallelism;
  const int gpus_per_node = base.cluster.topology.node.gpus;
  const int degrees = p.tp * p.cp * p.pp;
  if (gpus % gpus_per_node != 0)
    flag_error("--gpus",
               fmt::format("a multiple of {} GPUs per node ({})", gpus_per_node,
                           base.cluster.topology_file.filename().string()),
               std::to_string(gpus));
  if (gpus % degrees != 0)
    flag_error("--gpus",
               fmt::format("a multiple of tp*cp*pp = {}*{}*{} = {} ({})", p.tp, p.cp, p.pp, degrees,
                           r.scenario_file.filename().string()),
               std::to_string(gpus));
  return {{"cluster.nodes", override_value(gpus / gpus_per_node)},
          {"parallelism.dp", override_value(gpus / degrees)}};
}

void set_layout(SweepPoint& p, const Scenario& s) {
  p.gpus = s.gpu_count();
  p.nodes = s.cluster.nodes;
  p.tp = s.parallelism.tp;
  p.cp = s.parallelism.cp;
  p.pp = s.parallelism.pp;
  p.dp = s.parallelism.dp;
}

void check_request(const SweepRequest& r) {
  const bool gpu_sweep = !r.gpu_counts.empty();
  if (gpu_sweep && !r.field.empty()) flag_error("--gpus", "either --gpus or --field, not both", "both");
  if (!gpu_sweep && r.field.empty()) flag_error("--gpus", "--gpus LIST or --field PATH --values LIST", "neither");
  if (!gpu_sweep && r.values.empty()) flag_error("--values", "at least one value for --field " + r.field, "none");
  for (int g : r.gpu_counts)
    if (g <= 0) flag_error("--gpus", "positive GPU counts", std::to_string(g));
  if (r.replan && !gpu_sweep) flag_error("--replan", "--gpus with it (a GPU-count sweep)", "--field");
  if (!(r.amount >= 0) || !std::isfinite(r.amount))
    flag_error("amount", "an amount to train on > 0 (0: the usual one)", fmt::format("{}", r.amount));
}

// " (point: cluster.nodes=2, parallelism.dp=16)": what the point set, since a line number of the
// file does not show values that came from the command line.
std::string point_context(const std::vector<FieldOverride>& overrides) {
  std::string set;
  for (const FieldOverride& o : overrides) set += fmt::format("{}{}={}", set.empty() ? "" : ", ", o.path, o.value);
  return set.empty() ? "" : " (point: " + set + ")";
}

void fill_from_report(SweepPoint& p, const Report& rep, const SweepResult& result) {
  p.status = SweepStatus::simulated;
  p.iteration_s = rep.iteration_s;
  p.unit = rep.throughput_unit();
  p.throughput_per_s = rep.throughput_per_s();
  p.model_tflops_per_gpu = rep.model_tflops_per_gpu;
  p.mfu = rep.mfu;
  if (p.unit == result.unit) {
    const TrainingCost cost = training_cost(rep, result.amount);
    p.time_to_train_s = cost.time_s;
    p.gpu_hours = cost.gpu_hours;
    p.cost_usd = cost.cost_usd;
    p.energy_mwh = cost.energy_mwh;
  }
}

// The layout plan_layouts ranks first for `s`'s model, GPU, fabric, batch and precision on `gpus`
// GPUs, in place of `s`'s; InputError when none fits.
void replan(Scenario& s, int gpus) {
  if (s.layer_model) throw InputError({"<command line>", 0, "--replan", "a transformer scenario", "a layer-graph model"});
  PlanRequest request;
  request.model = s.model;
  request.gpu = s.cluster.gpu;
  request.gpu_counts = {gpus};
  request.topology_file = s.cluster.topology_file;
  request.global_batch = s.training.global_batch;
  request.precision = s.training.precision;
  const PlanResult plan = plan_layouts(request);
  if (plan.rows.empty())
    throw InputError({"<command line>", 0, "--replan", "a layout that fits",
                      fmt::format("none of {} layouts on {} GPUs ({} out of memory)", plan.enumerated, gpus,
                                  plan.out_of_memory)});
  const PlanRow& best = plan.rows.front();
  s.parallelism = best.parallelism;
  s.training.micro_batch = best.training.micro_batch;
  s.training.recompute = best.training.recompute;
  s.training.recompute_layers = best.training.recompute_layers;
  s.cluster.nodes = gpus / s.cluster.topology.node.gpus;
}

// Point i of the sweep: its overrides applied to the scenario file, checked, its memory; set
// `resolved` when it fits and is to be simulated, or the point says why not.
SweepPoint prepare_point(const SweepRequest& request, const SweepResult& result, const std::optional<Scenario>& base,
                         size_t i, std::optional<ResolvedScenario>& resolved, std::vector<FieldOverride>& loaded_with) {
  SweepPoint p;
  std::vector<FieldOverride> overrides;
  try {
    if (result.gpu_sweep) {
      p.gpus = request.gpu_counts[i];
      p.value = std::to_string(p.gpus);
      overrides = gpu_overrides(request, p.gpus, *base);
    } else {
      p.value = request.values[i];
      overrides = field_overrides(request, p.value, base ? &*base : nullptr);
    }
    std::vector<FieldOverride> all = request.base_overrides;
    all.insert(all.end(), overrides.begin(), overrides.end());
    Scenario s = load_scenario(request.scenario_file, all);
    if (request.replan) {
      replan(s, p.gpus);
      const std::vector<FieldOverride> layout = layout_overrides(s);
      all.insert(all.end(), layout.begin(), layout.end());
      s = load_scenario(request.scenario_file, all);  // as a Slurm task rebuilds it, every check again
    }
    loaded_with = all;
    set_layout(p, s);
    const MemoryBreakdown memory = peak_memory_per_gpu(s);
    p.memory_bytes = memory.total_bytes;
    p.memory_capacity_bytes = memory.capacity_bytes;
    p.fits = memory.fits();
    if (p.fits) {
      resolved = resolve_scenario(s);
    } else {
      p.status = SweepStatus::out_of_memory;
      p.error = fmt::format("needs {:.2f} GB on each GPU of pipeline stage {}; {} has {:.2f} GB",
                            memory.total_bytes / 1e9, memory.stage, s.cluster.gpu, memory.capacity_bytes / 1e9);
    }
  } catch (const InputError& e) {
    p.status = SweepStatus::invalid;
    p.error = e.what() + point_context(overrides);
  } catch (const YAML::Exception& e) {
    p.status = SweepStatus::invalid;
    p.error = fmt::format("{}: line {}: {}", request.scenario_file.string(), e.mark.line + 1, e.msg) +
              point_context(overrides);
  } catch (const std::exception& e) {
    p.status = SweepStatus::failed;
    p.error = e.what() + point_context(overrides);
  }
  return p;
}

// Throughput per GPU of each simulated point against the first simulated one's.
void set_scaling_efficiency(SweepResult& result) {
  for (size_t i = 0; i < result.points.size(); ++i)
    if (result.points[i].simulated() && result.points[i].throughput_per_s > 0) {
      result.reference = i;
      break;
    }
  if (result.reference) {
    const SweepPoint& ref = result.points[*result.reference];
    const double ref_per_gpu = ref.throughput_per_s / ref.gpus;
    for (SweepPoint& p : result.points)
      if (p.simulated() && p.unit == ref.unit) p.scaling_efficiency = (p.throughput_per_s / p.gpus) / ref_per_gpu;
  }
}

}  // namespace

SweepResult run_sweep(const SweepRequest& request, const SweepProgress& progress) {
  check_request(request);
  const auto start = std::chrono::steady_clock::now();
  SweepResult result;
  result.scenario_file = request.scenario_file;
  result.gpu_sweep = !request.gpu_counts.empty();
  result.swept = result.gpu_sweep ? "gpus" : request.field;
  result.tied = tied_fields(request);
  result.replanned = request.replan;
  const int cores = std::max(1, int(std::thread::hardware_concurrency()));
  result.parallel = request.parallel > 0 ? request.parallel : cores;

  // The base scenario: needed to lay out GPU counts and tied fields; otherwise only for its name.
  std::optional<Scenario> base;
  try {
    base = load_scenario(request.scenario_file, request.base_overrides);
  } catch (const InputError&) {
    if (!result.tied.empty()) throw;
  }
  result.scenario = base ? base->name : request.scenario_file.stem().string();
  if (base) {
    result.what = fmt::format("{} on {}, {}", base->layer_model ? base->name : base->model.name, base->cluster.gpu,
                              base->cluster.topology.name);
    result.global_batch = base->training.global_batch;
    result.unit = base->throughput_unit();
    if (!base->layer_model) result.seq_len = base->model.seq_len;
  }
  result.amount = request.amount > 0 ? request.amount : usual_training_amount(result.unit);

  std::vector<ResolvedScenario> to_simulate;
  std::vector<SlurmSimulation> slurm_inputs;  // to_simulate[i] as a Slurm task rebuilds it
  std::vector<size_t> point_of;  // to_simulate[i] is points[point_of[i]]
  const size_t count = result.gpu_sweep ? request.gpu_counts.size() : request.values.size();
  for (size_t i = 0; i < count; ++i) {
    std::optional<ResolvedScenario> resolved;
    std::vector<FieldOverride> loaded_with;
    result.points.push_back(prepare_point(request, result, base, i, resolved, loaded_with));
    if (resolved) {
      to_simulate.push_back(std::move(*resolved));
      slurm_inputs.push_back(slurm_simulation(request.scenario_file, loaded_with));
      point_of.push_back(i);
    }
  }
  if (progress.on_point)
    for (size_t i = 0; i < result.points.size(); ++i)
      if (std::find(point_of.begin(), point_of.end(), i) == point_of.end()) progress.on_point(i, result.points[i]);

  auto take_outcome = [&](size_t k, const SimulationOutcome& outcome) {
    SweepPoint& p = result.points[point_of[k]];
    p.status = SweepStatus::failed;
    if (!outcome.result) {
      p.error = outcome.error.empty() ? "simulation failed" : outcome.error;
    } else {
      try {
        fill_from_report(p, make_report(to_simulate[k], *outcome.result), result);
      } catch (const std::exception& e) {
        p.error = e.what();
      }
    }
    if (progress.on_point) progress.on_point(point_of[k], p);
  };
  if (request.slurm) {
    result.parallel = 0;
    result.slurm = simulate_on_slurm(slurm_inputs, to_simulate, *request.slurm, std::clog, take_outcome,
                                     progress.cancel);
    result.slurm->outcomes.clear();
  } else {
    simulate_many(to_simulate, result.parallel, take_outcome, progress.cancel);
  }

  set_scaling_efficiency(result);
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::vector<std::string> parse_sweep_values(const std::string& flag, const std::string& text) {
  const std::string expected = "a comma-separated list of values (1,2,4) or a range of powers of two (1-8)";
  std::vector<std::string> values;
  for (std::string item : comma_separated(text)) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) flag_error(flag, expected, "'" + text + "'");
    const size_t dash = item.find('-');
    const std::optional<int> low = dash == std::string::npos ? std::nullopt : positive_integer(item.substr(0, dash));
    const std::optional<int> high = dash == std::string::npos ? std::nullopt : positive_integer(item.substr(dash + 1));
    if (low && high) {
      if (*low > *high) flag_error(flag, "a range low-high with low <= high", "'" + item + "'");
      const size_t before = values.size();
      for (long n = 1; n <= *high; n *= 2)
        if (n >= *low) values.push_back(std::to_string(n));
      if (values.size() == before) flag_error(flag, "a range holding a power of two", "'" + item + "'");
    } else {
      values.push_back(item);
    }
  }
  return values;
}

namespace {

// Shortest text that reads back as the same double (fmt's default), as nlohmann::json writes.
std::string number(double x) { return fmt::format("{}", x); }

bool has_layout(const SweepPoint& p) { return p.tp > 0; }
bool has_memory(const SweepPoint& p) { return p.memory_capacity_bytes > 0; }

// "tokens_per_s", "images_per_s": the throughput's key, as the headline figures name it.
std::string throughput_key(const std::string& unit) { return unit + "s_per_s"; }

// The throughput column's CSV heading: the result's unit, then any other unit a point counts in.
std::string throughput_heading(const SweepResult& r) {
  std::vector<std::string> units = {r.unit};
  for (const SweepPoint& p : r.points)
    if (p.simulated() && std::find(units.begin(), units.end(), p.unit) == units.end()) units.push_back(p.unit);
  std::string heading;
  for (const std::string& unit : units) {
    if (!heading.empty()) heading += '|';
    heading += throughput_key(unit);
  }
  return heading;
}

// Tokens come by the thousand; a layer model's samples may be a few per second.
int throughput_decimals(const std::string& unit) { return unit == "token" ? 0 : 1; }

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string sweep_to_csv(const SweepResult& r) {
  std::string out = "value,gpus,nodes,tp,cp,pp,dp,status,iteration_s," + csv_field(throughput_heading(r)) +
                    ",model_tflops_per_gpu,mfu,memory_bytes,memory_capacity_bytes,fits,time_to_train_s,gpu_hours,"
                    "cost_usd,energy_mwh,scaling_efficiency,error\n";
  for (const SweepPoint& p : r.points) {
    auto when = [](bool known, const std::string& text) { return known ? text : std::string(); };
    const bool layout = has_layout(p), memory = has_memory(p), simulated = p.simulated();
    const bool trained = p.has_time_to_train();
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(p.value),
                       when(p.gpus > 0, std::to_string(p.gpus)), when(layout, std::to_string(p.nodes)),
                       when(layout, std::to_string(p.tp)), when(layout, std::to_string(p.cp)),
                       when(layout, std::to_string(p.pp)), when(layout, std::to_string(p.dp)), to_string(p.status),
                       when(simulated, number(p.iteration_s)), when(simulated, number(p.throughput_per_s)),
                       when(simulated, number(p.model_tflops_per_gpu)), when(simulated, number(p.mfu)),
                       when(memory, number(p.memory_bytes)), when(memory, number(p.memory_capacity_bytes)),
                       when(memory, p.fits ? "true" : "false"), when(trained, number(p.time_to_train_s)),
                       when(trained, number(p.gpu_hours)), when(trained, number(p.cost_usd)),
                       when(trained, number(p.energy_mwh)), when(p.has_scaling(), number(p.scaling_efficiency)),
                       csv_field(p.error));
  }
  return out;
}

nlohmann::json sweep_to_json(const SweepResult& r) {
  using nlohmann::json;
  json points = json::array();
  for (const SweepPoint& p : r.points) {
    auto when = [](bool known, json value) { return known ? value : json(nullptr); };
    const bool layout = has_layout(p), memory = has_memory(p), simulated = p.simulated();
    const std::string unit = p.simulated() ? p.unit : r.unit;
    points.push_back({
        {"value", p.value},
        {"gpus", when(p.gpus > 0, p.gpus)},
        {"nodes", when(layout, p.nodes)},
        {"tp", when(layout, p.tp)},
        {"cp", when(layout, p.cp)},
        {"pp", when(layout, p.pp)},
        {"dp", when(layout, p.dp)},
        {"status", to_string(p.status)},
        {"iteration_s", when(simulated, p.iteration_s)},
        {"unit", unit},
        {throughput_key(unit), when(simulated, p.throughput_per_s)},
        {"model_tflops_per_gpu", when(simulated, p.model_tflops_per_gpu)},
        {"mfu", when(simulated, p.mfu)},
        {"memory_bytes", when(memory, p.memory_bytes)},
        {"memory_capacity_bytes", when(memory, p.memory_capacity_bytes)},
        {"fits", when(memory, p.fits)},
        {"time_to_train_s", when(p.has_time_to_train(), p.time_to_train_s)},
        {"gpu_hours", when(p.has_time_to_train(), p.gpu_hours)},
        {"cost_usd", when(p.has_time_to_train(), p.cost_usd)},
        {"energy_mwh", when(p.has_time_to_train(), p.energy_mwh)},
        {"scaling_efficiency", when(p.has_scaling(), p.scaling_efficiency)},
        {"error", p.error},
    });
  }
  return {
      {"scenario", r.scenario},
      {"scenario_file", r.scenario_file.string()},
      {"swept", r.swept},
      {"tied", r.tied},
      {"global_batch", r.global_batch},
      {"seq_len", r.seq_len},
      {"unit", r.unit},
      {r.unit + "s", r.amount},
      // How it ran (wall time, parallelism, Slurm) is in the text only: --json is the same run to
      // run, here or on Slurm.
      {"reference_point", r.reference ? json(*r.reference) : json(nullptr)},
      {"points", points},
  };
}

std::string format_count(double count) {
  if (count >= 1e12) return fmt::format("{:.4g}T", count / 1e12);
  if (count >= 1e9) return fmt::format("{:.4g}B", count / 1e9);
  if (count >= 1e6) return fmt::format("{:.4g}M", count / 1e6);
  return fmt::format("{:.4g}", count);
}

std::string format_sweep_table(const SweepResult& r) {
  std::string out;
  std::string tied;
  for (const auto& f : r.tied) tied += (tied.empty() ? "" : " and ") + f;
  out += fmt::format("sweep          {} ({}) over {}{}\n", r.scenario, r.scenario_file.string(),
                     r.gpu_sweep ? "GPU count" : r.swept, tied.empty() ? "" : "; " + tied + " follow");
  if (r.replanned)
    out += "layouts        re-planned at each GPU count (dtsim plan's best: parallelism, micro-batch, recompute)\n";
  if (r.global_batch > 0 && r.seq_len > 0)
    out += fmt::format("batch          {} sequences x {} tokens per iteration (the scenario's)\n", r.global_batch,
                       r.seq_len);
  else if (r.global_batch > 0)
    out += fmt::format("batch          {} {}s per iteration (the scenario's)\n", r.global_batch, r.unit);
  out += fmt::format("time to train  {} {}s ({:.4g})\n", format_count(r.amount), r.unit, r.amount);
  const auto count = [&](SweepStatus s) {
    return std::count_if(r.points.begin(), r.points.end(), [&](const SweepPoint& p) { return p.status == s; });
  };
  const std::string where = r.slurm ? fmt::format("on Slurm (job {}, {})", r.slurm->job_id, r.slurm->work_dir.string())
                                    : fmt::format("up to {} at a time", r.parallel);
  out += fmt::format("points         {} simulated, {} invalid, {} out of memory, {} failed; {}; {:.2f} s wall\n",
                     count(SweepStatus::simulated), count(SweepStatus::invalid), count(SweepStatus::out_of_memory),
                     count(SweepStatus::failed), where, r.wall_s);

  size_t value_width = r.swept.size();
  for (const SweepPoint& p : r.points) value_width = std::max(value_width, p.value.size());
  const std::string value_header = r.gpu_sweep ? "" : fmt::format("{:>{}} ", r.swept, value_width);
  out += value_header + fmt::format("{:>5} {:>5} {:>3} {:>3} {:>3} {:>5} {:>9} {:>11} {:>8} {:>6} {:>7} {:>10} {:>9} "
                                    "{:>11} {:>13} {:>7}\n",
                                    "gpus", "nodes", "tp", "cp", "pp", "dp", "s/iter", r.unit + "s/s", "TFLOP/s", "MFU %",
                                    "mem GB", "train days", "scaling %", "GPU-hours", "cost $", "MWh");
  for (const SweepPoint& p : r.points) {
    const std::string value = r.gpu_sweep ? "" : fmt::format("{:>{}} ", p.value, value_width);
    auto i = [](bool known, int x) { return known ? std::to_string(x) : std::string("-"); };
    auto d = [](bool known, double x, int decimals) {
      return known ? fmt::format("{:.{}f}", x, decimals) : std::string("-");
    };
    const bool layout = has_layout(p), simulated = p.simulated();
    out += value + fmt::format("{:>5} {:>5} {:>3} {:>3} {:>3} {:>5} {:>9} {:>11} {:>8} {:>6} {:>7} {:>10} {:>9} "
                               "{:>11} {:>13} {:>7}\n",
                               i(p.gpus > 0, p.gpus), i(layout, p.nodes), i(layout, p.tp), i(layout, p.cp),
                               i(layout, p.pp), i(layout, p.dp), d(simulated, p.iteration_s, 4),
                               d(simulated, p.throughput_per_s, throughput_decimals(p.unit)),
                               d(simulated, p.model_tflops_per_gpu, 1),
                               d(simulated, 100 * p.mfu, 1), d(has_memory(p), p.memory_bytes / 1e9, 1),
                               d(p.has_time_to_train(), p.time_to_train_s / 86400, 2),
                               d(p.has_scaling(), 100 * p.scaling_efficiency, 1),
                               p.has_time_to_train() ? with_thousands(p.gpu_hours) : "-",
                               p.has_time_to_train() ? with_thousands(p.cost_usd) : "-",
                               d(p.has_time_to_train(), p.energy_mwh, 0));
    if (!p.simulated()) out += fmt::format("      {}: {}\n", to_string(p.status), p.error);
    if (p.simulated() && p.unit != r.unit) out += fmt::format("      counts {}s, not {}s\n", p.unit, r.unit);
  }
  out += fmt::format("(s/iter: seconds per iteration; TFLOP/s: model TFLOP/s per GPU; mem GB: peak per GPU, 1e9 bytes; "
                     "train days: the {}s at that throughput; scaling %: {}s/s per GPU relative to the first simulated "
                     "point; cost at ${:.2f} per GPU-hour, MWh at PUE {:g}: docs/capacity-planning.md)\n",
                     r.unit, r.unit, kDefaultUsdPerGpuHour, kDefaultPue);
  return out;
}

}  // namespace dtsim
