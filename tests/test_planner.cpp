// The layout planner (sim/analysis/planner.hpp) and `dtsim plan`: what is enumerated (counted by hand
// here), that every returned layout is valid and the rows are in ranking order, that layouts
// which do not fit are dropped and counted, and that bad flags name the flag.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <tuple>

#include "input_error.hpp"
#include "planner.hpp"
#include "simulation.hpp"
#include "scenario_loader.hpp"
#include "test_support.hpp"
#include "transformer_config.hpp"

namespace dtsim {
namespace {

// 4 layers, 8 heads: small enough to enumerate by hand.
TransformerConfig tiny_model() {
  TransformerConfig m;
  m.name = "tiny";
  m.layers = 4, m.hidden = 512, m.heads = 8, m.kv_heads = 8, m.ffn_hidden = 2048;
  m.seq_len = 1024, m.vocab = 1000;
  return m;
}

PlanRequest request_for(const TransformerConfig& m, int gpus, int global_batch, const std::string& gpu = "a100-80gb-sxm") {
  PlanRequest r;
  r.model = m;
  r.gpu = gpu;
  r.gpu_counts = {gpus};
  r.topology_file = test::source_dir() / "topologies" /
                    (gpu.rfind("a100", 0) == 0 ? "dgx-a100-hdr-fattree.yaml" : "dgx-h100-ndr-fattree.yaml");
  r.global_batch = global_batch;
  r.finalists = 0;
  return r;
}

// Only tp, cp and pp vary: one schedule (1f1b), one micro-batch size, no recompute, no ZeRO.
PlanSearchSpace shapes_only() {
  PlanSearchSpace space;
  space.micro_batches = {1};
  space.recompute = {Recompute::none};
  space.interleaved = space.zero_bubble = space.zero_1 = space.zero_3 = false;
  return space;
}

// (tp, cp) with tp*cp <= 8, and pp dividing both 4 layers and 8/(tp*cp):
//   (1,1): pp 1,2,4 (dp 8,4,2)   (1,2): pp 1,2,4 (dp 4,2,1)   (1,4): pp 1,2 (dp 2,1)   (1,8): pp 1
//   (2,1): pp 1,2,4 (dp 4,2,1)   (2,2): pp 1,2 (dp 2,1)       (2,4): pp 1
//   (4,1): pp 1,2 (dp 2,1)       (4,2): pp 1                   (8,1): pp 1
// = 3+3+2+1 + 3+2+1 + 2+1 + 1 = 19 (tp, cp, pp) shapes.
TEST(PlanEnumeration, ShapesOfATinyModelOnOneNode) {
  PlanRequest r = request_for(tiny_model(), 8, 16);
  r.space = shapes_only();
  const PlanResult result = plan_layouts(r);
  EXPECT_EQ(result.enumerated, 19);
  EXPECT_EQ(result.invalid, 0);  // 8 heads split by any tp <= 8, seq 1024 by 2*cp, batch 16 by dp
}

// The full default space over the same 19 shapes. Per shape, schedules x ZeRO stages:
//   schedules: pp 1 -> 1f1b; pp 2 -> 1f1b, zero_bubble, interleaved v=2 (4 % (2*2) == 0); pp 4 -> 1f1b, zero_bubble
//   ZeRO: dp 1 -> {0}; dp > 1 and pp 1 -> {0, 1, 3}; dp > 1 and pp > 1 -> {0, 1}
//   (1,1): pp1 dp8 1x3 + pp2 dp4 3x2 + pp4 dp2 2x2 = 13   (1,2): 3 + 6 + pp4 dp1 2x1 = 11
//   (1,4): pp1 dp2 3 + pp2 dp1 3x1 = 6   (1,8): 1   (2,1): 11   (2,2): 6   (2,4): 1   (4,1): 6   (4,2): 1   (8,1): 1
//   = 57, times 4 micro-batch sizes x 3 recompute modes = 684.
TEST(PlanEnumeration, DefaultSpaceOfATinyModelOnOneNode) {
  const PlanResult result = plan_layouts(request_for(tiny_model(), 8, 16));
  EXPECT_EQ(result.enumerated, 684);
  EXPECT_EQ(result.invalid + result.out_of_memory + result.estimated, result.enumerated);
  EXPECT_EQ(long(result.rows.size()), result.estimated);
}

// Micro-batch sizes 1, 2, 4, 8 over the 19 shapes = 76 layouts. Global batch 16 splits into
// dp x micro_batch only when dp x micro_batch <= 16: the one dp-8 shape fails with mb 4 and 8,
// the three dp-4 shapes with mb 8: 2 + 3 = 5 invalid, all on training.global_batch.
TEST(PlanEnumeration, LayoutsTheBatchCannotSplitIntoAreInvalid) {
  PlanRequest r = request_for(tiny_model(), 8, 16);
  r.space = shapes_only();
  r.space.micro_batches = {1, 2, 4, 8};
  const PlanResult result = plan_layouts(r);
  EXPECT_EQ(result.enumerated, 76);
  EXPECT_EQ(result.invalid, 5);
  ASSERT_EQ(result.invalid_by_field.size(), 1u);
  EXPECT_EQ(result.invalid_by_field[0].first, "training.global_batch");
}

TEST(PlanEnumeration, EveryRowIsAValidLayoutOfItsGpuCount) {
  PlanRequest r = request_for(find_model_preset("gpt3-1.3b").value(), 16, 64);
  r.gpu_counts = {8, 16};
  const PlanResult result = plan_layouts(r);
  ASSERT_FALSE(result.rows.empty());
  for (const PlanRow& row : result.rows) {
    const ParallelismConfig& p = row.parallelism;
    EXPECT_EQ(p.tp * p.cp * p.pp * p.dp, row.gpus) << layout_label(row);
    EXPECT_TRUE(row.gpus == 8 || row.gpus == 16);
    EXPECT_LE(p.tp * p.cp, 8) << layout_label(row);  // TP and CP stay inside the NVLink domain
    EXPECT_EQ(p.sequence_parallel, p.tp > 1);
    EXPECT_TRUE(p.overlap_grad_reduce);
    EXPECT_NO_THROW(check_scenario_consistency(result.scenario_of(row))) << layout_label(row);
  }
}

// Rows come by GPU count (8, then 16), each count ranked on its own: a capacity plan compares the
// best of each count, which one list ranked by time would bury under the larger count's rows.
TEST(PlanRanking, RowsAreRankedWithinEachGpuCount) {
  PlanRequest r = request_for(find_model_preset("gpt3-1.3b").value(), 16, 64);
  r.gpu_counts = {8, 16};
  const PlanResult result = plan_layouts(r);
  ASSERT_FALSE(result.rows.empty());
  EXPECT_EQ(result.rows.front().gpus, 8);
  EXPECT_EQ(result.rows.back().gpus, 16);
  for (size_t i = 1; i < result.rows.size(); ++i) {
    const PlanRow &a = result.rows[i - 1], &b = result.rows[i];
    EXPECT_LE(std::tie(a.gpus, a.analytic_s, a.memory_bytes), std::tie(b.gpus, b.analytic_s, b.memory_bytes))
        << "rows " << i << " and " << i + 1;
    EXPECT_EQ(result.rank_in_count(i), a.gpus == b.gpus ? result.rank_in_count(i - 1) + 1 : 1);
  }
}

// Training keeps at least 16 bytes per parameter (bf16 weights and gradients, fp32 master weights
// and Adam moments): 175e9 x 16 = 2.8 TB, which no split over 8 GPUs brings under 8 x 80 = 640 GB.
TEST(PlanMemory, Gpt3_175bFitsNowhereOnEightA100) {
  const PlanRequest r = request_for(find_model_preset("gpt3-175b").value(), 8, 1536);
  const PlanResult result = plan_layouts(r);
  EXPECT_TRUE(result.rows.empty());
  EXPECT_GT(result.out_of_memory, 0);
  EXPECT_EQ(result.out_of_memory, result.enumerated - result.invalid);
}

TEST(PlanSimulation, OneFinalistIsSimulatedAndKeepsItsPlace) {
  PlanRequest r = request_for(find_model_preset("gpt3-1.3b").value(), 8, 16, "h100-sxm");
  r.space = shapes_only();
  r.finalists = 1;
  const PlanResult result = plan_layouts(r);
  ASSERT_FALSE(result.rows.empty());
  EXPECT_EQ(result.simulated, 1);
  ASSERT_TRUE(result.rows[0].simulated_s.has_value()) << result.rows[0].simulation_error;
  EXPECT_GT(*result.rows[0].simulated_s, 0);
  for (size_t i = 1; i < result.rows.size(); ++i) EXPECT_FALSE(result.rows[i].simulated_s.has_value());
}

// Each GPU count gets its own finalists: the best analytic layout of 8 and of 16 GPUs simulated.
TEST(PlanSimulation, EachGpuCountHasItsFinalists) {
  PlanRequest r = request_for(find_model_preset("gpt3-1.3b").value(), 8, 16, "h100-sxm");
  r.space = shapes_only();
  r.gpu_counts = {8, 16};
  r.finalists = 1;
  const PlanResult result = plan_layouts(r);
  EXPECT_EQ(result.simulated, 2);
  for (size_t i = 0; i < result.rows.size(); ++i)
    EXPECT_EQ(result.rows[i].simulated_s.has_value(), result.rank_in_count(i) == 1) << i;
}

// The scenario `plan --write-scenario` writes is the plan's layout: `dtsim run` of it simulates the
// time the plan simulated for it (in full, --full-simulation), to the last digit.
TEST(PlanCli, WrittenScenarioRunsToThePlansTime) {
  test::ScratchDir dir;
  const std::string file = (dir.path() / "best.yaml").string();
  const test::CliResult plan =
      test::run_dtsim("plan --model gpt3-1.3b --gpu h100-sxm --gpus 8,16 --global-batch 16 --finalists 1 "
                      "--full-simulation --top 1 --tokens 1e9 --json " + (dir.path() / "p.json").string() +
                      " --write-scenario " + file);
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  std::ifstream in(dir.path() / "p.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  for (int gpus : {8, 16}) {
    const std::filesystem::path written = dir.path() / ("best-" + std::to_string(gpus) + ".yaml");
    ASSERT_TRUE(std::filesystem::exists(written)) << plan.output;
    nlohmann::json best;
    for (const nlohmann::json& row : j.at("rows"))
      if (row.at("gpus") == gpus && row.at("rank_in_gpu_count") == 1) best = row;
    const SimulationResult run = simulate(load_scenario(written));
    EXPECT_NEAR(run.engine.iteration_s, best.at("simulated_iteration_s").get<double>(), 1e-9) << gpus;
    // 1e9 tokens at the row's throughput, in days; GPU-hours = days x 24 x GPUs.
    const nlohmann::json& cost = best.at("training_cost");
    EXPECT_NEAR(cost.at("days").get<double>(), 1e9 / best.at("tokens_per_s").get<double>() / 86400, 1e-12);
    EXPECT_NEAR(cost.at("gpu_hours").get<double>(), cost.at("days").get<double>() * 24 * gpus, 1e-9);
    EXPECT_NE(plan.output.find(std::to_string(gpus) + " GPUs (" + std::to_string(gpus / 8) + " node"),
              std::string::npos)
        << plan.output;
  }
  EXPECT_NE(plan.output.find("days"), std::string::npos) << plan.output;
}

// An invalid layout says what failed, with its layout, not only the field.
TEST(PlanCli, InvalidLayoutsSayWhy) {
  const test::CliResult r = test::run_dtsim("plan --model gpt3-1.3b --gpu h100-sxm --gpus 16 --global-batch 6 "
                                            "--finalists 0 --top 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("  invalid    "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" by training.global_batch, e.g. tp"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(": expected "), std::string::npos) << r.output;
}

// A GPU count where nothing fits is said to be so, beside the counts that have layouts: GPT-3
// 175B needs 2.8 TB of training state, which 8 A100 cannot hold (PlanMemory above).
TEST(PlanCli, ACountWhereNothingFitsSaysSo) {
  const test::CliResult r = test::run_dtsim("plan --model gpt3-175b --gpus 8,1024 --finalists 0 --top 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("8 GPUs: no layout fits"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1024 GPUs (128 nodes): "), std::string::npos) << r.output;
}

TEST(PlanGpuCounts, OneListOrRangeOfPowersOfTwo) {
  EXPECT_EQ(parse_gpu_counts("--gpus", "1024"), std::vector<int>({1024}));
  EXPECT_EQ(parse_gpu_counts("--gpus", "1024,512"), std::vector<int>({512, 1024}));
  EXPECT_EQ(parse_gpu_counts("--gpus", "256-2048"), std::vector<int>({256, 512, 1024, 2048}));
  EXPECT_EQ(parse_gpu_counts("--gpus", "100-300"), std::vector<int>({128, 256}));
  EXPECT_EQ(parse_gpu_counts("--gpus", "1-16", 8), std::vector<int>({8, 16}));  // whole 8-GPU nodes only
  for (const char* bad : {"", "abc", "2048-256", "8,", "-8", "0", "9-15", "1-4"}) {
    const InputErrorInfo e = test::error_of([&] { parse_gpu_counts("--gpus", bad, 8); });
    EXPECT_EQ(e.field, "--gpus") << bad;
    EXPECT_NE(e.found.find(bad), std::string::npos) << bad;
  }
}

TEST(PlanGpuCounts, CountsThatAreNotWholeNodesAreRejected) {
  const InputErrorInfo e = test::error_of([] { plan_layouts(request_for(tiny_model(), 12, 16)); });
  EXPECT_EQ(e.field, "--gpus");
  EXPECT_EQ(e.found, "12");
}

TEST(PlanCli, BadFlagsNameTheFlag) {
  const std::pair<const char*, const char*> cases[] = {
      {"--gpus 2048-256", "field '--gpus'"},     {"--gpus 12", "field '--gpus'"},
      {"--model no-such-model", "field '--model'"}, {"--gpu no-such-gpu", "field '--gpu'"},
      {"--top 0", "field '--top'"},              {"--global-batch x", "field '--global-batch'"},
      {"--precision int4", "field '--precision'"}};
  for (const auto& [args, expected] : cases) {
    const test::CliResult r = test::run_dtsim(std::string("plan --finalists 0 ") + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << args << "\n" << r.output;
  }
}

TEST(PlanCli, PrintsWhatWasSearchedAndWritesEveryRankedRow) {
  const std::filesystem::path json_file = std::filesystem::temp_directory_path() / "dtsim-plan-test.json";
  std::filesystem::remove(json_file);
  const test::CliResult r = test::run_dtsim("plan --model gpt3-1.3b --gpu h100-sxm --gpus 8 --global-batch 16 "
                                            "--finalists 0 --top 3 --json " + json_file.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("searched"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank"), std::string::npos) << r.output;
  std::ifstream in(json_file);
  const nlohmann::json j = nlohmann::json::parse(in);
  const nlohmann::json& search = j.at("search");
  EXPECT_EQ(search.at("enumerated").get<long>(), search.at("invalid").get<long>() +
                                                     search.at("out_of_memory").get<long>() +
                                                     search.at("estimated").get<long>());
  EXPECT_EQ(long(j.at("rows").size()), search.at("estimated").get<long>());
  std::filesystem::remove(json_file);
}

}  // namespace
}  // namespace dtsim
