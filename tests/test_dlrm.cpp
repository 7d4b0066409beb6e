// DLRM (issue 18): the zoo's MLPerf v1 model and its hybrid parallelism: embedding tables sharded
// table by table across the data-parallel GPUs, exchanged by all-to-all, never all-reduced.
#include <gtest/gtest.h>

#include "layer_model_costs.hpp"
#include "layer_model_section.hpp"
#include "memory_model.hpp"
#include "resolved_scenario.hpp"
#include "scenario_loader.hpp"
#include "strategy_comparison.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

const std::filesystem::path kScenario = test::source_dir() / "scenarios" / "dlrm-16-a100.yaml";

// The 26 tables' rows (MLPerf's num_embeddings_per_feature, capped at 40M): 204,184,588 in all,
// 128 wide. Bottom MLP 13-512-256-128 and top MLP 479-1024-1024-512-256-1 with biases.
constexpr double kTableRows = 204184588;
constexpr double kBottomParameters = 13 * 512 + 512 + 512 * 256 + 256 + 256 * 128 + 128;  // 171,392
constexpr double kTopParameters =
    479 * 1024 + 1024 + 1024 * 1024 + 1024 + 1024 * 512 + 512 + 512 * 256 + 256 + 256 + 1;  // 2,197,505

TEST(Dlrm, ParametersAndMultiplyAccumulatesByHand) {
  const LayerGraph g = *zoo_model("dlrm");
  EXPECT_EQ(g.sample_unit, "record");
  EXPECT_DOUBLE_EQ(g.sharded_parameters(), kTableRows * 128);  // 26.1 B
  EXPECT_DOUBLE_EQ(g.parameters(), kTableRows * 128 + kBottomParameters + kTopParameters);
  EXPECT_DOUBLE_EQ(dense_parameters(g), kBottomParameters + kTopParameters);
  EXPECT_DOUBLE_EQ(g.sharded_output_elements(), 26 * 128);
  // Per record: the MLPs' products, and Z Z^T of 27 vectors of 128 (27 x 27 x 128).
  const double mlps = 13 * 512 + 512 * 256 + 256 * 128 + 479 * 1024 + 1024 * 1024 + 1024 * 512 + 512 * 256 + 256;
  EXPECT_DOUBLE_EQ(g.forward_macs(), mlps + 27 * 27 * 128);  // 2,458,496
}

TEST(Dlrm, LookupsTravelByAllToAllAndOnlyTheMlpsAreAllReduced) {
  const Scenario s = load_scenario(kScenario);
  ASSERT_EQ(s.parallelism.dp, 16);
  const WorkloadInputs in = layer_model_workload_inputs(s, resolve_scenario(s).compute);
  // 4096 records x 26 tables x 128 fp16 elements, in the forward pass and back in the backward.
  for (const std::vector<StagePass>* passes : {&in.forward, &in.backward}) {
    ASSERT_EQ(passes->at(0).collectives.size(), 1u);
    const PassCollective& c = passes->at(0).collectives[0];
    EXPECT_EQ(c.kind, CollectiveKind::all_to_all);
    EXPECT_EQ(c.group, GroupRole::dp);
    EXPECT_FALSE(c.overlapped);
    EXPECT_DOUBLE_EQ(c.bytes, 4096.0 * 26 * 128 * 2);
  }
  const double dense_bytes = 4 * (kBottomParameters + kTopParameters);
  EXPECT_DOUBLE_EQ(in.gradient_bytes[0], dense_bytes);
  double bucketed = 0;
  for (const GradientBucket& b : in.gradient_bucket_layout) bucketed += b.bytes;
  EXPECT_DOUBLE_EQ(bucketed, dense_bytes);
}

TEST(Dlrm, TheFullestGpuHoldsOneFortyMillionRowTable) {
  const Scenario s = load_scenario(kScenario);
  const LayerGraph& g = s.layer_model->graph;
  // 16 GPUs: the five 40M-row tables go to five GPUs, the 21 small ones to the others.
  EXPECT_DOUBLE_EQ(fullest_gpu_sharded_parameters(g, 16), 40e6 * 128);
  // One GPU holds every table; two share the five big ones 3 and 2 (plus small ones on the second).
  EXPECT_DOUBLE_EQ(fullest_gpu_sharded_parameters(g, 1), kTableRows * 128);
  EXPECT_DOUBLE_EQ(fullest_gpu_sharded_parameters(g, 2), 3 * 40e6 * 128);
  // Plain SGD keeps no state: weights are the dense MLPs (fp32 and fp16) and the fullest GPU's rows.
  const MemoryBreakdown m = peak_memory_per_gpu(s);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 0);
  EXPECT_DOUBLE_EQ(m.weights_bytes, (kBottomParameters + kTopParameters) * 6 + 40e6 * 128 * 4);
}

TEST(Dlrm, ParameterServersAreRefusedAndCompareStrategiesSaysWhy) {
  const auto error = test::error_of([&] {
    load_scenario(kScenario, {{"data_parallel", "{strategy: parameter_server}"}});
  });
  EXPECT_EQ(error.field, "data_parallel.strategy");
  EXPECT_NE(error.expected.find("sharded embedding tables"), std::string::npos);
  const StrategyComparison c = compare_strategies(load_scenario(kScenario), 2);
  int refused = 0;
  for (const StrategyOutcome& r : c.rows)
    if (r.strategy.find("server") != std::string::npos || r.strategy.find("hierarchical") != std::string::npos) {
      EXPECT_NE(r.error.find("sharded embedding tables"), std::string::npos) << r.strategy;
      ++refused;
    } else {
      EXPECT_TRUE(r.error.empty()) << r.strategy;
      EXPECT_GT(r.samples_per_s, 0) << r.strategy;
    }
  EXPECT_EQ(refused, 3);
}

TEST(Dlrm, ALayerFileMarksItsOwnTablesSharded) {
  const LayerGraph g = load_layer_file(test::data_dir() / "layer-models" / "two-tables.yaml");
  EXPECT_EQ(g.sample_unit, "record");
  EXPECT_DOUBLE_EQ(g.sharded_parameters(), 64e6 + 192e6);  // 1M and 3M rows of 64
  EXPECT_DOUBLE_EQ(g.sharded_output_elements(), 128);
  EXPECT_DOUBLE_EQ(dense_parameters(g), 129);
  const InputErrorInfo info =
      test::error_of([] { load_layer_file(test::data_dir() / "layer-models" / "sharded-linear.yaml"); });
  EXPECT_EQ(info.line, 6);
  EXPECT_EQ(info.field, "layers[0].sharded");
  EXPECT_EQ(info.found, "kind linear");
}

}  // namespace
}  // namespace dtsim
