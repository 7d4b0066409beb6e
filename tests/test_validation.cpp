// Predictions against runs measured by others (validation/published-runs.yaml, with sources),
// and how a published run is read: as the scenario it describes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "memory_model.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "test_support.hpp"
#include "validation.hpp"

namespace dtsim {
namespace {

TEST(Validation, Sc21FlopConventionOfGpt3) {
  // Narayanan et al. SC21 count 96*B*s*l*h^2*(1 + s/6h + V/16lh): 175B, batch 1536 -> 4.51e18.
  TransformerConfig m = transformer_shape("gpt3", 96, 12288, 96, 96, 49152, 2048, 51200, MlpKind::gelu);
  const double f = sc21_flops_per_iteration(m, 1536);
  EXPECT_NEAR(f, 96.0 * 1536 * 2048 * 96 * 12288.0 * 12288 * (1 + 2048.0 / (6 * 12288) + 51200.0 / (16 * 96 * 12288)),
              1);
  EXPECT_NEAR(f / 1e18, 4.51, 0.01);
}

TEST(Validation, PublishedRunsArePredictedWithinBounds) {
  const std::filesystem::path runs = test::source_dir() / "validation" / "published-runs.yaml";
  const ValidationSummary s = validate_published_runs(runs, test::source_dir() / "topologies");
  ASSERT_GE(s.rows.size(), 9u);
  // Bounds on the measured runs, not on a past output (issue 4): every run within 12%, mean
  // absolute percentage error at most 5%.
  for (const ValidationRow& row : s.rows) EXPECT_LE(row.relative_error, 0.12) << row.id;
  EXPECT_LE(s.mean_absolute_percentage_error, 5.0);
}

// The runs are simulated side by side, each with its share of the memory budget; what is simulated
// must not depend on the cores. SC21's 145.6B run needs about 0.11 GB (its size estimate, folded):
// within a 0.16 GB budget it is simulated alone when its share was too small; within 0.10 GB it
// cannot be, and is named, the other 8 runs kept.
TEST(Validation, ARunTooLargeForItsShareOfTheBudgetIsSimulatedAlone) {
  const std::filesystem::path runs = test::source_dir() / "validation" / "published-runs.yaml";
  setenv("DTSIM_MEMORY_BUDGET_BYTES", "1.6e8", 1);
  const ValidationSummary fits = validate_published_runs(runs, test::source_dir() / "topologies");
  setenv("DTSIM_MEMORY_BUDGET_BYTES", "1e8", 1);
  const ValidationSummary too_small = validate_published_runs(runs, test::source_dir() / "topologies");
  unsetenv("DTSIM_MEMORY_BUDGET_BYTES");
  EXPECT_EQ(fits.rows.size(), 9u);
  EXPECT_TRUE(fits.failed.empty()) << fits.failed.front();
  EXPECT_EQ(too_small.rows.size(), 8u);
  ASSERT_EQ(too_small.failed.size(), 1u);
  EXPECT_EQ(too_small.failed[0].rfind("sc21-145.6b: ", 0), 0u) << too_small.failed[0];
  EXPECT_NE(too_small.failed[0].find("needs about 0.11 GB"), std::string::npos) << too_small.failed[0];
  EXPECT_NE(format_validation_table(too_small).find("not simulated sc21-145.6b: "), std::string::npos);
}

TEST(Validation, PublishedNcclTestsBusBandwidthWithinTenPercentFromSixtyFourMegabytes) {
  const std::filesystem::path runs = test::source_dir() / "validation" / "published-runs.yaml";
  const ValidationSummary s = validate_published_runs(runs, test::source_dir() / "topologies");
  ASSERT_GE(s.collective_rows.size(), 6u);
  for (const CollectiveValidationRow& row : s.collective_rows)
    if (row.bytes >= 64.0 * (1 << 20)) {
      EXPECT_LT(row.relative_error, 0.10) << row.id << " at " << row.bytes << " B";
    }
}

// One Llama-style run on two DGX H100 nodes with fields the old validate reader ignored.
constexpr const char* kRunSections = R"(
    model: {layers: 8, hidden: 2048, heads: 16, kv_heads: 4, ffn_hidden: 5632, seq_len: 4096, vocab: 32000, mlp: swiglu}
    training: {global_batch: 32, micro_batch: 2, precision: bf16, recompute: selective, attention: flash2}
    parallelism: {tp: 2, pp: 1, dp: 8, sequence_parallel: true, zero_stage: 3, tp_comm_overlap: true})";

std::string runs_file_text(const std::string& extra_parallelism = "") {
  std::string sections = kRunSections;
  if (!extra_parallelism.empty()) sections.replace(sections.rfind('}'), 1, ", " + extra_parallelism + "}");
  return std::string(R"(runs:
  - id: llama-like
    source: "a test, not a publication"
    notes: "free text"
    gpu: h100-sxm
    gpus: 16)") + sections + R"(
    measured: {iteration_time_s: 1.0, derived_from: "made up for the test"}
)";
}

TEST(ValidationRuns, ARunIsSimulatedAsTheScenarioFileWithTheSameSections) {
  const test::ScratchDir dir;
  const auto runs = dir.write("runs.yaml", runs_file_text());
  const auto topology = test::source_dir() / "topologies" / "dgx-h100-ndr-fattree.yaml";
  std::string sections = kRunSections;  // the same lines, at the top level of a scenario file
  for (size_t at = sections.find("\n    "); at != std::string::npos; at = sections.find("\n    ", at + 1))
    sections.erase(at + 1, 4);
  const auto scenario = dir.write("scenario.yaml", "name: llama-like" + sections +
                                                       "\ncluster: {gpu: h100-sxm, nodes: 2, topology: " +
                                                       topology.string() + "}\n");
  const std::vector<PublishedRun> read = read_published_runs(runs, test::source_dir() / "topologies");
  ASSERT_EQ(read.size(), 1u);
  const Scenario& s = read[0].scenario;
  EXPECT_EQ(s.model.mlp, MlpKind::swiglu);
  EXPECT_EQ(s.model.kv_heads, 4);
  EXPECT_EQ(s.parallelism.zero_stage, 3);
  EXPECT_TRUE(s.parallelism.tp_comm_overlap);
  EXPECT_EQ(s.training.attention, AttentionKernel::flash2);
  EXPECT_EQ(s.cluster.nodes, 2);
  const ValidationSummary v = validate_published_runs(runs, test::source_dir() / "topologies");
  ASSERT_EQ(v.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(v.rows[0].predicted, simulate(load_scenario(scenario)).engine.iteration_s);
}

TEST(ValidationRuns, AnUnknownFieldIsAnErrorAtItsLine) {
  const test::ScratchDir dir;
  const auto runs = dir.write("runs.yaml", runs_file_text("context_parallel: 2"));
  const InputErrorInfo e = test::error_of([&] { read_published_runs(runs, test::source_dir() / "topologies"); });
  EXPECT_EQ(e.field, "runs[0].parallelism.context_parallel");
  EXPECT_EQ(e.line, 9);  // the run's parallelism line
}

TEST(ValidationRuns, AnInconsistentRunNamesItsFieldAndLine) {
  const test::ScratchDir dir;
  std::string text = runs_file_text();
  text.replace(text.find("dp: 8"), 5, "dp: 4");  // 2 x 4 GPUs on a 16-GPU cluster
  const auto runs = dir.write("runs.yaml", text);
  const InputErrorInfo e = test::error_of([&] { read_published_runs(runs, test::source_dir() / "topologies"); });
  EXPECT_EQ(e.field.rfind("runs[0].", 0), 0u) << e.field;
  EXPECT_GT(e.line, 0);
}

TEST(ValidationRuns, ModernRunsFileReadsEveryRunWithItsSource) {
  const std::vector<PublishedRun> runs =
      read_published_runs(test::source_dir() / "validation" / "modern-runs.yaml", test::source_dir() / "topologies");
  ASSERT_EQ(runs.size(), 183u);
  int fsdp = 0, swiglu = 0;
  for (const PublishedRun& r : runs) {
    EXPECT_FALSE(r.source.empty()) << r.scenario.name;
    fsdp += r.scenario.parallelism.zero_stage == 3;
    swiglu += r.scenario.model.mlp == MlpKind::swiglu;
  }
  // Counted in the file (grep): 165 runs with zero_stage: 3, 39 with mlp: swiglu.
  EXPECT_EQ(fsdp, 165);
  EXPECT_EQ(swiglu, 39);
}

// Every modern run states its framework (the file's header: NeMo's rows megatron, TorchTitan's and
// llm-foundry's pytorch or torch_compile as each table says), and the set is predicted within the
// 8% mean error issue 43 asks for.
TEST(ValidationRuns, ModernRunsArePredictedByFrameworkWithinEightPercent) {
  const ValidationSummary s = validate_published_runs(test::source_dir() / "validation" / "modern-runs.yaml",
                                                      test::source_dir() / "topologies");
  ASSERT_EQ(s.rows.size(), 183u);
  std::map<std::string, int> runs;
  for (const ValidationGroup& g : s.by_framework) runs[g.name] = g.runs;
  EXPECT_EQ(runs["megatron"], 12);
  EXPECT_EQ(runs["pytorch"], 147);
  EXPECT_EQ(runs["torch_compile"], 24);
  EXPECT_LE(s.mean_absolute_percentage_error, 8.0);
}

// Every llm-foundry row ran, so its predicted peak memory fits its GPU: it does with the loss MPT
// runs (training.cross_entropy fused, nothing of the logits kept in fp32), where F.cross_entropy's
// fp32 copies put 57 of the 137 rows above their GPU's memory.
TEST(ValidationRuns, LlmFoundryRunsFitTheirGpus) {
  const std::vector<PublishedRun> runs =
      read_published_runs(test::source_dir() / "validation" / "modern-runs.yaml", test::source_dir() / "topologies");
  int foundry = 0;
  for (const PublishedRun& r : runs) {
    if (r.source.find("mosaicml/llm-foundry") == std::string::npos) continue;
    ++foundry;
    const MemoryBreakdown m = peak_memory_per_gpu(r.scenario);
    EXPECT_TRUE(m.fits()) << r.scenario.name << ": " << m.total_bytes / 1e9 << " GB of " << m.capacity_bytes / 1e9;
  }
  EXPECT_EQ(foundry, 137);
}

TEST(ValidationRuns, ErrorsAreGroupedBySourceAndGpuType) {
  const std::filesystem::path runs = test::source_dir() / "validation" / "published-runs.yaml";
  const ValidationSummary s = validate_published_runs(runs, test::source_dir() / "topologies");
  ASSERT_EQ(s.by_source.size(), 2u);
  EXPECT_EQ(s.by_source[0].name, "Korthikanti et al. 2022");
  EXPECT_EQ(s.by_source[0].runs, 4);
  EXPECT_EQ(s.by_source[1].name, "Narayanan et al. SC21");
  double korthikanti = 0;
  for (int i = 0; i < 4; ++i) korthikanti += 100 * s.rows[i].relative_error;
  EXPECT_NEAR(s.by_source[0].mean_absolute_percentage_error, korthikanti / 4, 1e-9);
  ASSERT_EQ(s.by_gpu.size(), 1u);
  EXPECT_NEAR(s.by_gpu[0].mean_absolute_percentage_error, s.mean_absolute_percentage_error, 1e-9);
}

}  // namespace
}  // namespace dtsim
