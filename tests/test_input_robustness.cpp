// Inputs a fuzz campaign found crashing, hanging or silently accepted (issue 14), each now a clear
// error naming file, field, expected and found (exit code 2 from the CLI), or, where the input is
// valid, a correct simulation (test_what_if.cpp checks the combined slowdowns by hand).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <string>
#include <utility>

#include "calibration.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "test_support.hpp"
#include "validation.hpp"

namespace dtsim {
namespace {

namespace fs = std::filesystem;
using test::error_of;
using test::run_dtsim;
using test::ScratchDir;

std::string topology_path(const std::string& name) { return (test::source_dir() / "topologies" / name).string(); }

// GPT-3 1.3B data-parallel on two DGX H100 nodes, with `extra` appended (events, ...).
std::string scenario_text(const std::string& extra = "", const std::string& topology = "") {
  return fmt::format(
             "name: robust\n"
             "model: {{preset: gpt3-1.3b}}\n"
             "training: {{global_batch: 64, micro_batch: 4}}\n"
             "parallelism: {{dp: 16}}\n"
             "cluster: {{gpu: h100-sxm, nodes: 2, topology: {}}}\n",
             topology.empty() ? topology_path("dgx-h100-ndr-fattree.yaml") : topology) +
         extra;
}

// scenario_text() with its first `from` replaced by `to`.
std::string scenario_with(const std::string& from, const std::string& to) {
  std::string text = scenario_text();
  text.replace(text.find(from), from.size(), to);
  return text;
}

InputErrorInfo scenario_error(const ScratchDir& dir, const std::string& text) {
  const fs::path file = dir.write("scenario.yaml", text);
  return error_of([&] { load_scenario(file); });
}

// ---------------------------------------------------------------------------------------------
// Scenario files.

TEST(RobustScenario, DuplicatedKeyIsAnErrorAtItsSecondLine) {
  ScratchDir dir;
  const InputErrorInfo e = scenario_error(dir, scenario_text("name: again\n"));
  EXPECT_EQ(e.field, "name");
  EXPECT_EQ(e.line, 6);
  EXPECT_EQ(e.expected, "each key once per mapping");
}

TEST(RobustScenario, NullFieldIsAnErrorNotTheDefault) {
  ScratchDir dir;
  const InputErrorInfo e = scenario_error(dir, scenario_with("micro_batch: 4", "micro_batch: null"));
  EXPECT_EQ(e.field, "training.micro_batch");
  EXPECT_EQ(e.found, "null");
  EXPECT_EQ(e.line, 3);
}

TEST(RobustScenario, HugeSlowdownIsRefusedWithItsBound) {
  ScratchDir dir;
  const InputErrorInfo e =
      scenario_error(dir, scenario_text("events:\n  - {type: straggler, gpu: 8, slowdown: 1e308, start_s: 1}\n"));
  EXPECT_EQ(e.field, "events[0].slowdown");
  EXPECT_EQ(e.expected, "a number in [1, 1000] (1 = normal speed; a stopped GPU is a failure event)");
  EXPECT_EQ(e.line, 7);
}

// 4.9e-324 s is a valid start time; SimGrid reads profiles back from text, where it would not
// parse, so window edges are kept to the nanosecond: the window starts at 0.
TEST(RobustScenario, DenormalStartTimeRunsAsTimeZero) {
  ScratchDir dir;
  const Scenario tiny = load_scenario(
      dir.write("tiny.yaml", scenario_text("events:\n  - {type: straggler, gpu: 8, slowdown: 2, start_s: 4.9e-324}\n")));
  const Scenario zero =
      load_scenario(dir.write("zero.yaml", scenario_text("events:\n  - {type: straggler, gpu: 8, slowdown: 2}\n")));
  EXPECT_EQ(simulate(tiny).engine.iteration_s, simulate(zero).engine.iteration_s);
}

TEST(RobustScenario, ClusterBeyondTheLargestSimulatedIsRefused) {
  ScratchDir dir;
  const InputErrorInfo e = scenario_error(dir, scenario_with("nodes: 2", "nodes: 1000000"));
  EXPECT_EQ(e.field, "cluster.nodes");
  EXPECT_EQ(e.expected, "at most 8192 nodes of 8 GPUs (65536 GPUs, the largest cluster dtsim simulates)");
}

TEST(RobustScenario, MoreWorkThanFitsInMemoryIsRefused) {
  ScratchDir dir;
  const InputErrorInfo e = scenario_error(dir, scenario_with("global_batch: 64", "global_batch: 80000000"));
  EXPECT_EQ(e.field, "training.global_batch");
  // 16 GPUs x 80e6 / (16 x 4) micro-batches = 2e7 passes > 2^24.
  EXPECT_EQ(e.found, "80000000 (20000000 passes)");
}

TEST(RobustScenario, DirectoryAndOverlongPathAreBadInput) {
  ScratchDir dir;
  EXPECT_EQ(error_of([&] { load_scenario(dir.path()); }).found, "a directory");
  const fs::path long_name = dir.path() / (std::string(5000, 'a') + ".yaml");
  const InputErrorInfo e = error_of([&] { load_scenario(long_name); });
  EXPECT_EQ(e.expected, "a readable file");
  EXPECT_EQ(e.found, "File name too long");
}

// ---------------------------------------------------------------------------------------------
// Topology files.

std::string topology_text(const std::string& nvlink, const std::string& fabric = "{kind: fat_tree, nodes_per_leaf: 16}") {
  return "name: t\nnode:\n  gpus: 8\n  nvlink: " + nvlink +
         "\n  nics: {count: 8, bandwidth_Gbps: 400, latency_us: 2}\nfabric: " + fabric + "\n";
}

TEST(RobustTopology, AbsurdNvlinkBandwidthIsRefused) {
  ScratchDir dir;
  const fs::path file = dir.write("t.yaml", topology_text("{bandwidth_GBps: 1e300, latency_us: 0.5}"));
  const InputErrorInfo e = error_of([&] { load_topology(file); });
  EXPECT_EQ(e.field, "node.nvlink.bandwidth_GBps");
  EXPECT_EQ(e.expected, "a bandwidth in [0.001, 100000] GB/s");
}

TEST(RobustTopology, UnknownNvlinkGenerationIsRefused) {
  ScratchDir dir;
  const fs::path file = dir.write("t.yaml", topology_text("{generation: 9, bandwidth_GBps: 450, latency_us: 0.5}"));
  EXPECT_EQ(error_of([&] { load_topology(file); }).field, "node.nvlink.generation");
}

TEST(RobustTopology, TorusLargerThanTheLargestClusterIsRefused) {
  ScratchDir dir;
  const std::string nvlink = "{bandwidth_GBps: 450, latency_us: 0.5}";
  const fs::path huge = dir.write("huge.yaml", topology_text(nvlink, "{kind: torus, dimensions: [1000000, 4]}"));
  EXPECT_EQ(error_of([&] { load_topology(huge); }).field, "fabric.dimensions[0]");
  // Each dimension allowed, the product (2^20 nodes) not: no overflow, a clear limit.
  const fs::path wide = dir.write("wide.yaml", topology_text(nvlink, "{kind: torus, dimensions: [1024, 1024]}"));
  const InputErrorInfo e = error_of([&] { load_topology(wide); });
  EXPECT_EQ(e.field, "fabric");
  EXPECT_EQ(e.expected, "a torus of at most 65536 nodes (the largest cluster dtsim simulates has 65536 GPUs)");
}

TEST(RobustTopology, DuplicatedKeyIsRefused) {
  ScratchDir dir;
  const fs::path file = dir.write("t.yaml", topology_text("{bandwidth_GBps: 450, latency_us: 0.5}") + "name: u\n");
  EXPECT_EQ(error_of([&] { load_topology(file); }).expected, "each key once per mapping");
}

// ---------------------------------------------------------------------------------------------
// Calibration files.

InputErrorInfo calibration_error(const ScratchDir& dir, const std::string& json) {
  const fs::path file = dir.write("c.json", json);
  return error_of([&] { load_calibration(file, default_efficiencies()); });
}

TEST(RobustCalibration, EfficienciesOutsideAFractionOfPeakAreRefused) {
  ScratchDir dir;
  EXPECT_EQ(calibration_error(dir, R"({"efficiency": {"gemm": {"compute": 1e-300}}})").field, "efficiency.gemm.compute");
  const InputErrorInfo e = calibration_error(
      dir, R"({"operators": [{"op": "gemm", "kind": "gemm", "dtype": "bf16", "flops": 1e12, "bytes": 1e8,
                              "time_s": 0.001, "compute_efficiency": 1e18, "memory_efficiency": 0.1}]})");
  EXPECT_EQ(e.field, "operators[0].compute_efficiency");
  EXPECT_EQ(e.expected, "measured / peak FLOP/s in [0.0001, 1.2] (above 1: a clock above the datasheet's)");
}

TEST(RobustCalibration, VanishingBusBandwidthIsRefused) {
  ScratchDir dir;
  const InputErrorInfo e = calibration_error(
      dir, R"({"collectives": [{"op": "all_reduce", "gpus": 8, "fit": {"latency_s": 2e-5, "busbw_Bps": 1e-300}}]})");
  EXPECT_EQ(e.field, "collectives[0].fit.busbw_Bps");
}

TEST(RobustCalibration, NullAndWrongTypesAreRefused) {
  ScratchDir dir;
  EXPECT_EQ(calibration_error(dir, R"({"date": null})").found, "null");
  EXPECT_EQ(calibration_error(dir, R"({"device": {"name": "H100"}})").found, "an object");
  const InputErrorInfo peak = calibration_error(dir, R"({"peaks": {"bf16_flops": -5}})");
  EXPECT_EQ(peak.field, "peaks.bf16_flops");
  EXPECT_EQ(calibration_error(dir, R"({"peaks": {"hbm_Bps": 0}})").field, "peaks.hbm_Bps");
}

TEST(RobustCalibration, NumberBeyondDoubleRangeIsRefused) {
  ScratchDir dir;
  EXPECT_EQ(calibration_error(dir, R"({"gpus": 1e400})").expected, "valid JSON with numbers a double holds");
}

TEST(RobustCalibration, DuplicatedAndUnknownKeysAreRefused) {
  ScratchDir dir;
  const InputErrorInfo twice = calibration_error(dir, R"({"date": "2026-11-23", "date": "2026-11-24"})");
  EXPECT_EQ(twice.field, "date");
  EXPECT_EQ(twice.expected, "each key once per object");
  EXPECT_EQ(calibration_error(dir, R"({"efficency": {}})").found, "unknown key 'efficency'");
}

TEST(RobustCalibration, RawProfileIsNamedForWhatItIs) {
  const fs::path raw = test::data_dir() / "profiler" / "h100-synthetic-raw.json";
  const InputErrorInfo e = error_of([&] { load_calibration(raw, default_efficiencies()); });
  EXPECT_EQ(e.field, "format");
  EXPECT_EQ(e.found, "\"dtsim-raw-profile-1\"");
}

TEST(RobustCalibration, DirectoryIsBadInput) {
  ScratchDir dir;
  EXPECT_EQ(error_of([&] { load_calibration(dir.path(), default_efficiencies()); }).found, "a directory");
}

TEST(RobustValidation, DirectoryAsPublishedRunsIsBadInput) {
  ScratchDir dir;
  EXPECT_EQ(error_of([&] { validate_published_runs(dir.path(), test::source_dir() / "topologies"); }).found,
            "a directory");
}

// ---------------------------------------------------------------------------------------------
// The CLI: flags it cannot honour end in exit code 2 with the flag named; nothing is written.

void expect_bad_flag(const std::string& args, const std::string& flag) {
  const test::CliResult r = run_dtsim(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find("field '" + flag + "'"), std::string::npos) << args << "\n" << r.output;
}

TEST(RobustCli, SizesBeyondWhatDtsimBuildsAreRefused) {
  const std::string fattree = topology_path("dgx-h100-ndr-fattree.yaml");
  expect_bad_flag("topo " + fattree + " --nodes 1000000000", "--nodes");
  expect_bad_flag("topo " + fattree + " --nodes 99999999999999999999", "--nodes");
  expect_bad_flag("collective -g 1048576", "--gpus");
  expect_bad_flag("collective -g 65537", "--gpus");
  expect_bad_flag("collective -e inf", "--maxbytes");
  expect_bad_flag("collective -b nan", "--minbytes");
  expect_bad_flag("collective -f 1.0001", "--stepfactor");  // 207,955 sizes
  expect_bad_flag("plan --gpus 8 --finalists 100000", "--finalists");
}

TEST(RobustCli, MalformedNumbersAreRefused) {
  expect_bad_flag("goodput --iterations 1.5", "--iterations");
  const std::string scenario = (test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml").string();
  expect_bad_flag("run " + scenario + " --straggler-sweep -1", "--straggler-sweep");
}

TEST(RobustCli, OutputPathThatIsAFolderIsRefusedBeforeAnyWork) {
  ScratchDir dir;
  const std::string folder = dir.path().string();
  const std::string scenario = (test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml").string();
  expect_bad_flag("run " + scenario + " --json " + folder, "--json");
  expect_bad_flag("run " + scenario + " --trace " + folder, "--trace");
  expect_bad_flag("topo " + topology_path("dgx-h100-ndr-fattree.yaml") + " --dot " + folder, "--dot");
  expect_bad_flag("plan --gpus 8 --model gpt3-1.3b --json " + folder, "--json");
  expect_bad_flag("goodput " + scenario + " --json " + folder, "--json");
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

// ---------------------------------------------------------------------------------------------
// The second campaign (2026-11-26, issue 45); reproducers in tests/data/robustness/.

fs::path reproducer(const std::string& name) { return test::data_dir() / "robustness" / name; }

TEST(RobustCampaign2, ReferenceRateOutsideItsPhysicalRangeIsRefused) {
  for (const char* name : {"F-02-reference-rate-unbounded-1e-300-deadlock.s.yaml", "F-02b-reference-rate-1e-30-accepted.s.yaml"}) {
    const InputErrorInfo e = error_of([&] { load_scenario(reproducer(name)); });
    EXPECT_EQ(e.field, "reference.images_per_s") << name;
    EXPECT_EQ(e.expected, "a number in [0.001, 1e+09]") << name;
  }
}

TEST(RobustCampaign2, QuotedNumberIsAString) {
  const InputErrorInfo e = error_of([&] { load_scenario(reproducer("F-08-quoted-hex-accepted.s.yaml")); });
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.field, "training.global_batch");
  EXPECT_EQ(e.found, "'0x100' (quoted: a string)");
}

TEST(RobustCampaign2, ControlBytesAreShownEscaped) {
  const test::CliResult r = run_dtsim("topo " + reproducer("F-06-nul-byte-truncates-message.t.yaml").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("field 'node.nvlink.latency_us:\\0.5': expected a value (leave the key out to use the "
                          "default), found null"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(format_input_error({"f", 1, "k", "e", "a\x1b[2Jb\x7f"}), "f:1: field 'k': expected e, found a\\x1b[2Jb\\x7f");
}

// One limit in code, messages and docs: 65,536 GPUs (docs/running.md says so; size_limits.hpp).
TEST(RobustCampaign2, TheGpuLimitIsTheReadmes) {
  const InputErrorInfo e = error_of([&] { load_scenario(reproducer("F-10-65664-gpus-above-readme-limit.s.yaml")); });
  EXPECT_EQ(e.field, "parallelism");  // TP8 PP16 DP513 of 65,664 GPUs, checked before the nodes
  EXPECT_EQ(e.expected, "tp*cp*pp*dp at most 65536 GPUs (the largest cluster dtsim simulates)");
  std::ifstream readme(test::source_dir() / "docs" / "running.md");
  const std::string text((std::istreambuf_iterator<char>(readme)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("at most 65,536 GPUs"), std::string::npos);
  expect_bad_flag("collective -g 131072", "--gpus");
  expect_bad_flag("import " + (test::data_dir() / "traces" / "hta").string() + " --ranks 65537", "--ranks");
}

TEST(RobustCampaign2, UnreadableInputIsBadInputNamingTheError) {
  const std::string scenario = (test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml").string();
  for (const std::string& args :
       {"run " + scenario + " --calibration /proc/self/mem", std::string("validate /proc/self/mem"),
        std::string("compare-strategies /proc/self/mem"),
        "import " + (test::data_dir() / "traces" / "hta").string() + " --events /proc/self/mem"}) {
    const test::CliResult r = run_dtsim(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("/proc/self/mem"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("expected a readable file, found Input/output error"), std::string::npos) << r.output;
  }
}

// CLI11's refusals in the promised form (F-07), and numbers CLI11 let through (F-22).
TEST(RobustCampaign2, CommandLineErrorsNameTheFlagExpectedAndFound) {
  const std::string scenario = (test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml").string();
  const std::pair<std::string, std::string> cases[] = {
      {"goodput --runs 1 --runs 2", "field '--runs': expected the flag once, found it 2 times"},
      {"collective -g é", "field '--gpus': expected 2 to 65536 GPUs (the largest cluster dtsim simulates), found 'é'"},
      {"collective -f 1e10", "field '--stepfactor': expected a number from 1.0001 to 1e+09, found '1e10'"},
      {"collective -f nan", "field '--stepfactor': expected a number from 1.0001 to 1e+09, found 'nan'"},
      {"collective -f -nan", "found '-nan'"},
      {"collective -f 0x10", "found '0x10'"},
      {"collective --op foo", "field '--op': expected one of all_gather, all_reduce, alltoall, broadcast, "
                              "reduce_scatter, sendrecv, found 'foo'"},
      {"run " + scenario + " --straggler-sweep 9223372036854775808",
       "field '--straggler-sweep': expected a GPU rank in [0, 8), found '9223372036854775808'"},
      {"plan --gpus", "field '--gpus': expected a value after it, found none"},
      {"topo", "field 'file': expected a value (see --help), found none"},
      {"run " + scenario + " extra.yaml", "field 'arguments': expected the command's flags and arguments (see --help), found 'extra.yaml'"},
      {"frobnicate", "field 'command': expected one of run, validate, topo, collective, plan, goodput, sweep, "
                     "compare-strategies, import, calibrate, collect, found 'frobnicate'"},
      {"import " + (test::data_dir() / "traces" / "hta").string() + " --ranks ''", "field '--ranks': expected an integer from 1 to 65536, found ''"}};
  for (const auto& [args, message] : cases) {
    const test::CliResult r = run_dtsim(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.output.find("dtsim: error: <command line>: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }
}

// dtsim's memory budget: work past it stops with exit code 2 and says so (here a budget of 0.2 GB,
// which the unfolded 1,024-GPU default scenario needs more than; folded it needs 0.07 GB).
TEST(RobustCampaign2, WorkBeyondTheMemoryBudgetIsRefused) {
  const auto run_within = [](const std::string& args) {
    const std::string command = "DTSIM_MEMORY_BUDGET_BYTES=2e8 " + std::string(DTSIM_CLI) + " " + args + " 2>&1";
    test::CliResult r;
    FILE* pipe = popen(command.c_str(), "r");
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) r.output.append(buffer, n);
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  };
  EXPECT_EQ(run_within("run").exit_code, 0);
  // A replay scaled far beyond its trace: 4,096 ranks of the HTA trace need 0.55 GB.
  const test::CliResult ranks = run_within("import " + (test::data_dir() / "traces" / "hta").string() + " --ranks 4096");
  EXPECT_EQ(ranks.exit_code, 2) << ranks.output;
  EXPECT_NE(ranks.output.find("<memory budget>"), std::string::npos) << ranks.output;
  // Refused before SimGrid builds anything, with the estimate (sim/engine/memory_estimate.cpp):
  // 42.2 MB + 1,024 x 41.1 kB + 1,024 x 7.0 kB + 1,525,760 tasks x 76.4 B = 0.21 GB.
  const test::CliResult r = run_within("run --no-fold");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("dtsim: error: <memory budget>: expected work within dtsim's memory budget: 0.20 GB for the "
                          "simulation of 'gpt3-175b-1024-a100', found work that needs about 0.21 GB: 1024 GPUs on the "
                          "platform, 1024 simulated, 1525760 tasks"),
            std::string::npos)
      << r.output;
}

// A node that fails at once while another job sends to it: the traffic stops, the failure ends
// the iteration as any failure does (exit code 4), nothing aborts.
TEST(RobustCli, BackgroundTrafficToAFailedNodeEndsAsAFailure) {
  ScratchDir dir;
  const fs::path file = dir.write(
      "s.yaml", scenario_text("events:\n"
                              "  - {type: failure, resource: node, node: 1, at_s: 0}\n"
                              "  - {type: background_traffic, from_node: 0, to_node: 1, rate_GBps: 20}\n"));
  const test::CliResult r = run_dtsim("run " + file.string());
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_NE(r.output.find("node 1 fails at 0 s"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace dtsim
