// Layer-graph models trained data-parallel (issue 18): each layer's operators by hand, PyTorch
// DDP's bucket layout, a step scaled to a measured reference, bucket all-reduces exposed or
// hidden behind the backward pass as the timeline says, memory, and the scenario file's errors.
#include <gtest/gtest.h>

#include "device_spec.hpp"
#include "layer_graph_builder.hpp"
#include "layer_graph_kernels.hpp"
#include "layer_model_costs.hpp"
#include "layer_model_section.hpp"
#include "memory_model.hpp"
#include "model_zoo.hpp"
#include "report.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

TEST(LayerModelOperators, AConvolutionCostsTwoFlopsPerMacAndItsTensorsBytes) {
  // ResNet-50's layer1 3x3 convolution: 64 -> 64 channels on 56 x 56, stride 1, padding 1, after a
  // ReLU, under fp16 autocast with fp32 weights.
  LayerGraph g;
  ImageLayers b(g, {64, 56, 56});
  b.relu("relu");
  b.conv("conv", 64, 3, 1, 1);
  const Layer& l = g.layers[1];
  const double macs = 56.0 * 56 * 64 * 64 * 9;  // 115,605,504 per image
  ASSERT_EQ(l.forward_macs, macs);
  LayerGraphRun run;
  run.samples = 32;
  run.elem_bytes = 2;
  run.autocast = true;
  const std::vector<Operator> f = layer_forward_kernels(l, &g.layers[0], run);
  ASSERT_EQ(f.size(), 2u);  // the weight's cast to fp16 (its input is the ReLU's fp16), the convolution
  EXPECT_EQ(f[0].bytes, 64.0 * 64 * 9 * (4 + 2));
  const Operator& conv = f[1];
  EXPECT_EQ(conv.kind, OperatorKind::gemm);
  EXPECT_EQ(conv.flops, 2 * macs * 32);
  // As cuDNN's implicit GEMM: m = 32 x 56 x 56 positions, n = 64 output channels, k = 64 x 9; it
  // reads the input map, writes the output map and reads the weights once.
  EXPECT_EQ(conv.m, 32 * 56.0 * 56);
  EXPECT_EQ(conv.n, 64);
  EXPECT_EQ(conv.k, 576);
  EXPECT_EQ(conv.bytes, (2 * 64.0 * 56 * 56) * 32 * 2 + 64.0 * 64 * 9 * 2);
  EXPECT_EQ(conv.tile_utilization, 0.5);  // 64 of a tile's 128 output columns
  // Backward: the input gradient and the weight gradient, each the forward's products, and the
  // weight gradient cast up to the fp32 weight.
  const std::vector<Operator> bw = layer_backward_kernels(l, &g.layers[0], run);
  ASSERT_EQ(bw.size(), 3u);
  EXPECT_EQ(bw[0].flops, conv.flops);
  EXPECT_EQ(bw[1].flops, conv.flops);
  EXPECT_TRUE(bw[1].weight_gradient);
  EXPECT_EQ(bw[2].bytes, 64.0 * 64 * 9 * (2 + 4));
  // cuDNN's split-K weight gradient: the forward's time and 14.94 us more.
  const ComputeModel h100(*find_device("h100-sxm"), Precision::bf16, default_efficiencies());
  EXPECT_DOUBLE_EQ(h100.time_s(bw[0]), h100.time_s(conv));
  EXPECT_NEAR(h100.time_s(bw[1]), h100.time_s(conv) + 14.94e-6, 1e-12);
}

TEST(DdpBuckets, FillInReverseLayerOrderWithASmallFirstBucket) {
  // Parameters at 4 B of gradient each: a 1 MiB, b 4 MiB, c 20 MiB, d 1 MiB, e 30 MiB.
  LayerGraph g;
  for (auto [name, mib] : {std::pair{"a", 1.0}, {"b", 4.0}, {"c", 20.0}, {"d", 1.0}, {"e", 30.0}})
    g.layers.push_back(Layer{name, LayerKind::linear, 0, 0, mib * kMiB / 4});
  const std::vector<double> backward_s = {1, 2, 3, 4, 10};  // 20 in all
  const std::vector<GradientBucket> buckets = ddp_gradient_buckets(g, backward_s, DataParallelConfig{});
  // e alone (>= 1 MiB); then d + c + b = 25 MiB (>= 25); then a, the last layer.
  ASSERT_EQ(buckets.size(), 3u);
  EXPECT_DOUBLE_EQ(buckets[0].bytes, 30 * kMiB);
  EXPECT_DOUBLE_EQ(buckets[0].compute_share, 10.0 / 20);
  EXPECT_DOUBLE_EQ(buckets[1].bytes, 25 * kMiB);
  EXPECT_DOUBLE_EQ(buckets[1].compute_share, (4.0 + 3 + 2) / 20);
  EXPECT_DOUBLE_EQ(buckets[2].bytes, 1 * kMiB);
  EXPECT_DOUBLE_EQ(buckets[2].compute_share, 1.0 / 20);
}

TEST(HorovodFusion, ClosesABucketEveryCycleOrAtTheFusionThreshold) {
  // The graph above with Horovod's defaults (64 MiB threshold, 5 ms cycle) and backward times in
  // ms: e (30 MiB, 10 ms) fills a cycle alone; d + c (21 MiB, 4 + 3 ms) reach 5 ms at c; b + a
  // (5 MiB, 2 + 1 ms) end the pass.
  LayerGraph g;
  for (auto [name, mib] : {std::pair{"a", 1.0}, {"b", 4.0}, {"c", 20.0}, {"d", 1.0}, {"e", 30.0}})
    g.layers.push_back(Layer{name, LayerKind::linear, 0, 0, mib * kMiB / 4});
  const std::vector<double> backward_s = {1e-3, 2e-3, 3e-3, 4e-3, 10e-3};
  DataParallelConfig horovod;
  horovod.library = AllreduceLibrary::horovod;
  horovod.bucket_cap_mb = horovod.first_bucket_mb = kHorovodFusionThresholdMiB;
  horovod.cycle_time_ms = kHorovodCycleTimeMs;
  const std::vector<GradientBucket> buckets = ddp_gradient_buckets(g, backward_s, horovod);
  ASSERT_EQ(buckets.size(), 3u);
  EXPECT_DOUBLE_EQ(buckets[0].bytes, 30 * kMiB);
  EXPECT_DOUBLE_EQ(buckets[1].bytes, 21 * kMiB);
  EXPECT_DOUBLE_EQ(buckets[1].compute_share, 7.0 / 20);
  EXPECT_DOUBLE_EQ(buckets[2].bytes, 5 * kMiB);
  // Without a cycle, a 16 MiB threshold: e (30 MiB) alone, then d + c (21 MiB), then b + a.
  horovod.bucket_cap_mb = horovod.first_bucket_mb = 16;
  horovod.cycle_time_ms = 0;
  const std::vector<GradientBucket> by_size = ddp_gradient_buckets(g, backward_s, horovod);
  ASSERT_EQ(by_size.size(), 3u);
  EXPECT_DOUBLE_EQ(by_size[1].bytes, 21 * kMiB);
  EXPECT_DOUBLE_EQ(by_size[2].bytes, 5 * kMiB);
}

Scenario two_linear_on_two_nodes(double reference_samples_per_s) {
  Scenario s;
  s.name = "two-linear";
  s.layer_model = LayerModel{};
  s.layer_model->graph = load_layer_file(test::data_dir() / "layer-models" / "two-linear.yaml");
  s.model.name = s.layer_model->graph.name;
  s.training.global_batch = 128;
  s.training.micro_batch = 64;
  s.training.precision = Precision::fp16;
  s.training.framework = Framework::pytorch;
  s.parallelism.dp = 2;
  s.reference = ThroughputReference{1, reference_samples_per_s};
  s.cluster.gpu = "v100-sxm2-32gb";
  s.cluster.nodes = 2;
  s.cluster.topology = test::test_topology("single-gpu-nodes");  // one GPU and one 50 GB/s NIC per node
  check_scenario_consistency(s);
  return s;
}

TEST(LayerModelTraining, OneGpuTakesTheMeasuredReferenceStep) {
  Scenario s = two_linear_on_two_nodes(64);  // 64 images per GPU at 64 images/s: 1 s
  s.parallelism.dp = 1;
  s.training.global_batch = 64;
  s.cluster.nodes = 1;
  const SimulationResult r = simulate(s);
  EXPECT_NEAR(r.engine.iteration_s, 1.0, 1e-9);
  const Report rep = make_report(resolve_scenario(s), r);
  EXPECT_NEAR(rep.samples_per_s, 64, 1e-6);
  EXPECT_EQ(rep.sample_unit, "image");
  ASSERT_TRUE(rep.reference_compute_scale.has_value());
  EXPECT_EQ(rep.model_flops, 6 * 1e12 * 64);  // 6 FLOPs per multiply-accumulate, forward and backward
}

// A GPU at its power limit slows its tensor cores once: two large linears on one H100 (their
// passes nearly all GEMM) take, as the engine runs them, the step single_gpu_step_s prices from
// layer_model_pass, whose passes are already at the clock their share gives; the workload does
// not slow them again.
TEST(LayerModelTraining, AGemmBoundGraphRunsAtThePowerLimitClockOnce) {
  Scenario s = two_linear_on_two_nodes(64);
  s.reference.reset();
  s.parallelism.dp = 1;
  s.training.global_batch = 64;
  s.training.precision = Precision::bf16;
  s.cluster.gpu = "h100-sxm";
  s.cluster.nodes = 1;
  const ComputeModel compute = resolve_scenario(s).compute;
  const LayerModelPass p = layer_model_pass(s, compute);
  KernelClassTimes passes = p.forward_classes;
  passes += p.backward_classes;
  ASSERT_TRUE(compute.under_power_limit(passes).has_value());  // the clock does drop
  const double step_s = single_gpu_step_s(s, compute);
  EXPECT_NEAR(simulate(s).engine.iteration_s, step_s, 1e-9 * step_s);
}

TEST(LayerModelTraining, TheFirstBucketHidesBehindTheBackwardAndTheLastIsExposed) {
  // Two GPUs, one per node, 0.5 s of compute per step. Backward runs layer b, then a: b's 2 GB bucket
  // all-reduces while a's backward computes (slowing it by the SM share of the collective's
  // kernels, 24 of the V100's 80 SMs, for the all-reduce's time T); a's bucket is ready only at the
  // end and is exposed. A 2-GPU ring sends S through each NIC: T = 2e9 B / 50 GB/s = 40 ms plus
  // NCCL's latency (under 0.3 ms).
  const Scenario s = two_linear_on_two_nodes(128);  // 64 images per GPU at 128 images/s: 0.5 s
  const double step_s = 64.0 / 128;
  const double T = 2e9 / 50e9;
  const double share = 24.0 / 80;
  const double iteration_s = simulate(s).engine.iteration_s;
  EXPECT_NEAR(iteration_s - step_s, T + share * T, 0.3e-3 * (2 + share));
}

TEST(LayerModelTraining, WithoutOverlapBothBucketsWaitForTheWholeBackward) {
  // As above with data_parallel.overlap false: both 2 GB all-reduces run after the backward
  // pass, one after the other, with no compute beside them: 2 T.
  Scenario s = two_linear_on_two_nodes(128);
  s.data_parallel.overlap = false;
  const double T = 2e9 / 50e9;
  EXPECT_NEAR(simulate(s).engine.iteration_s - 64.0 / 128, 2 * T, 2 * 0.3e-3);
}

// Two nodes of two GPUs joined by 100 GB/s NVLink (no latency), a reference measured on one
// node: 2 x 64 images at `reference_samples_per_s`. Without overlap both 2 GB buckets all-reduce
// after the backward pass; a 2-GPU ring sends S over NVLink: T = 2e9 B / 100 GB/s = 20 ms each.
Scenario two_linear_with_a_node_reference(double reference_samples_per_s) {
  Scenario s = two_linear_on_two_nodes(reference_samples_per_s);
  s.cluster.topology.node.gpus = 2;
  s.parallelism.dp = 4;
  s.training.global_batch = 4 * 64;
  s.data_parallel.overlap = false;
  s.reference = ThroughputReference{2, reference_samples_per_s};
  check_scenario_consistency(s);
  return s;
}

TEST(LayerModelTraining, AReferenceOnOneNodeLeavesItsAllReducesOutOfTheComputeScale) {
  // 128 images at 200 images/s: 0.64 s, of which the two 20 ms all-reduces are communication, so
  // one GPU alone computes for 0.60 s (NCCL's latency, under 0.3 ms per all-reduce, aside).
  const Scenario s = two_linear_with_a_node_reference(200);
  const ResolvedScenario r = resolve_scenario(s);
  EXPECT_NEAR(single_gpu_step_s(s, r.compute), 0.64 - 2 * 0.02, 2 * 0.3e-3);
  // Simulating the reference's own run, one node of two GPUs, gives back the measured step.
  Scenario reference_run = s;
  reference_run.parallelism.dp = 2;
  reference_run.training.global_batch = 2 * 64;
  reference_run.cluster.nodes = 1;
  EXPECT_NEAR(simulate(reference_run).engine.iteration_s, 0.64, 1e-3 * 0.64);
  EXPECT_EQ(make_report(r, simulate(s)).reference_gpus, 2);
}

TEST(LayerModelTraining, AReferenceItsCommunicationAloneCannotReachIsAnError) {
  // 128 images at 4000 images/s is a 32 ms step: shorter than the two 20 ms all-reduces.
  const Scenario s = two_linear_with_a_node_reference(4000);
  const InputErrorInfo e = test::error_of([&] { single_gpu_step_s(s, resolve_scenario(s).compute); });
  EXPECT_EQ(e.field, "reference.samples_per_s");
  EXPECT_NE(e.expected.find("all-reduce allows"), std::string::npos) << e.expected;
}

TEST(LayerModelTraining, AReferenceOnMoreGpusThanANodeOrWithServersIsAnError) {
  Scenario s = two_linear_with_a_node_reference(200);
  s.reference->gpus = 4;
  const InputErrorInfo too_many = test::error_of([&] { check_scenario_consistency(s); });
  EXPECT_EQ(too_many.field, "reference.gpus");
  EXPECT_NE(too_many.expected.find("at most one node's GPUs (2)"), std::string::npos) << too_many.expected;
  s.reference->gpus = 2;
  s.data_parallel.strategy = DataParallelStrategy::parameter_server;
  s.data_parallel.servers = 2;
  const InputErrorInfo servers = test::error_of([&] { check_scenario_consistency(s); });
  EXPECT_EQ(servers.field, "reference.gpus");
  EXPECT_NE(servers.expected.find("1 with parameter servers"), std::string::npos) << servers.expected;
}

TEST(LayerModelFile, ReadsEachLayerAndKeepsNoActivationForAnInPlaceOne) {
  // docs/data-parallel.md's example model, its ReLU marked in place: saved activations are fc1's 1024 outputs and
  // fc2's 10 per sample (bf16: 2 B each), and fc1's dropout its 1-byte mask; parameters 8e5 + 1e4.
  const test::ScratchDir dir;
  const auto file = dir.write("my-mlp.yaml", R"(name: my-mlp
sample_unit: image
layers:
  - {name: fc1, kind: linear, forward_macs: 8.0e5, parameters: 8.0e5, input_elements: 784, output_elements: 1024,
     dropout: 0.5}
  - {name: relu1, kind: activation, forward_other_flops: 1024, input_elements: 1024, output_elements: 1024,
     in_place: true}
  - {name: fc2, kind: linear, forward_macs: 1.0e4, parameters: 1.0e4, input_elements: 1024, output_elements: 10}
)");
  const LayerGraph g = load_layer_file(file);
  ASSERT_EQ(g.layers.size(), 3u);
  EXPECT_EQ(g.layers[1].kind, LayerKind::activation);
  EXPECT_TRUE(g.layers[1].in_place);
  EXPECT_DOUBLE_EQ(g.layers[0].dropout, 0.5);
  LayerGraphRun run;  // one sample, bf16
  double kept = 0;
  for (const Layer& l : g.layers) kept += layer_kept_bytes(l, run);
  EXPECT_DOUBLE_EQ(kept, 2 * (1024 + 10) + 1024);
  EXPECT_DOUBLE_EQ(g.parameters(), 8e5 + 1e4);
  EXPECT_DOUBLE_EQ(g.forward_macs(), 8e5 + 1e4);
}

TEST(LayerModelScenario, ReadsTheZooModelTheDdpSectionAndTheReference) {
  const Scenario s = load_scenario(test::data_dir() / "scenario-resnet50-ddp.yaml");
  ASSERT_TRUE(s.layer_model.has_value());
  EXPECT_EQ(s.layer_model->zoo, "resnet-50");
  EXPECT_EQ(s.layer_model->graph.parameters(), 25557032);  // torchvision's num_params
  EXPECT_EQ(s.layer_model->optimizer, LayerModelOptimizer::sgd_momentum);
  EXPECT_EQ(s.model.name, "resnet-50");
  EXPECT_EQ(s.data_parallel.bucket_cap_mb, 25);
  ASSERT_TRUE(s.reference.has_value());
  EXPECT_EQ(s.reference->samples_per_s, 800);
  // fp32 master weights with an fp16 copy, DDP's fp32 gradient buckets (the gradients themselves
  // not yet allocated as the backward pass starts, its peak), one momentum buffer.
  const MemoryBreakdown m = peak_memory_per_gpu(s);
  EXPECT_DOUBLE_EQ(m.weights_bytes, 25557032.0 * (4 + 2));
  EXPECT_DOUBLE_EQ(m.gradients_bytes, 25557032.0 * 4);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 25557032.0 * 4);
}

struct BadLayerScenario {
  const char* file;
  const char* error_file;  // the file the error names, when not the scenario
  int line;
  const char* field;
  const char* expected_part;
};

class BadLayerScenarios : public testing::TestWithParam<BadLayerScenario> {};

TEST_P(BadLayerScenarios, NameTheFileLineAndField) {
  const BadLayerScenario b = GetParam();
  const std::filesystem::path file = test::data_dir() / "bad" / b.file;
  const InputErrorInfo info = test::error_of([&] { load_scenario(file); });
  EXPECT_EQ(std::filesystem::path(info.file).filename().string(), b.error_file ? b.error_file : b.file);
  EXPECT_EQ(info.line, b.line);
  EXPECT_EQ(info.field, b.field);
  EXPECT_NE(info.expected.find(b.expected_part), std::string::npos) << info.expected;
}

INSTANTIATE_TEST_SUITE_P(
    Files, BadLayerScenarios,
    testing::Values(BadLayerScenario{"unknown-zoo-model.yaml", nullptr, 4, "model.zoo", "resnet-50"},
                    BadLayerScenario{"data-parallel-on-transformer.yaml", nullptr, 7, "data_parallel",
                                     "layer-graph model"},
                    BadLayerScenario{"layer-model-with-tp.yaml", nullptr, 6, "parallelism.tp", "data-parallel only"},
                    BadLayerScenario{"layer-file-bad-kind.yaml", "bad-kind.json", 6, "layers[1].kind",
                                     "convolution"},
                    BadLayerScenario{"layer-file-bad-dropout.yaml", "bad-dropout.yaml", 6, "layers[0].dropout",
                                     "a probability in [0, 0.99]"},
                    BadLayerScenario{"cycle-time-without-horovod.yaml", nullptr, 10, "data_parallel.cycle_time_ms",
                                     "only with library horovod"},
                    BadLayerScenario{"mpi-with-topk.yaml", nullptr, 10, "data_parallel.compression",
                                     "with library mpi"}));

}  // namespace
}  // namespace dtsim
