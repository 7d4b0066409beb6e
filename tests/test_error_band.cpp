// The error band beside a capacity plan's days (issue 47): the published runs that resemble the
// scenario (same GPU, framework and kind of model, within 4x its GPU count; any count below 3
// such runs), each predicted as `dtsim validate` predicts it, and their measured step over the
// predicted one at the extremes.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "error_band.hpp"
#include "scenario_loader.hpp"
#include "test_support.hpp"
#include "validation.hpp"

namespace dtsim {
namespace {

std::filesystem::path validation_dir() { return test::source_dir() / "validation"; }
std::filesystem::path topologies_dir() { return test::source_dir() / "topologies"; }

// Every validated row with its run, from `dtsim validate`'s own tables.
struct Validated {
  ValidationRow row;
  Scenario scenario;
};
std::vector<Validated> everything() {
  std::vector<Validated> out;
  for (const auto& entry : std::filesystem::directory_iterator(validation_dir())) {
    if (entry.path().extension() != ".yaml") continue;
    std::map<std::string, Scenario> by_id;
    for (const PublishedRun& run : read_published_runs(entry.path(), topologies_dir()))
      by_id.emplace(run.scenario.name, run.scenario);
    for (const ValidationRow& row : validate_published_runs(entry.path(), topologies_dir()).rows)
      out.push_back({row, by_id.at(row.id)});
  }
  return out;
}

TEST(ErrorBand, TheExtremesOfTheRunsLikeTheScenario) {
  const Scenario s = load_scenario(test::source_dir() / "scenarios" / "llama2-70b-256-h100.yaml");
  const ErrorBand band = error_band(s, validation_dir(), topologies_dir());
  double low = 1e9, high = 0;
  int runs = 0;
  for (const Validated& v : everything()) {
    const int gpus = v.scenario.gpu_count();
    if (v.scenario.cluster.gpu != "h100-sxm" || v.scenario.training.framework != Framework::megatron ||
        v.scenario.layer_model || gpus < 64 || gpus > 1024)
      continue;
    low = std::min(low, v.row.measured_step_over_predicted());
    high = std::max(high, v.row.measured_step_over_predicted());
    ++runs;
  }
  ASSERT_GE(runs, 3);  // else the band would drop the scale criterion
  EXPECT_EQ(band.runs, runs);
  EXPECT_DOUBLE_EQ(band.low, low);
  EXPECT_DOUBLE_EQ(band.high, high);
  EXPECT_EQ(band.resemblance, "h100-sxm, megatron, 64 to 1,024 GPUs");
  EXPECT_NE(band.describe().find(std::to_string(runs) + " published runs like this"), std::string::npos);
}

TEST(ErrorBand, FewRunsAtTheScaleWidenToAnyScaleAndNoneIsNotValidated) {
  Scenario s = load_scenario(test::source_dir() / "scenarios" / "gpt3-175b-1024-a100.yaml");
  const ErrorBand a100 = error_band(s, validation_dir(), topologies_dir());
  EXPECT_NE(a100.resemblance.find("any GPU count"), std::string::npos) << a100.resemblance;
  EXPECT_GT(a100.runs, 0);
  s.cluster.gpu = "b200";  // no published run in the data
  s.cluster.gpu_differs_from_topology = true;
  const ErrorBand none = error_band(s, validation_dir(), topologies_dir());
  EXPECT_EQ(none.runs, 0);
  EXPECT_EQ(none.describe().rfind("not validated", 0), 0u) << none.describe();
}

// `dtsim run --tokens` prints the days the band spans next to the days predicted.
TEST(ErrorBand, RunPrintsTheDaysItSpans) {
  const test::CliResult r =
      test::run_dtsim("run " + (test::source_dir() / "scenarios" / "llama2-70b-256-h100.yaml").string() + " --tokens 3e11");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("to train          300B tokens: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("evidence          "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("published runs like this (h100-sxm, megatron, 64 to 1,024 GPUs)"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace dtsim
