// The input pipeline (issue 18): a node's loaders deliver samples at the smaller of its storage
// share's and its cores' rate; with prefetching the step is the slower of loading and training,
// without it their sum; the first step waits for its batch. Rates, steps and errors by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "analytic_model.hpp"
#include "input_pipeline.hpp"
#include "report.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

// VGG-16 on two K80 servers (8 GPUs x 32 images each per node: 256 images per node per step)
// fed from 1 GB/s of `storage` (a file system the two share, or each node's disks), 100 kB per
// image, by `cores` cores at 100 images/s each.
Scenario fed_by(int cores, const std::string& extra = "", const std::string& storage = "shared") {
  return test::vgg16_on_k80_servers("input_pipeline: {sample_bytes: 100000, storage: " + storage +
                                    ", storage_GBps: 1, cpu_cores: " + std::to_string(cores) +
                                    ", samples_per_s_per_core: 100" + extra + "}\n");
}

TEST(InputPipeline, ANodeLoadsAtItsStorageShareOrItsCoresRateWhicheverIsLess) {
  // Storage: 1 GB/s / 2 nodes / 100 kB = 5,000 images/s; decode: 10 x 100 = 1,000 images/s.
  const InputPipelineRates r = node_input_rates(fed_by(10));
  EXPECT_DOUBLE_EQ(r.storage_samples_per_s, 5000);
  EXPECT_DOUBLE_EQ(r.decode_samples_per_s, 1000);
  EXPECT_STREQ(r.limit(), "decode");
  // 100 cores decode 10,000/s: the file system limits. Half the samples from the cache: 10,000/s.
  EXPECT_STREQ(node_input_rates(fed_by(100)).limit(), "storage");
  EXPECT_DOUBLE_EQ(node_input_rates(fed_by(100, ", cache_hit_rate: 0.5")).storage_samples_per_s, 10000);
  // Everything cached: nothing is read, the cores limit.
  const InputPipelineRates cached = node_input_rates(fed_by(100, ", cache_hit_rate: 1"));
  EXPECT_TRUE(std::isinf(cached.storage_samples_per_s));
  EXPECT_STREQ(cached.limit(), "decode");
  // Local disks: each node reads 1 GB/s itself, 10,000 images/s.
  EXPECT_DOUBLE_EQ(node_input_rates(fed_by(10, "", "local")).storage_samples_per_s, 10000);
}

TEST(InputPipeline, PrefetchingTheStepIsTheSlowerOfLoadingAndTrainingWithoutItTheirSum) {
  const Scenario s = fed_by(1);  // 256 images at 100/s: 2.56 s per step
  const InputPipelineStep slow_gpus = input_pipeline_step(s, 3.0);
  EXPECT_DOUBLE_EQ(slow_gpus.node_samples, 256);
  EXPECT_DOUBLE_EQ(slow_gpus.load_s, 2.56);
  EXPECT_DOUBLE_EQ(slow_gpus.step_s, 3.0);
  EXPECT_DOUBLE_EQ(slow_gpus.input_wait_s(), 0);
  EXPECT_DOUBLE_EQ(slow_gpus.first_step_s, 5.56);
  EXPECT_DOUBLE_EQ(input_pipeline_step(s, 1.0).step_s, 2.56);
  EXPECT_DOUBLE_EQ(input_pipeline_step(fed_by(1, ", prefetch_batches: 0"), 1.0).step_s, 3.56);
}

TEST(InputPipeline, TheSimulatedStepWaitsForDataTheEngineStepDoesNotHide) {
  const Scenario fed = fed_by(1), synthetic = test::vgg16_on_k80_servers("");
  const double gpu_step_s = simulate(synthetic).engine.iteration_s;
  ASSERT_LT(gpu_step_s, 2.56);  // VGG-16 on K80 trains 256 images per node in about 1 s
  const SimulationResult r = simulate(fed);
  EXPECT_DOUBLE_EQ(r.engine.iteration_s, 2.56);
  ASSERT_TRUE(r.input.has_value());
  EXPECT_DOUBLE_EQ(r.input->gpu_step_s, gpu_step_s);
  const Report rep = make_report(resolve_scenario(fed), r);
  EXPECT_NEAR(rep.mean_breakdown.input_wait_s, 2.56 - gpu_step_s, 1e-12);
  EXPECT_DOUBLE_EQ(rep.samples_per_s, 512 / 2.56);
  EXPECT_DOUBLE_EQ(estimate_iteration(resolve_scenario(fed)).iteration_s, 2.56);
  // 100 cores load in 0.0512 s (the 5,000/s file system limits): hidden behind the GPU step.
  EXPECT_DOUBLE_EQ(simulate(fed_by(100)).engine.iteration_s, gpu_step_s);
}

TEST(InputPipeline, BadFieldsAndATransformerWithAnInputPipelineAreErrors) {
  const InputErrorInfo hit = test::error_of([] { fed_by(1, ", cache_hit_rate: 1.5"); });
  EXPECT_EQ(hit.field, "input_pipeline.cache_hit_rate");
  EXPECT_EQ(hit.found, "'1.5'");
  const InputErrorInfo storage = test::error_of([] { fed_by(1, "", "tape"); });
  EXPECT_EQ(storage.field, "input_pipeline.storage");
  const InputErrorInfo missing = test::error_of(
      [] { test::vgg16_on_k80_servers("input_pipeline: {sample_bytes: 1000, storage_GBps: 1}\n"); });
  EXPECT_EQ(missing.field, "input_pipeline.cpu_cores");
  const test::ScratchDir dir;
  const std::string topology = (test::source_dir() / "topologies" / "single-h100-sxm.yaml").string();
  const std::filesystem::path gpt =
      dir.write("gpt.yaml",
                "name: gpt\nmodel: {layers: 24, hidden: 1024, heads: 16, seq_len: 1024, vocab: 50304}\n"
                "training: {global_batch: 8, micro_batch: 8, precision: bf16}\n"
                "parallelism: {dp: 1}\n"
                "input_pipeline: {sample_bytes: 4096, storage_GBps: 1, cpu_cores: 1, samples_per_s_per_core: 1000}\n"
                "cluster: {gpu: h100-sxm, nodes: 1, topology: " + topology + "}\n");
  const InputErrorInfo transformer = test::error_of([&] { load_scenario(gpt); });
  EXPECT_EQ(transformer.field, "input_pipeline");
  EXPECT_EQ(transformer.line, 5);
}

}  // namespace
}  // namespace dtsim
