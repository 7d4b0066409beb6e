// `dtsim compare-strategies` (issue 18): the strategies it runs, scaling efficiency against one
// GPU alone, and the bottleneck it names for the shipped parameter-server scenario.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "layer_model_costs.hpp"
#include "resolved_scenario.hpp"
#include "strategy_comparison.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

TEST(StrategyComparison, TheScenariosOwnStrategyComesFirstAndIsNotRepeated) {
  const Scenario ddp = test::vgg16_on_k80_servers("data_parallel: {strategy: allreduce}\n");
  std::vector<std::string> names;
  for (const StrategyVariant& v : strategy_variants(ddp)) names.push_back(v.name);
  const std::vector<std::string> expected = {
      "allreduce nccl (the scenario's)", "allreduce horovod",     "allreduce mpi",
      "allreduce nccl + fp16",           "allreduce nccl + powersgd", "allreduce nccl + topk",
      "parameter_server sync",           "parameter_server async",    "hierarchical sync"};
  EXPECT_EQ(names, expected);
  // Parameter-server variants keep the scenario's servers and placement.
  const Scenario ps =
      test::vgg16_on_k80_servers("data_parallel: {strategy: parameter_server, servers: 3, placement: dedicated}\n");
  for (const StrategyVariant& v : strategy_variants(ps))
    if (v.data_parallel.uses_servers()) {
      EXPECT_EQ(v.data_parallel.servers, 3) << v.name;
      EXPECT_EQ(v.data_parallel.placement, ServerPlacement::dedicated) << v.name;
    }
}

TEST(StrategyComparison, EveryVariantComputesAsFastAsTheScenarioMeasuredOnOneNode) {
  // A reference on the 8 GPUs of one K80 server, all-reducing as DDP does: 8 x 32 images at 200
  // images/s. Compressed, Horovod or parameter-server variants keep the compute scale that
  // reference gives, not one refitted as if the reference had synchronised their way.
  const Scenario s = test::vgg16_on_k80_servers("reference: {gpus: 8, images_per_s: 200}\n");
  const ComputeModel compute = resolve_scenario(s).compute;
  const double scale = reference_compute_scale(s, compute);
  const double rate = 32 / single_gpu_step_s(s, compute);
  for (const StrategyVariant& v : strategy_variants(s))
    EXPECT_NEAR(reference_compute_scale(with_strategy(s, v, rate), compute), scale, 1e-9 * scale) << v.name;
}

TEST(StrategyComparison, TheShippedScenarioNamesTheServerHoldingFc6AndScalesAgainstItsReference) {
  // 16 K80 at the reference's 36.3 images/s each would do 580.8 images/s: each row's scaling
  // efficiency is its rate over that.
  const test::ScratchDir dir;
  const std::string json = (dir.path() / "cmp.json").string();
  const std::string scenario = (test::source_dir() / "scenarios" / "vgg16-16-k80-parameter-server.yaml").string();
  const test::CliResult r = test::run_dtsim("compare-strategies " + scenario + " --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json c = nlohmann::json::parse(std::ifstream(json));
  EXPECT_DOUBLE_EQ(c["single_gpu_samples_per_s"].get<double>(), 36.3);
  EXPECT_TRUE(c["single_gpu_measured"].get<bool>());
  ASSERT_EQ(c["strategies"].size(), 9u);
  for (const nlohmann::json& row : c["strategies"]) {
    ASSERT_FALSE(row.contains("error")) << row;
    EXPECT_NEAR(row["scaling_efficiency"].get<double>(), row["samples_per_s"].get<double>() / (16 * 36.3), 1e-9);
  }
  const nlohmann::json& own = c["strategies"][0];
  EXPECT_EQ(own["strategy"], "parameter_server sync (the scenario's)");
  // VGG-16's fc6 (25088 x 4096 + 4096 fp32 weights: 411 MB) sits on server 1 (greedy by bytes).
  EXPECT_NE(own["bottleneck"].get<std::string>().find("server 1 receives"), std::string::npos) << own;
  EXPECT_NE(own["bottleneck"].get<std::string>().find("classifier.0, 411 MB"), std::string::npos) << own;
  // All-reduce beats the parameter servers here (the TensorFlow 2017 page's direction).
  EXPECT_GT(c["strategies"][1]["samples_per_s"].get<double>(), own["samples_per_s"].get<double>());
}

// Issue 47: each strategy's days, GPU-hours, cost and energy for --samples at its throughput.
// 16 K80 (150 W each, no node power in the topology) at $3 a GPU-hour and PUE 1.5.
TEST(StrategyComparison, EachStrategyCostsItsTrainingAtItsThroughput) {
  const test::ScratchDir dir;
  const std::string json = (dir.path() / "cmp.json").string();
  const std::string scenario = (test::source_dir() / "scenarios" / "vgg16-16-k80-parameter-server.yaml").string();
  const test::CliResult r = test::run_dtsim("compare-strategies " + scenario +
                                            " --samples 1e8 --usd-per-gpu-hour 3 --pue 1.5 --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("to train on        100,000,000 images, at $3.00 per GPU-hour, PUE 1.5"), std::string::npos)
      << r.output;
  const nlohmann::json c = nlohmann::json::parse(std::ifstream(json));
  for (const nlohmann::json& row : c["strategies"]) {
    const double time_s = 1e8 / row["samples_per_s"].get<double>();
    const nlohmann::json& cost = row["training_cost"];
    EXPECT_NEAR(cost["time_s"].get<double>(), time_s, 1e-9 * time_s) << row["strategy"];
    EXPECT_NEAR(cost["gpu_hours"].get<double>(), time_s / 3600 * 16, 1e-9 * time_s) << row["strategy"];
    EXPECT_NEAR(cost["cost_usd"].get<double>(), 3 * time_s / 3600 * 16, 1e-8 * time_s) << row["strategy"];
    EXPECT_NEAR(cost["energy_mwh"].get<double>(), 16 * 150 * 1.5 * time_s / 3.6e9, 1e-12 * time_s) << row["strategy"];
  }
  // Without --samples: a usual run of the unit (90 ImageNet epochs of 1,281,167 images).
  const StrategyComparison usual = compare_strategies(test::vgg16_on_k80_servers(""), 2);
  EXPECT_TRUE(usual.amount_is_default);
  EXPECT_DOUBLE_EQ(usual.amount, 90.0 * 1281167);
}

TEST(StrategyComparison, ATransformerScenarioIsAnError) {
  const std::string scenario = (test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml").string();
  const test::CliResult r = test::run_dtsim("compare-strategies " + scenario);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("a layer-graph model"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace dtsim
