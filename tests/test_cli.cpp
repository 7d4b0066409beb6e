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

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

CliResult run_dtsim(const std::string& args) {
  const std::string cmd = std::string(DTSIM_CLI) + " " + args + " 2>&1";
  CliResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

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
  EXPECT_NE(r.output.find("tp*pp*dp"), std::string::npos) << r.output;
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
  double last_end_us = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.insert(e["tid"].get<int>());
    if (e["ph"] == "X") last_end_us = std::max(last_end_us, e["ts"].get<double>() + e["dur"].get<double>());
  }
  EXPECT_EQ(tracks.size(), 64u);  // one track per GPU
  EXPECT_NEAR(last_end_us * 1e-6, iteration_s, 1e-5 * iteration_s);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dtsim
