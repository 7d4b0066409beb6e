// dtsim command line: a thin front end over dtsim_core.
//   dtsim run [SCENARIO] [--json FILE] [--trace FILE] [--calibration FILE] [--event 'TYPE K=V...']...
//             [--straggler-sweep GPU [--values 1,1.3,2] [--slurm ...]] [--no-fold] [--network]
//   dtsim validate [RUNS.yaml] [--topologies DIR] [--no-fold] [--slurm ...]
//   dtsim collective [TOPOLOGY] [--op OP] [-g GPUS] [-b MIN] [-e MAX] [-f FACTOR] [--algo A] [--proto P]
//   dtsim topo FILE [--nodes N] [--dot OUT.dot]
//   dtsim plan [--model M] [--gpu G] [--gpus N] ... (see plan_command.cpp)
//   dtsim goodput [SCENARIO] [--days D] [--runs N] [--strategy S] ... (see goodput_command.cpp)
//   dtsim sweep [SCENARIO] (--gpus LIST | --field PATH --values LIST) ... (see sweep_command.cpp)
//   dtsim calibrate RAW --out CAL [--peaks-from-spec FILE] [--driver VERSION] (see calibrate_command.hpp)
// Exit codes: 0 ok, 2 bad input (scenario, topology, calibration, flag; work beyond the memory
// budget, sim/base/memory_budget.hpp), 4 a failure event stopped the
// iteration (`run`), 3 out of memory (`run`:
// the scenario does not fit in a GPU's HBM, nothing simulated), 1 internal failure.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <iostream>
#include <optional>

#include "calibrate_command.hpp"
#include "chrome_trace.hpp"
#include "collective_command.hpp"
#include "comma_list.hpp"
#include "command_examples.hpp"
#include "command_line_errors.hpp"
#include "slurm_flags.hpp"
#include "slurm_rebuilders.hpp"
#include "slurm_task.hpp"
#include "error_band.hpp"
#include "compare_command.hpp"
#include "flag_values.hpp"
#include "goodput_command.hpp"
#include "import_command.hpp"
#include "input_error.hpp"
#include "input_file.hpp"
#include "memory_budget.hpp"
#include "network_report.hpp"
#include "plan_command.hpp"
#include "report.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "sweep_command.hpp"
#include "termination_cleanup.hpp"
#include "training_cost.hpp"
#include "topo_command.hpp"
#include "validation.hpp"
#include "what_if.hpp"

namespace fs = std::filesystem;
using namespace dtsim;

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitOutOfMemory = 3;
constexpr int kExitIterationFailed = 4;  // a failure event stopped the iteration

const fs::path kSourceDir = DTSIM_SOURCE_DIR;
const fs::path kDefaultScenario = kSourceDir / "scenarios" / "gpt3-175b-1024-a100.yaml";

// `dtsim run --straggler-sweep GPU [--values 1,1.3,2]`: iteration time against GPU's slowdown (by
// default 1.0 to 2.0).
int sensitivity_command(const Scenario& scenario, const std::vector<FieldOverride>& loaded_with,
                        const std::string& gpu_text, const std::string& values,
                        const std::optional<SlurmOptions>& slurm) {
  const int gpu = int(integer_flag("--straggler-sweep", gpu_text, 0, scenario.gpu_count() - 1,
                                   fmt::format("a GPU rank in [0, {})", scenario.gpu_count())));
  std::vector<double> slowdowns{1.0, 1.1, 1.25, 1.5, 1.75, 2.0};
  if (!values.empty()) {
    slowdowns.clear();
    for (const std::string& item : comma_separated(values)) {
      slowdowns.push_back(
          number_flag("--values", item, 1, 1000, "slowdowns from 1 to 1000, comma-separated (1,1.3,2)"));
      if (slowdowns.size() > 100) flag_error("--values", "at most 100 slowdowns", values);
    }
  }
  if (!slurm) {
    std::cout << format_sensitivity(straggler_sensitivity(scenario, gpu, slowdowns), gpu);
    return 0;
  }
  const SensitivityOnSlurm sweep = straggler_sensitivity_on_slurm(scenario, loaded_with, gpu, slowdowns, *slurm);
  if (said_submitted(sweep.batch, slurm)) return 0;  // dtsim collect gathers
  std::cout << format_sensitivity(sweep.points, gpu);
  return 0;
}

struct RunFlags {
  std::string json_file, trace_file, calibration_file, straggler_sweep_gpu, straggler_values;
  std::vector<std::string> events;  // --event, each "TYPE KEY=VALUE ..."
  bool no_fold = false;
  bool network = false;  // --network: the per-tier network report
  std::string tokens, samples;  // --tokens / --samples: a training length, for days, cost and energy
  std::string usd_per_gpu_hour, pue;
  SlurmFlags slurm;  // with --straggler-sweep: its points as a Slurm job array
};

// --tokens or --samples (in the model's unit), --usd-per-gpu-hour and --pue: what training on that
// amount takes. Nothing when no length is given.
std::optional<std::pair<double, CostInputs>> training_length(const RunFlags& f, const std::string& unit) {
  check_length_flag_unit(!f.tokens.empty(), !f.samples.empty(), unit);
  if (!f.tokens.empty() && !f.samples.empty()) flag_error("--samples", "--tokens or --samples, not both", "both");
  const CostInputs in = cost_input_flags(f.usd_per_gpu_hour, f.pue);
  const std::string& amount = f.tokens.empty() ? f.samples : f.tokens;
  if (amount.empty()) {
    if (!f.usd_per_gpu_hour.empty() || !f.pue.empty())
      flag_error(f.pue.empty() ? "--usd-per-gpu-hour" : "--pue", "--tokens or --samples with it (a training length)",
                 "no training length");
    return std::nullopt;
  }
  return std::pair{number_flag(f.tokens.empty() ? "--samples" : "--tokens", amount, 1, 1e30), in};
}

int run_command(const fs::path& scenario_file, const RunFlags& flags) {
  const std::string &json_file = flags.json_file, &trace_file = flags.trace_file,
                    &calibration_file = flags.calibration_file;
  check_output_path("--json", json_file);
  check_output_path("--trace", trace_file);
  if (!flags.straggler_values.empty() && flags.straggler_sweep_gpu.empty())
    flag_error("--values", "--straggler-sweep GPU with it", "--values alone");
  const std::optional<SlurmOptions> slurm = slurm_options_from(flags.slurm);
  if (slurm && flags.straggler_sweep_gpu.empty())
    flag_error("--slurm", "--straggler-sweep GPU with it (one run simulates here)", "--slurm alone");
  std::vector<FieldOverride> loaded_with;  // what a Slurm task loads the scenario file with
  for (const std::string& e : flags.events) loaded_with.push_back(event_override("--event", e));
  Scenario scenario = load_scenario(scenario_file, loaded_with);
  if (!calibration_file.empty()) {
    if (!is_existing_file(calibration_file))
      flag_error("--calibration", "an existing file", calibration_file);
    scenario.calibration_file = calibration_file;
    YAML::Emitter path;
    path << YAML::DoubleQuoted << fs::absolute(calibration_file).string();
    loaded_with.push_back({"calibration", path.c_str()});
  }
  const auto length = training_length(flags, scenario.throughput_unit());
  const MemoryBreakdown memory = peak_memory_per_gpu(scenario);
  if (!memory.fits()) {
    std::cout << format_out_of_memory(scenario, memory);
    return kExitOutOfMemory;
  }
  if (!flags.straggler_sweep_gpu.empty())
    return sensitivity_command(scenario, loaded_with, flags.straggler_sweep_gpu, flags.straggler_values, slurm);
  SimulationOptions options;
  options.record_trace = !trace_file.empty();
  options.fold_replicas = !flags.no_fold;
  options.record_link_usage = flags.network;
  const ResolvedScenario resolved = resolve_scenario(scenario);  // reads the calibration file, once
  const SimulationResult result = simulate(resolved, options);
  if (!scenario.events.empty()) {  // what the events cost: the same scenario without them
    ResolvedScenario healthy = resolved;
    healthy.scenario.events.clear();
    std::cout << format_what_if(scenario, result, simulate(healthy));
    if (!result.engine.completed) return kExitIterationFailed;
  }
  const Report report = make_report(resolved, result);
  std::cout << format_report_text(report);
  nlohmann::json json = report_to_json(report);
  if (length) {
    const TrainingCost cost = training_cost(report, length->first, length->second);
    const ErrorBand band = error_band(scenario, kSourceDir / "validation", kSourceDir / "topologies");
    std::cout << format_training_cost(cost, band);
    json["training_cost"] = training_cost_to_json(cost);
    json["training_cost"]["error_band"] = error_band_to_json(band);
  }
  if (flags.network) {
    const NetworkReport network = network_report(resolved, result, options);
    std::cout << format_network_report(network);
    json["network"] = network_report_to_json(network);
  }
  if (!json_file.empty()) write_output_file("--json", json_file, json.dump(2) + "\n");
  if (!trace_file.empty()) {
    write_output_file("--trace", trace_file,
                      chrome_trace_json(result.engine, scenario.parallelism, scenario.cluster.topology.node.gpus));
    std::cout << fmt::format("trace written to {} (open in ui.perfetto.dev)\n", trace_file);
  }
  return 0;
}

int validate_command(const fs::path& runs_file, const fs::path& topologies_dir, bool no_fold,
                     const SlurmFlags& slurm_flags) {
  const std::optional<SlurmOptions> slurm = slurm_options_from(slurm_flags);
  const ValidationSummary summary = validate_published_runs(runs_file, topologies_dir, !no_fold, slurm);
  if (said_submitted(summary.slurm, slurm)) return 0;  // dtsim collect gathers
  std::cout << format_validation_table(summary);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  install_termination_cleanup();
  limit_process_memory(memory_budget_bytes());
  remember_command_line(argc, argv);
  if (argc == 1) {  // no command: what dtsim answers, and how to ask
    std::cout << question_table();
    return 0;
  }
  CLI::App app{"dtsim: predict the iteration time of distributed training on a cluster"};
  app.require_subcommand(1);

  std::string scenario_file = kDefaultScenario.string();
  RunFlags run_flags;
  CLI::App* run = app.add_subcommand("run", "simulate one training iteration of a scenario");
  run->add_option("scenario", scenario_file, "scenario YAML (default: scenarios/gpt3-175b-1024-a100.yaml)");
  run->add_option("--json", run_flags.json_file, "also write the report as JSON to this file ('-': standard output)");
  run->add_option("--trace", run_flags.trace_file,
                  "write a Chrome/Perfetto trace (compute and communication tracks per GPU) to this file");
  run->add_option("--calibration", run_flags.calibration_file, "calibration JSON overriding the scenario's");
  run->add_option("--event", run_flags.events,
                  "an event added to the scenario's, as TYPE KEY=VALUE... (e.g. 'straggler gpu=5 slowdown=1.3'); "
                  "repeatable");
  run->add_option("--straggler-sweep", run_flags.straggler_sweep_gpu,
                  "instead: iteration time with this GPU slowed 1.0x to 2.0x (sensitivity)");
  run->add_option("--values", run_flags.straggler_values, "with --straggler-sweep: the slowdowns, e.g. 1,1.3,2");
  bool no_fold = false;
  const std::string no_fold_help = "simulate every GPU (default: data-parallel replicas folded into one, see docs/speed.md)";
  run->add_flag("--no-fold", run_flags.no_fold, no_fold_help);
  run->add_option("--tokens", run_flags.tokens, "a training length in tokens: days, GPU-hours, cost and energy");
  run->add_option("--samples", run_flags.samples, "the same for a layer model, in its images, sequences or records");
  run->add_option("--usd-per-gpu-hour", run_flags.usd_per_gpu_hour, "price of a GPU-hour (default 2.00)");
  run->add_option("--pue", run_flags.pue, "the facility's power usage effectiveness (default 1.3)");
  run->add_flag("--network", run_flags.network,
                "also report each network tier: bytes carried, busiest link, and what the tier costs (one more "
                "simulation per tier, with that tier unlimited)");
  add_slurm_flags(*run, run_flags.slurm);

  std::string runs_file = (kSourceDir / "validation" / "published-runs.yaml").string(),
              topologies_dir = (kSourceDir / "topologies").string();
  CLI::App* validate = app.add_subcommand("validate", "compare predictions with published measured runs");
  validate->add_option("runs", runs_file, "published-runs YAML (default: validation/published-runs.yaml)");
  validate->add_option("--topologies", topologies_dir, "folder of topology files");
  validate->add_flag("--no-fold", no_fold, no_fold_help);
  SlurmFlags validate_slurm;
  add_slurm_flags(*validate, validate_slurm);

  TopoOptions topo_options;
  CLI::App* topo = app.add_subcommand("topo", "check a topology file and print its graph's figures");
  add_topo_options(*topo, topo_options);

  CollectiveOptions collective_options;
  CLI::App* collective = app.add_subcommand("collective", "predict an NCCL collective over a size sweep (nccl-tests format)");
  add_collective_options(*collective, collective_options, (kSourceDir / "topologies" / "dgx-h100-ndr-fattree.yaml").string());

  CLI::App* plan = app.add_subcommand("plan", "find the fastest parallel layouts that fit in memory");
  PlanOptions& plan_options = add_plan_options(*plan);

  CLI::App* goodput = app.add_subcommand("goodput", "failures, checkpoints and recovery over a whole training run");
  GoodputOptions& goodput_options = add_goodput_options(*goodput, kDefaultScenario.string());

  CLI::App* sweep = app.add_subcommand("sweep", "simulate a scenario over GPU counts or values of one field, in parallel");
  SweepOptions& sweep_options = add_sweep_options(*sweep, kDefaultScenario.string());

  CLI::App* compare =
      app.add_subcommand("compare-strategies", "one model and cluster with every data-parallel strategy, side by side");
  CompareOptions& compare_options =
      add_compare_options(*compare, (kSourceDir / "scenarios" / "vgg16-16-k80-parameter-server.yaml").string());

  ImportOptions import_options;
  CLI::App* import = app.add_subcommand("import", "read PyTorch profiler traces of a training job, one per rank");
  add_import_options(*import, import_options, (kSourceDir / "topologies").string());

  CalibrateOptions calibrate_options;
  CLI::App* calibrate =
      app.add_subcommand("calibrate", "turn a raw profile of dtsim-profile into a calibration (no GPU needed)");
  add_calibrate_options(*calibrate, calibrate_options);

  std::string collect_dir;
  CLI::App* collect = app.add_subcommand("collect", "gather the results of a batch submitted with --slurm-no-wait");
  collect->add_option("dir", collect_dir, "the batch's work folder")->required();
  std::string task_dir;
  int task_id = 0;
  CLI::App* slurm_task = app.add_subcommand("slurm-task", "one task of a Slurm batch (run by the batch, not by hand)");
  slurm_task->group("");
  slurm_task->add_option("dir", task_dir)->required();
  slurm_task->add_option("task", task_id)->required();

  app.footer(examples_footer(""));
  for (CLI::App* command : app.get_subcommands({})) command->footer(examples_footer(command->get_name()));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "dtsim: error: " << format_input_error(command_line_error(e, app, argc, argv)) << "\n";
    return kExitBadInput;
  }

  try {
    if (*run) return run_command(scenario_file, run_flags);
    if (*validate) return validate_command(runs_file, topologies_dir, no_fold, validate_slurm);
    if (*collective) return run_collective_command(collective_options);
    if (*topo) return run_topo_command(topo_options);
    if (*plan) return run_plan_command(plan_options);
    if (*goodput) return run_goodput_command(goodput_options);
    if (*sweep) return run_sweep_command(sweep_options);
    if (*compare) return run_compare_command(compare_options);
    if (*import) return run_import_command(import_options);
    if (*calibrate) return run_calibrate_command(calibrate_options);
    if (*collect) return run_collect_command(collect_dir);
    if (*slurm_task) return run_slurm_task(task_dir, task_id, std::cerr, analysis_slurm_rebuilders());
  } catch (const InputError& e) {
    std::cerr << "dtsim: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "dtsim: error: " << memory_budget_exceeded("this command", memory_budget_bytes()).what() << "\n";
    return kExitBadInput;
  } catch (const YAML::Exception& e) {
    std::cerr << fmt::format("dtsim: error: line {}: {}\n", e.mark.line + 1, e.msg);
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "dtsim: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
