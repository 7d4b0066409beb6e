// Gradient compression (issue 18): what each scheme sends and what its codec kernels cost, the
// decode running on the communication stream beside the compute, and the direction of the
// speed-up (large where the network is the bottleneck, none where the compute is).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "gradient_compression.hpp"
#include "layer_model_costs.hpp"
#include "model_zoo.hpp"
#include "simulation.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

const Layer& layer_named(const LayerGraph& g, const std::string& name) {
  for (const Layer& l : g.layers)
    if (l.name == name) return l;
  throw std::runtime_error("no layer " + name);
}

TEST(GradientCompression, PowerSgdSeesEachWeightAsOutputChannelsByInputs) {
  // VGG-16's fc6: 4096 x 25088 weights and 4096 biases. ResNet-50's conv1: 64 x (3 x 7 x 7),
  // no bias. Batch norm has no matrix to compress.
  const LayerGraph vgg = *zoo_model("vgg-16"), resnet = *zoo_model("resnet-50");
  const WeightMatrix fc6 = weight_matrix(layer_named(vgg, "classifier.0"));
  EXPECT_DOUBLE_EQ(fc6.rows, 4096);
  EXPECT_DOUBLE_EQ(fc6.cols, 25088);
  EXPECT_DOUBLE_EQ(fc6.bias, 4096);
  const WeightMatrix conv1 = weight_matrix(layer_named(resnet, "conv1.conv"));
  EXPECT_DOUBLE_EQ(conv1.rows, 64);
  EXPECT_DOUBLE_EQ(conv1.cols, 147);
  EXPECT_DOUBLE_EQ(conv1.bias, 0);
  EXPECT_DOUBLE_EQ(weight_matrix(layer_named(resnet, "conv1.bn")).rows, 0);
  // BERT-large's word embeddings: 30,522 entries of 1,024.
  const WeightMatrix words = weight_matrix(layer_named(*zoo_model("bert-large"), "embeddings.word"));
  EXPECT_DOUBLE_EQ(words.rows, 30522);
  EXPECT_DOUBLE_EQ(words.cols, 1024);
  // Compressed when 2 x rank x (rows + cols) < rows x cols.
  EXPECT_TRUE(powersgd_compresses(conv1, 4));    // 2 x 4 x 211 = 1,688 < 9,408
  EXPECT_FALSE(powersgd_compresses(conv1, 64));  // 27,008
  EXPECT_TRUE(powersgd_compresses(fc6, 1));
}

class CompressedBuckets : public ::testing::Test {
 protected:
  static WorkloadInputs inputs(const Scenario& s) { return workload_inputs(s, resolve_scenario(s).compute); }
  static double streamed_s(const Scenario& s, double bytes) {
    return resolve_scenario(s).compute.time_s(Operator{"codec", OperatorKind::elementwise, 0, bytes});
  }
  static constexpr double kVgg16Parameters = 138357544;
};

TEST_F(CompressedBuckets, Fp16HalvesTheAllReduceAndStreamsSixBytesPerGradientEachWay) {
  // Per fp32 gradient (4 B): the cast reads 4 B and writes 2 B, the all-reduce carries 2 B, the
  // cast back reads 2 B and writes 4 B.
  const Scenario s = test::vgg16_on_k80_servers("data_parallel: {compression: fp16}\n");
  const WorkloadInputs in = inputs(s);
  double gradient_bytes = 0;
  for (const GradientBucket& b : in.gradient_bucket_layout) {
    gradient_bytes += b.bytes;
    EXPECT_DOUBLE_EQ(b.encode_s, streamed_s(s, 1.5 * b.bytes));
    ASSERT_EQ(b.exchange.size(), 2u);
    EXPECT_EQ(b.exchange[0].collective, CollectiveKind::all_reduce);
    EXPECT_DOUBLE_EQ(b.exchange[0].bytes, b.bytes / 2);
    EXPECT_DOUBLE_EQ(b.exchange[1].compute_s, streamed_s(s, 1.5 * b.bytes));
  }
  EXPECT_DOUBLE_EQ(gradient_bytes, 4 * kVgg16Parameters);
}

TEST_F(CompressedBuckets, QuantisersAllToAllAndAllGatherTheirCodesSparsifiersSendTheKeptShare) {
  const Scenario onebit = test::vgg16_on_k80_servers("data_parallel: {compression: onebit}\n");
  for (const GradientBucket& b : inputs(onebit).gradient_bucket_layout) {
    ASSERT_EQ(b.exchange.size(), 4u);  // all-to-all, decode-sum-encode, all-gather, decode
    EXPECT_EQ(b.exchange[0].collective, CollectiveKind::all_to_all);
    EXPECT_DOUBLE_EQ(b.exchange[0].bytes, b.bytes / 32);  // 1 bit per 32-bit gradient
    EXPECT_EQ(b.exchange[2].collective, CollectiveKind::all_gather);
    EXPECT_DOUBLE_EQ(b.exchange[2].bytes, b.bytes / 32);
  }
  // Top-k at 1%: 16 ranks each contribute k = 0.01 n (value, index) pairs of 8 B to the
  // all-gather's buffer: 16 x 0.01 x (bytes / 4) x 8 = 0.32 x bytes. Random-k shares the indices
  // through a seed and all-reduces the values: 0.01 x bytes.
  const Scenario topk = test::vgg16_on_k80_servers("data_parallel: {compression: topk, compression_density: 0.01}\n");
  for (const GradientBucket& b : inputs(topk).gradient_bucket_layout) {
    ASSERT_EQ(b.exchange.size(), 2u);
    EXPECT_EQ(b.exchange[0].collective, CollectiveKind::all_gather);
    EXPECT_NEAR(b.exchange[0].bytes, 0.32 * b.bytes, 1e-9 * b.bytes);
  }
  const Scenario randomk =
      test::vgg16_on_k80_servers("data_parallel: {compression: randomk, compression_density: 0.01}\n");
  for (const GradientBucket& b : inputs(randomk).gradient_bucket_layout) {
    EXPECT_EQ(b.exchange[0].collective, CollectiveKind::all_reduce);
    EXPECT_NEAR(b.exchange[0].bytes, 0.01 * b.bytes, 1e-9 * b.bytes);
  }
}

TEST_F(CompressedBuckets, PowerSgdAllReducesTheBiasesAndBothFactorsOfEveryWeight) {
  // VGG-16, rank 1: every weight compresses. Biases: 13,416 (the 13 convolutions' 4,224 output
  // channels and fc6-fc8's 4,096 + 4,096 + 1,000); P has as many elements (one per output row);
  // Q one per input column: the convolutions' in x 3 x 3 (33,435) and fc6-fc8's 25,088 + 4,096 +
  // 4,096. All fp32.
  const Scenario s = test::vgg16_on_k80_servers("data_parallel: {compression: powersgd}\n");
  double all_reduced = 0;
  for (const GradientBucket& b : inputs(s).gradient_bucket_layout)
    for (const ExchangeStep& step : b.exchange) {
      EXPECT_TRUE(step.bytes == 0 || step.collective == CollectiveKind::all_reduce);
      all_reduced += step.bytes;
    }
  EXPECT_DOUBLE_EQ(all_reduced, 4.0 * (13416 + 13416 + 33435 + 25088 + 4096 + 4096));
}

// Two 1-GPU nodes with 50 GB/s NICs; each rank computes, all-reduces 5 GB on its communication
// stream and decodes 0.5 s there. The ring all-reduce of 2 ranks sends half the buffer each way
// twice: 5 GB / 50 GB/s = 0.1 s (plus microseconds of latency).
Workload decode_after_all_reduce(bool collective_first) {
  Workload w;
  w.groups.push_back({"dp", {0, 1}});
  for (int rank = 0; rank < 2; ++rank) {
    RankProgram& p = w.ranks.emplace_back();
    const Task compute{.kind = TaskKind::compute, .compute_s = 1};
    if (!collective_first) p.tasks.push_back(compute);
    p.tasks.push_back({.kind = TaskKind::collective, .group = 0, .bytes = 5e9, .overlapped = true});
    p.tasks.push_back({.kind = TaskKind::compute, .compute_s = 0.5, .group = 0, .overlapped = true});
    if (collective_first) p.tasks.push_back(compute);
    p.tasks.push_back({.kind = TaskKind::wait_overlapped, .overlapped_done = 2});
  }
  return w;
}

TEST(CompressedExchange, TheDecodeWaitsForItsCollectiveAndSharesTheGpuWithTheCompute) {
  const TopologySpec topo = test::test_topology("single-gpu-nodes");
  // After the compute: 1 + 0.1 + 0.5 s.
  const SimulationResult after = simulate_workload(topo, 2, test::kSpeed, decode_after_all_reduce(false), {});
  EXPECT_NEAR(after.engine.iteration_s, 1.6, 0.002);
  // Before it: the decode starts at 0.1 s beside the compute; the GPU does 1.5 s of work either
  // way, so the iteration ends at 1.5 s (not max(1, 0.6)).
  const SimulationResult before = simulate_workload(topo, 2, test::kSpeed, decode_after_all_reduce(true), {});
  EXPECT_NEAR(before.engine.iteration_s, 1.5, 0.002);
  // The compute runs alone to 0.1 s, at half speed beside the decode to 1.1 s (0.5 s of work
  // each), then alone again: 1.5 s of wall time. The decode's 1 s is the gradient
  // synchronisation's (its group's kind), after the all-reduce's 0.1 s.
  EXPECT_NEAR(before.engine.ranks[0].compute_s, 1.5, 0.002);
  EXPECT_NEAR(before.engine.ranks[0].communication_by_kind.at("dp").total_s, 0.1 + 1.0, 0.002);
}

TEST(CompressedExchange, CompressionPaysWhereTheNetworkIsTheBottleneckAndNotWhereTheCompute) {
  // VGG-16's 553 MB of gradients over one 25 Gb/s NIC per 8 K80. At the K80's measured 36.3
  // images/s the backward pass hides the all-reduce and fp16 gains under 5%; with GPUs ten times
  // faster the all-reduce is exposed and fp16 halves it.
  auto iteration_s = [](const std::string& compression, double images_per_s) {
    return simulate(test::vgg16_on_k80_servers(
                        "data_parallel: {compression: " + compression + "}\n" +
                        "reference: {gpus: 1, images_per_s: " + std::to_string(images_per_s) + "}\n"))
        .engine.iteration_s;
  };
  const double slow_none = iteration_s("none", 36.3), slow_fp16 = iteration_s("fp16", 36.3);
  EXPECT_LT(std::abs(slow_fp16 / slow_none - 1), 0.05);
  const double fast_none = iteration_s("none", 363), fast_fp16 = iteration_s("fp16", 363);
  EXPECT_LT(fast_fp16, 0.8 * fast_none);
}

TEST(CompressedExchange, ParameterServersReceiveCompressedPushes) {
  // fp16 pushes: each server receives half the bytes per iteration; the weights come back fp32.
  const std::string ps = "data_parallel: {strategy: parameter_server, servers: 2, iterations: 2";
  const SimulationResult plain = simulate(test::vgg16_on_k80_servers(ps + "}\n"));
  const SimulationResult fp16 = simulate(test::vgg16_on_k80_servers(ps + ", compression: fp16}\n"));
  const ParameterServerStats &a = plain.engine.servers, &b = fp16.engine.servers;
  ASSERT_EQ(a.server_received_bytes.size(), 2u);
  const double all = 2 * 16 * 4 * 138357544.0;  // 2 iterations x 16 workers x the fp32 gradients
  EXPECT_NEAR(a.server_received_bytes[0] + a.server_received_bytes[1], all, 1e-6 * all);
  EXPECT_NEAR(b.server_received_bytes[0] + b.server_received_bytes[1], all / 2, 1e-6 * all);
  EXPECT_DOUBLE_EQ(b.server_sent_bytes[0], a.server_sent_bytes[0]);
}

TEST(CompressedExchange, TheShippedScenarioAllReducesBertLargesGradientsInFp16) {
  const test::ScratchDir dir;
  const std::string json = (dir.path() / "c.json").string();
  const std::string scenario =
      (test::source_dir() / "scenarios" / "bert-large-32-v100-25gbe-compression.yaml").string();
  const test::CliResult r = test::run_dtsim("run " + scenario + " --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json c = nlohmann::json::parse(std::ifstream(json))["gradient_compression"];
  const double fp32_bytes = 4 * zoo_model("bert-large")->parameters();
  EXPECT_EQ(c["scheme"], "fp16");
  EXPECT_EQ(c["exchange"], "all_reduce");
  EXPECT_DOUBLE_EQ(c["gradient_bytes_per_gpu"].get<double>(), fp32_bytes);
  EXPECT_DOUBLE_EQ(c["collective_bytes_per_gpu"].get<double>(), fp32_bytes / 2);
  EXPECT_GT(c["encode_s_per_iteration"].get<double>(), 0);
}

TEST(CompressedExchange, FieldsThatDoNotFitTheSchemeAreErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"data_parallel: {compression: int4}\n", "data_parallel.compression"},
      {"data_parallel: {compression: fp16, compression_density: 0.01}\n", "data_parallel.compression_density"},
      {"data_parallel: {compression: topk, compression_density: 2}\n", "data_parallel.compression_density"},
      {"data_parallel: {compression: topk, powersgd_rank: 2}\n", "data_parallel.powersgd_rank"},
      {"data_parallel: {strategy: parameter_server, compression: powersgd}\n", "data_parallel.compression"},
  };
  for (const auto& [lines, field] : cases)
    EXPECT_EQ(test::error_of([&] { test::vgg16_on_k80_servers(lines); }).field, field) << lines;
}

}  // namespace
}  // namespace dtsim
