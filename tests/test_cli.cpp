// The dtsim executable: bad input gives one clear message and exit code 2; --json and --trace
// write what the report says.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fmt/format.h>

#include <array>
#include <set>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace dtsim {
namespace {

using test::CliResult;
using test::run_dtsim;

std::string bad(const std::string& name) { return (test::data_dir() / "bad" / name).string(); }

TEST(Cli, UnknownKeyNamesFileLineAndField) {
  const CliResult r = run_dtsim("run " + bad("unknown-top-key.yaml"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown-top-key.yaml:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("field 'paralelism'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("unknown key 'paralelism'"), std::string::npos) << r.output;
}

TEST(Cli, WrongTypeSaysWhatWasExpectedAndFound) {
  const CliResult r = run_dtsim("run " + bad("wrong-type.yaml"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("field 'parallelism.tp': expected a positive integer, found 'eight'"), std::string::npos)
      << r.output;
}

TEST(Cli, GpuCountMismatch) {
  const CliResult r = run_dtsim("run " + bad("gpu-count-mismatch.yaml"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("field 'parallelism'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tp*cp*pp*dp"), std::string::npos) << r.output;
}

TEST(Cli, BatchNotDivisible) {
  const CliResult r = run_dtsim("run " + bad("batch-not-divisible.yaml"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("field 'training.global_batch'"), std::string::npos) << r.output;
}

TEST(Cli, MissingScenarioFile) {
  const CliResult r = run_dtsim("run /no/such/scenario.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("/no/such/scenario.yaml"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("an existing file"), std::string::npos) << r.output;
}

TEST(Cli, MissingTopologyFile) {
  const CliResult r = run_dtsim("run " + bad("missing-topology.yaml"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("field 'cluster.topology'"), std::string::npos) << r.output;
}

TEST(Cli, UnknownFlag) {
  const CliResult r = run_dtsim("run --no-such-flag");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--no-such-flag"), std::string::npos) << r.output;
}

TEST(Cli, UnwritableJsonPathIsBadInputAndWritesNothing) {
  const std::string scenario = (test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml").string();
  const CliResult r = run_dtsim("run " + scenario + " --json /no/such/dir/out.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("field '--json'"), std::string::npos) << r.output;
}

TEST(Cli, JsonAndTraceHoldTheReportedNumbers) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "dtsim-cli-test";
  std::filesystem::create_directories(dir);
  const std::string scenario = (test::source_dir() / "scenarios" / "gpt3-13b-64-a100-straggler.yaml").string();
  const CliResult r =
      run_dtsim("run " + scenario + " --json " + (dir / "r.json").string() + " --trace " + (dir / "t.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;

  std::ifstream json_in(dir / "r.json");
  const nlohmann::json report = nlohmann::json::parse(json_in);
  const double iteration_s = report["iteration_time_s"];
  EXPECT_NE(r.output.find(fmt::format("iteration time      {:.4f} s", iteration_s)), std::string::npos) << r.output;
  // tokens/s = global batch 512 x 2048 tokens / iteration time.
  EXPECT_NEAR(report["tokens_per_s"].get<double>(), 512 * 2048 / iteration_s, 1e-6 * 512 * 2048 / iteration_s);
  const auto& b = report["breakdown_mean_s"];
  const double parts = b["compute"].get<double>() + b["exposed_communication"].get<double>() +
                       b["pipeline_bubble"].get<double>() + b["other"].get<double>();
  EXPECT_NEAR(parts, iteration_s, 1e-9 * iteration_s);

  std::ifstream trace_in(dir / "t.json");
  const nlohmann::json trace = nlohmann::json::parse(trace_in);
  std::set<int> tracks;
  std::set<std::string> names;
  double last_end_us = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      tracks.insert(e["tid"].get<int>());
      names.insert(e["args"]["name"].get<std::string>());
    }
    if (e["ph"] == "X") last_end_us = std::max(last_end_us, e["ts"].get<double>() + e["dur"].get<double>());
  }
  // Rank folding: of the 16 data-parallel replicas (tp 2 x pp 2 = 4 GPUs each), replica 0 runs for
  // the 14 without the straggler and GPU 5's replica 2 for itself: 8 GPUs, each with a compute and
  // a communication track. GPU 0 stands for 15 GPUs.
  EXPECT_EQ(tracks.size(), 16u);
  EXPECT_EQ(names.count("GPU 0 (stage 0) x15 (folded GPUs repeat it)"), 1u);
  EXPECT_EQ(names.count("GPU 5 (stage 0)"), 1u);
  EXPECT_NEAR(last_end_us * 1e-6, iteration_s, 1e-5 * iteration_s);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dtsim

namespace dtsim {
namespace {

// `dtsim collective` prints nccl-tests' columns; the numbers are the alpha-beta time of a ring
// all-reduce on nvswitch-8 (142.4 + 14 x 3.4 us of latency, 1.75 S over 100 GB/s NVLink).
TEST(CollectiveCli, PrintsNcclTestsColumns) {
  const std::string topo = (test::data_dir() / "topologies" / "nvswitch-8.yaml").string();
  const CliResult r = run_dtsim("collective " + topo + " --algo ring --proto Simple -b 1G -e 1G");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double t_us = 190.0 + 1.75 * (1 << 30) / 100e9 * 1e6;
  const double algbw = (1 << 30) / t_us / 1e3, busbw = 1.75 * algbw;
  const std::string row = fmt::format("{:>10} {:>12} {:>8} {:>6} {:>6} {:8.0f} {:7.2f} {:7.2f}", 1 << 30, (1 << 30) / 4,
                                      "float", "sum", -1, t_us, algbw, busbw);
  EXPECT_NE(r.output.find(row), std::string::npos) << "expected row: " << row << "\n" << r.output;
  EXPECT_NE(r.output.find(fmt::format("# Avg bus bandwidth    : {:.4f}", busbw)), std::string::npos) << r.output;
}

TEST(CollectiveCli, BadFlagsAreBadInput) {
  const CliResult gpus = run_dtsim("collective -g 12");  // 8-GPU nodes: 12 is not whole nodes
  EXPECT_EQ(gpus.exit_code, 2);
  EXPECT_NE(gpus.output.find("--gpus"), std::string::npos) << gpus.output;
  const CliResult size = run_dtsim("collective -b 8X");
  EXPECT_EQ(size.exit_code, 2);
  EXPECT_NE(size.output.find("a size in bytes such as 8, 64K, 8M or 8G, from 1 B to 1 TiB, found '8X'"),
            std::string::npos)
      << size.output;
  const CliResult algo = run_dtsim("collective " +
                                   (test::source_dir() / "topologies" / "dgx-a100-hdr-fattree.yaml").string() +
                                   " --algo nvls");  // A100 NVSwitches cannot reduce
  EXPECT_EQ(algo.exit_code, 2);
}

}  // namespace
}  // namespace dtsim
