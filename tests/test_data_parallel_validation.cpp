// Data-parallel runs of CNNs and BERT measured by others (validation/data-parallel-runs.yaml,
// with sources), and how such a row is read: as the scenario it describes.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_support.hpp"
#include "validation.hpp"

namespace dtsim {
namespace {

const ValidationSummary& data_parallel_summary() {
  static const ValidationSummary s = validate_published_runs(
      test::source_dir() / "validation" / "data-parallel-runs.yaml", test::source_dir() / "topologies");
  return s;
}

const ValidationRow& row(const std::string& id) {
  const std::vector<ValidationRow>& rows = data_parallel_summary().rows;
  const auto r = std::find_if(rows.begin(), rows.end(), [&](const ValidationRow& x) { return x.id == id; });
  if (r == rows.end()) throw std::runtime_error("no row " + id);
  return *r;
}

TEST(DataParallelValidation, PublishedRunsArePredictedWithinTheIssuesGoal) {
  const ValidationSummary& s = data_parallel_summary();
  ASSERT_GE(s.rows.size(), 33u);
  // Issue 18's goal: a mean absolute percentage error of at most 8%. The worst row, 16 V100 of a
  // DGX-2 reading ImageNet at 17,250 images/s (TensorFlow, AMP), is 20% slower than predicted:
  // likely its input pipeline, whose storage and decode rates the source does not give.
  EXPECT_LE(s.mean_absolute_percentage_error, 8.0);
  for (const ValidationRow& r : s.rows) EXPECT_LE(r.relative_error, 0.21) << r.id;
}

TEST(DataParallelValidation, SmallerDdpBucketsAreSlowerAsPublished) {
  // PyTorch's DDP benchmark README: bucket_cap_mb 1 is slower than the default 25 on 2 DGX-1
  // (ResNet-50 p75 -3.8%, ResNet-101 p75 -0.1%); so is the prediction.
  EXPECT_GT(row("pt-ddp-rn50-16gpu-bucket1mb").predicted, row("pt-ddp-rn50-16gpu").predicted);
  EXPECT_GT(row("pt-ddp-rn101-16gpu-bucket1mb").predicted, row("pt-ddp-rn101-16gpu").predicted);
}

// Every pair of rows of one publication and setup is a published comparison, checked for its
// direction: here the two bucket sizes of PyTorch's DDP README (0.108 s against 0.104 s, +3.8%).
TEST(DataParallelValidation, PublishedComparisonsAreFoundAndTheirDirectionChecked) {
  const std::vector<ValidationComparison>& c = data_parallel_summary().comparisons;
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].first, "pt-ddp-rn50-16gpu");
  EXPECT_EQ(c[0].second, "pt-ddp-rn50-16gpu-bucket1mb");
  EXPECT_DOUBLE_EQ(c[0].measured_change, 0.108 / 0.104 - 1);
  EXPECT_DOUBLE_EQ(c[0].predicted_change,
                   row("pt-ddp-rn50-16gpu-bucket1mb").predicted / row("pt-ddp-rn50-16gpu").predicted - 1);
  EXPECT_EQ(c[1].second, "pt-ddp-rn101-16gpu-bucket1mb");
  for (const ValidationComparison& x : c) EXPECT_TRUE(x.direction_right()) << x.second;
}

// Slower or faster by more than 1% must be predicted in that direction; within 1% (the same
// speed), the prediction must be within 1% too.
TEST(DataParallelValidation, AComparisonsDirectionIsItsSignOrTheSameSpeed) {
  const auto right = [](double measured, double predicted) {
    ValidationComparison c;
    c.measured_change = measured;
    c.predicted_change = predicted;
    return c.direction_right();
  };
  EXPECT_TRUE(right(0.038, 0.004));
  EXPECT_TRUE(right(-0.2, -0.05));
  EXPECT_FALSE(right(0.05, -0.01));
  EXPECT_TRUE(right(0.005, -0.009));
  EXPECT_FALSE(right(0.005, 0.02));
}

TEST(DataParallelValidation, MultiNodeRunsScaleFromTheirOneNodeReference) {
  // DeepLearningExamples' BERT multi-node tables give each run's one-node rate; scaled from it,
  // 4 to 64 nodes of DGX-1, DGX-2H and DGX A100 land within 9% of what was measured, and below
  // perfect scaling of the reference (4 DGX-1 16G: 3,089.76 measured, 4 x 874.24 = 3,496.96).
  for (const char* id :
       {"dle-pt-bert-1907-multi-dgx1-16g-s128-amp-32gpu", "dle-pt-bert-1907-multi-dgx1-16g-s128-amp-128gpu",
        "dle-pt-bert-1907-multi-dgx1-16g-s512-amp-128gpu", "dle-pt-bert-1907-multi-dgx2h-s128-amp-1024gpu",
        "dle-pt-bert-1907-multi-dgx2h-s512-amp-1024gpu", "dle-pt-bert-2111-a100-multinode-s128-amp-64gpu",
        "dle-pt-bert-2111-a100-multinode-s128-amp-256gpu", "dle-pt-bert-2111-a100-multinode-s512-amp-256gpu"})
    EXPECT_LE(row(id).relative_error, 0.09) << id;
  EXPECT_LT(row("dle-pt-bert-1907-multi-dgx1-16g-s128-amp-32gpu").predicted, 4 * 874.24);
}

TEST(DataParallelValidation, RunsTheModelCannotSimulateYetAreSkippedWithTheirReason) {
  const std::vector<std::string>& skipped = data_parallel_summary().skipped;
  for (const char* expected : {"tf17-aws-k80-rn50-synth-8gpu: strategy replicated not modelled yet",
                               "dle-pt-rn50-2103-dgx1-16g-fp32-8gpu: batch per GPU unpublished",
                               "hvd17-16gpu-rn101-rdma-nccl: GPU unpublished"})
    EXPECT_NE(std::find(skipped.begin(), skipped.end(), expected), skipped.end()) << expected;
}

// A row in the issue's schema: 16 GPUs in 4 servers, one 25 Gb/s NIC each, over TCP.
constexpr const char* kHorovodRow = R"(runs:
  - id: resnet101-16-gpus
    source: "a test, not a publication"
    gpu: v100-sxm2-16gb
    gpus: 16
    gpus_per_node: 4
    network: {nic_gbps: 25, nics_per_node: 1, transport: tcp}
    model: {zoo: resnet-101}
    training: {batch_per_gpu: 64, precision: fp32}
    data_parallel: {strategy: allreduce, library: horovod}
    reference: {gpus: 1, images_per_s: 119.4}
    measured: {images_per_s: 1746.2}
)";

TEST(DataParallelRuns, ARowIsReadAsTheClusterModelAndStrategyItDescribes) {
  const test::ScratchDir dir;
  const std::vector<PublishedRun> runs =
      read_published_runs(dir.write("runs.yaml", kHorovodRow), test::source_dir() / "topologies");
  ASSERT_EQ(runs.size(), 1u);
  const Scenario& s = runs[0].scenario;
  EXPECT_EQ(s.cluster.nodes, 4);
  EXPECT_EQ(s.cluster.topology.node.gpus, 4);
  EXPECT_EQ(s.cluster.topology.node.nics, 1);
  EXPECT_DOUBLE_EQ(s.cluster.topology.node.nic_bw_Bps, 25e9 / 8);
  EXPECT_EQ(s.parallelism.dp, 16);
  EXPECT_EQ(s.training.micro_batch, 64);
  EXPECT_EQ(s.training.global_batch, 1024);
  EXPECT_EQ(s.layer_model->zoo, "resnet-101");
  EXPECT_EQ(s.data_parallel.library, AllreduceLibrary::horovod);
  EXPECT_DOUBLE_EQ(s.data_parallel.bucket_cap_mb, 64);
  EXPECT_DOUBLE_EQ(s.data_parallel.cycle_time_ms, 5);
  EXPECT_DOUBLE_EQ(s.reference->samples_per_s, 119.4);
  EXPECT_EQ(runs[0].metric, "images_per_s");
  EXPECT_NE(runs[0].not_modelled.find("TCP"), std::string::npos);
}

TEST(DataParallelRuns, SixteenV100PerNodeAreADgx2) {
  std::string text = kHorovodRow;
  text.replace(text.find("gpus_per_node: 4"), 16, "gpus_per_node: 16");
  const test::ScratchDir dir;
  const std::vector<PublishedRun> runs =
      read_published_runs(dir.write("runs.yaml", text), test::source_dir() / "topologies");
  EXPECT_EQ(runs[0].scenario.cluster.topology_file.filename(), "dgx2-v100-edr-nvswitch.yaml");
  EXPECT_EQ(runs[0].scenario.cluster.nodes, 1);
}

TEST(DataParallelRuns, GpusThatDoNotFillWholeNodesAreAnErrorAtTheirLine) {
  std::string text = kHorovodRow;
  text.replace(text.find("gpus: 16"), 8, "gpus: 18");
  const test::ScratchDir dir;
  const auto runs = dir.write("runs.yaml", text);
  const InputErrorInfo e = test::error_of([&] { read_published_runs(runs, test::source_dir() / "topologies"); });
  EXPECT_EQ(e.line, 5);
  EXPECT_EQ(e.field, "runs[0].gpus");
  EXPECT_NE(e.expected.find("multiple of gpus_per_node (4)"), std::string::npos) << e.expected;
}

}  // namespace
}  // namespace dtsim
