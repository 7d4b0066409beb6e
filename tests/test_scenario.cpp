// Scenario loading: the shipped scenarios, model presets, Hugging Face configs, and one test per
// kind of bad input, each checking the file, line, field, expected and found it reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <utility>

#include "device_spec.hpp"
#include "input_error.hpp"
#include "scenario_loader.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = DTSIM_SOURCE_DIR;
const fs::path kScenarioDir = kSourceDir / "scenarios";
const fs::path kDataDir = kSourceDir / "tests" / "data";
const fs::path kBadDir = kDataDir / "bad";

::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

using test::error_of;

InputErrorInfo scenario_error(const fs::path& file) {
  return error_of([&] { load_scenario(file); });
}

// ---------------------------------------------------------------------------------------------
// Good input.

TEST(Scenario, EveryShippedScenarioLoads) {
  int loaded = 0;
  for (const auto& entry : fs::directory_iterator(kScenarioDir)) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    Scenario s;
    try {
      s = load_scenario(entry.path());
    } catch (const InputError& e) {
      FAIL() << e.what();
    }
    EXPECT_EQ(s.name, entry.path().stem().string());
    EXPECT_NO_THROW(check_scenario_consistency(s));
    ++loaded;
  }
  EXPECT_EQ(loaded, 12);
}

TEST(Scenario, Gpt3_175bOn1024A100) {
  const Scenario s = load_scenario(kScenarioDir / "gpt3-175b-1024-a100.yaml");
  EXPECT_EQ(s.name, "gpt3-175b-1024-a100");
  EXPECT_EQ(s.source_file, kScenarioDir / "gpt3-175b-1024-a100.yaml");
  EXPECT_EQ(s.model.name, "gpt3-175b");
  EXPECT_EQ(s.model.layers, 96);
  EXPECT_EQ(s.model.hidden, 12288);
  EXPECT_EQ(s.parallelism.tp, 8);
  EXPECT_EQ(s.parallelism.pp, 16);
  EXPECT_EQ(s.parallelism.dp, 8);
  EXPECT_EQ(s.parallelism.schedule, PipelineScheduleKind::one_f_one_b);
  EXPECT_EQ(s.gpu_count(), 1024);
  EXPECT_EQ(s.training.global_batch, 1536);
  EXPECT_EQ(s.training.micro_batch, 1);
  EXPECT_EQ(s.micro_batches_per_replica(), 192);
  EXPECT_EQ(s.training.precision, Precision::bf16);
  EXPECT_EQ(s.training.recompute, Recompute::full);
  EXPECT_EQ(s.cluster.gpu, "a100-80gb-sxm");
  EXPECT_EQ(s.cluster.nodes, 128);
  EXPECT_EQ(s.cluster.topology_file, kSourceDir / "topologies" / "dgx-a100-hdr-fattree.yaml");
  EXPECT_EQ(s.cluster.topology.name, "dgx-a100-hdr-fattree");
  EXPECT_EQ(s.cluster.topology.node.gpus, 8);
  EXPECT_FALSE(s.calibration_file.has_value());
  EXPECT_TRUE(s.events.empty());
}

TEST(Scenario, Llama2_70bOn256H100) {
  const Scenario s = load_scenario(kScenarioDir / "llama2-70b-256-h100.yaml");
  EXPECT_EQ(s.model.name, "llama2-70b");
  EXPECT_EQ(s.model.kv_heads, 8);
  EXPECT_EQ(s.model.seq_len, 4096);
  EXPECT_EQ(s.model.mlp, MlpKind::swiglu);
  EXPECT_EQ(s.gpu_count(), 256);
  EXPECT_EQ(s.micro_batches_per_replica(), 128);
  EXPECT_EQ(s.cluster.gpu, "h100-sxm");
  EXPECT_EQ(s.cluster.topology.name, "dgx-h100-ndr-fattree");
}

TEST(Scenario, StragglerEventIsRead) {
  const Scenario s = load_scenario(kScenarioDir / "gpt3-13b-64-a100-straggler.yaml");
  EXPECT_EQ(s.gpu_count(), 64);
  EXPECT_EQ(s.micro_batches_per_replica(), 16);
  ASSERT_EQ(s.events.size(), 1u);
  const auto& straggler = std::get<StragglerEvent>(s.events[0]);
  EXPECT_EQ(straggler.gpu, 5);
  EXPECT_DOUBLE_EQ(straggler.slowdown, 1.3);
}

TEST(Scenario, ModelGivenByShapeTakesDefaults) {
  const Scenario s = load_scenario(kDataDir / "scenario-custom-model.yaml");
  EXPECT_EQ(s.model.name, "custom-gpt-8-a100");
  EXPECT_EQ(s.model.layers, 12);
  EXPECT_EQ(s.model.kv_heads, 12);
  EXPECT_EQ(s.model.ffn_hidden, 4 * 768);
  EXPECT_EQ(s.model.mlp, MlpKind::gelu);
  EXPECT_EQ(s.parallelism.tp, 1);
  EXPECT_EQ(s.parallelism.pp, 1);
  EXPECT_EQ(s.parallelism.dp, 8);
  EXPECT_EQ(s.training.micro_batch, 1);
  EXPECT_EQ(s.training.precision, Precision::fp16);
  EXPECT_EQ(s.training.recompute, Recompute::selective);
}

TEST(Scenario, HfConfigWithOverride) {
  const Scenario s = load_scenario(kDataDir / "scenario-hf-llama-tiny.yaml");
  EXPECT_EQ(s.model.name, "dtsim/llama-tiny");
  EXPECT_EQ(s.model.hidden, 512);
  EXPECT_EQ(s.model.kv_heads, 2);
  EXPECT_EQ(s.model.seq_len, 1024);  // overridden; the config says 2048
  EXPECT_EQ(s.model.mlp, MlpKind::swiglu);
  EXPECT_EQ(s.micro_batches_per_replica(), 8);
}

TEST(Scenario, PrecisionAndRecomputeNames) {
  EXPECT_STREQ(to_string(Precision::bf16), "bf16");
  EXPECT_STREQ(to_string(Precision::fp8), "fp8");
  EXPECT_STREQ(to_string(Recompute::selective), "selective");
  EXPECT_STREQ(to_string(Recompute::full), "full");
}

// ---------------------------------------------------------------------------------------------
// Model presets and Hugging Face configs.

TEST(Model, PresetsAreListed) {
  const auto names = model_preset_names();
  EXPECT_EQ(names.size(), 12u);
  for (const auto& name : names) {
    ASSERT_TRUE(find_model_preset(name).has_value()) << name;
    EXPECT_EQ(find_model_preset(name)->name, name);
  }
  EXPECT_FALSE(find_model_preset("gpt4").has_value());
}

TEST(Model, Gpt3_175bParameterCount) {
  const int64_t params = parameter_count(*find_model_preset("gpt3-175b"));
  EXPECT_EQ(params, 174'615'846'912);
  EXPECT_NEAR(static_cast<double>(params), 175e9, 0.01 * 175e9);
}

TEST(Model, Llama2_70bParameterCount) {
  const int64_t params = parameter_count(*find_model_preset("llama2-70b"));
  EXPECT_EQ(params, 68'714'504'192);
  EXPECT_NEAR(static_cast<double>(params), 69e9, 0.02 * 69e9);
}

TEST(Model, HfLlamaConfig) {
  const TransformerConfig m = load_hf_config(kDataDir / "hf-llama-tiny.json");
  EXPECT_EQ(m.name, "dtsim/llama-tiny");
  EXPECT_EQ(m.layers, 4);
  EXPECT_EQ(m.hidden, 512);
  EXPECT_EQ(m.heads, 8);
  EXPECT_EQ(m.kv_heads, 2);
  EXPECT_EQ(m.ffn_hidden, 1376);
  EXPECT_EQ(m.seq_len, 2048);
  EXPECT_EQ(m.vocab, 32000);
  EXPECT_EQ(m.mlp, MlpKind::swiglu);
}

TEST(Model, HfGpt2Config) {
  const TransformerConfig m = load_hf_config(kDataDir / "hf-gpt2.json");
  EXPECT_EQ(m.name, "hf-gpt2");  // no _name_or_path: the file stem
  EXPECT_EQ(m.layers, 12);
  EXPECT_EQ(m.hidden, 768);
  EXPECT_EQ(m.heads, 12);
  EXPECT_EQ(m.kv_heads, 12);
  EXPECT_EQ(m.ffn_hidden, 3072);  // n_inner is null: 4 x n_embd
  EXPECT_EQ(m.seq_len, 1024);
  EXPECT_EQ(m.vocab, 50257);
  EXPECT_EQ(m.mlp, MlpKind::gelu);
  EXPECT_EQ(parameter_count(m), 124'439'808);  // GPT-2 small, the "124M" model
}

TEST(Model, HfConfigMissingKey) {
  const fs::path file = kBadDir / "hf-missing-heads.json";
  const auto info = error_of([&] { load_hf_config(file); });
  EXPECT_EQ(info.file, file.string());
  EXPECT_EQ(info.line, 0);
  EXPECT_EQ(info.field, "num_attention_heads");
  EXPECT_TRUE(Contains(info.expected, "required"));
  EXPECT_EQ(info.found, "nothing");
}

TEST(Model, HfConfigSyntaxError) {
  const fs::path file = kBadDir / "hf-syntax-error.json";
  const auto info = error_of([&] { load_hf_config(file); });
  EXPECT_EQ(info.file, file.string());
  EXPECT_EQ(info.line, 4);  // the key after the missing comma
  EXPECT_EQ(info.field, "");
  EXPECT_EQ(info.expected, "valid JSON");
  EXPECT_TRUE(Contains(info.found, "parse error"));
}

TEST(Model, HfConfigMissingFile) {
  const fs::path file = kDataDir / "no-such-config.json";
  const auto info = error_of([&] { load_hf_config(file); });
  EXPECT_EQ(info.file, file.string());
  EXPECT_EQ(info.line, 0);
  EXPECT_EQ(info.expected, "an existing file");
  EXPECT_EQ(info.found, "no such file");
}

// ---------------------------------------------------------------------------------------------
// Bad scenario files: one per mistake, each reported at its exact line.

TEST(BadScenario, MissingScenarioFile) {
  const fs::path file = kScenarioDir / "no-such-scenario.yaml";
  const auto info = scenario_error(file);
  EXPECT_EQ(info.file, file.string());
  EXPECT_EQ(info.line, 0);
  EXPECT_EQ(info.field, "");
  EXPECT_EQ(info.expected, "an existing file");
  EXPECT_EQ(info.found, "no such file");
}

TEST(BadScenario, UnknownTopLevelKey) {
  const fs::path file = kBadDir / "unknown-top-key.yaml";
  const auto info = scenario_error(file);
  EXPECT_EQ(info.file, file.string());
  EXPECT_EQ(info.line, 10);
  EXPECT_EQ(info.field, "paralelism");
  EXPECT_TRUE(Contains(info.expected, "parallelism"));
  EXPECT_EQ(info.found, "unknown key 'paralelism'");
}

TEST(BadScenario, UnknownTrainingKey) {
  const auto info = scenario_error(kBadDir / "unknown-training-key.yaml");
  EXPECT_EQ(info.line, 8);
  EXPECT_EQ(info.field, "training.micro_batchsize");
  EXPECT_TRUE(Contains(info.expected, "[attention, attention_varlen, cross_entropy, cuda_graphs, fp8_recipe, "
                                      "framework, global_batch, loss_metrics, memory_format, micro_batch, "
                                      "mixed_precision, optimizer, precision, recompute, recompute_layers, "
                                      "recompute_reentrant]"));
  EXPECT_EQ(info.found, "unknown key 'micro_batchsize'");
}

TEST(BadScenario, WordWhereIntegerExpected) {
  const auto info = scenario_error(kBadDir / "wrong-type.yaml");
  EXPECT_EQ(info.line, 11);
  EXPECT_EQ(info.field, "parallelism.tp");
  EXPECT_EQ(info.expected, "a positive integer");
  EXPECT_EQ(info.found, "'eight'");
}

TEST(BadScenario, ListWhereMappingExpected) {
  const auto info = scenario_error(kBadDir / "list-for-map.yaml");
  EXPECT_EQ(info.line, 6);
  EXPECT_EQ(info.field, "training");
  EXPECT_EQ(info.expected, "a mapping");
  EXPECT_EQ(info.found, "a list");
}

TEST(BadScenario, MissingRequiredField) {
  const auto info = scenario_error(kBadDir / "missing-field.yaml");
  EXPECT_EQ(info.line, 15);  // the cluster mapping starts at its first key
  EXPECT_EQ(info.field, "cluster.nodes");
  EXPECT_TRUE(Contains(info.expected, "required"));
  EXPECT_EQ(info.found, "nothing");
}

TEST(BadScenario, GpuCountMismatch) {
  const auto info = scenario_error(kBadDir / "gpu-count-mismatch.yaml");
  EXPECT_EQ(info.line, 10);
  EXPECT_EQ(info.field, "parallelism");
  EXPECT_EQ(info.expected, "tp*cp*pp*dp = 1024 (cluster.nodes 128 x 8 GPUs per node)");
  EXPECT_EQ(info.found, "tp*cp*pp*dp = 8*1*16*4 = 512");
}

TEST(BadScenario, GlobalBatchNotDivisible) {
  const auto info = scenario_error(kBadDir / "batch-not-divisible.yaml");
  EXPECT_EQ(info.line, 7);
  EXPECT_EQ(info.field, "training.global_batch");
  EXPECT_TRUE(Contains(info.expected, "= 8 x 1 = 8"));
  EXPECT_EQ(info.found, "1540");
}

TEST(BadScenario, LayersFromPresetNotDivisibleByPp) {
  const auto info = scenario_error(kBadDir / "layers-not-divisible.yaml");
  EXPECT_EQ(info.line, 5);  // layers is not written out: the preset line it came from
  EXPECT_EQ(info.field, "model.layers");
  EXPECT_EQ(info.expected, "a multiple of parallelism.pp (64)");
  EXPECT_EQ(info.found, "96");
}

TEST(BadScenario, MissingTopologyFile) {
  const auto info = scenario_error(kBadDir / "missing-topology.yaml");
  EXPECT_EQ(info.line, 17);
  EXPECT_EQ(info.field, "cluster.topology");
  EXPECT_EQ(info.expected, "an existing file");
  EXPECT_EQ(info.found, (kSourceDir / "topologies" / "no-such-fabric.yaml").string());
}

TEST(BadScenario, MissingCalibrationFile) {
  const auto info = scenario_error(kBadDir / "missing-calibration.yaml");
  EXPECT_EQ(info.line, 18);
  EXPECT_EQ(info.field, "calibration");
  EXPECT_EQ(info.expected, "an existing file");
  EXPECT_EQ(info.found, (kBadDir / "no-such-calibration.json").string());
}

TEST(BadScenario, UnknownPreset) {
  const auto info = scenario_error(kBadDir / "unknown-preset.yaml");
  EXPECT_EQ(info.line, 5);
  EXPECT_EQ(info.field, "model.preset");
  EXPECT_TRUE(Contains(info.expected, "one of [gpt3-175b, "));
  EXPECT_TRUE(Contains(info.expected, "mixtral-8x22b]"));
  EXPECT_EQ(info.found, "'gpt4'");
}

TEST(BadScenario, UnknownGpu) {
  const auto info = scenario_error(kBadDir / "unknown-gpu.yaml");
  EXPECT_EQ(info.line, 15);
  EXPECT_EQ(info.field, "cluster.gpu");
  EXPECT_TRUE(Contains(info.expected, "a100-80gb-sxm"));
  EXPECT_TRUE(Contains(info.expected, "h100-sxm"));
  EXPECT_EQ(info.found, "'v100'");
}

TEST(BadScenario, Fp8OnA100) {
  const auto info = scenario_error(kBadDir / "fp8-on-a100.yaml");
  EXPECT_EQ(info.line, 9);
  EXPECT_EQ(info.field, "training.precision");
  EXPECT_EQ(info.expected, "a precision cluster.gpu supports (a100-80gb-sxm has no fp8)");
  EXPECT_EQ(info.found, "fp8");
}

TEST(BadScenario, StragglerGpuOutOfRange) {
  const auto info = scenario_error(kBadDir / "straggler-out-of-range.yaml");
  EXPECT_EQ(info.line, 19);
  EXPECT_EQ(info.field, "events[0].gpu");
  EXPECT_EQ(info.expected, "a GPU rank in [0, 1024)");
  EXPECT_EQ(info.found, "1024");
}

TEST(BadScenario, YamlSyntaxError) {
  const fs::path file = kBadDir / "yaml-syntax-error.yaml";
  const auto info = scenario_error(file);
  EXPECT_EQ(info.file, file.string());
  EXPECT_EQ(info.line, 12);
  EXPECT_EQ(info.expected, "valid YAML");
  EXPECT_FALSE(info.found.empty());
}

// ---------------------------------------------------------------------------------------------
// Scenarios built in code.

TEST(Consistency, ReportsSourceFileAndLineZero) {
  Scenario s = load_scenario(kScenarioDir / "gpt3-175b-1024-a100.yaml");
  s.parallelism.dp = 4;
  const auto info = error_of([&] { check_scenario_consistency(s); });
  EXPECT_EQ(info.file, s.source_file.string());
  EXPECT_EQ(info.line, 0);
  EXPECT_EQ(info.field, "parallelism");
  EXPECT_EQ(info.found, "tp*cp*pp*dp = 8*1*16*4 = 512");
}

Scenario one_node_gpt3_1_3b() {
  Scenario s;
  s.model = *find_model_preset("gpt3-1.3b");
  s.training.global_batch = 256;
  s.training.micro_batch = 4;
  s.parallelism.dp = 8;
  s.cluster.gpu = "a100-80gb-sxm";
  s.cluster.nodes = 1;  // the default TopologySpec has 8 GPUs per node
  return s;
}

TEST(Consistency, CodeBuiltScenarioPasses) { EXPECT_NO_THROW(check_scenario_consistency(one_node_gpt3_1_3b())); }

TEST(Consistency, CodeBuiltScenarioWithoutFileSaysScenario) {
  Scenario s = one_node_gpt3_1_3b();
  s.training.precision = Precision::fp8;
  const auto info = error_of([&] { check_scenario_consistency(s); });
  EXPECT_EQ(info.file, "<scenario>");
  EXPECT_EQ(info.line, 0);
  EXPECT_EQ(info.field, "training.precision");
  EXPECT_EQ(info.found, "fp8");
}

TEST(Consistency, ZeroMicroBatchIsAnErrorNotACrash) {
  Scenario s = one_node_gpt3_1_3b();
  s.training.micro_batch = 0;
  const auto info = error_of([&] { check_scenario_consistency(s); });
  EXPECT_EQ(info.field, "training.micro_batch");
  EXPECT_EQ(info.expected, "a positive integer");
  EXPECT_EQ(info.found, "0");
}

TEST(Consistency, KvHeadsMustSplitOrReplicateAcrossTp) {
  Scenario s = one_node_gpt3_1_3b();
  s.model.heads = 24;
  s.model.kv_heads = 6;
  s.model.hidden = 24 * 128;
  s.parallelism.dp = 1;
  s.parallelism.tp = 8;
  s.training.micro_batch = 1;
  const auto info = error_of([&] { check_scenario_consistency(s); });
  EXPECT_EQ(info.field, "model.kv_heads");
  EXPECT_EQ(info.expected, "a multiple or a divisor of parallelism.tp (8)");
  EXPECT_EQ(info.found, "6");
}

TEST(Consistency, StragglerSlowdownBelowOne) {
  Scenario s = one_node_gpt3_1_3b();
  s.events.push_back(StragglerEvent{3, 0.5});
  const auto info = error_of([&] { check_scenario_consistency(s); });
  EXPECT_EQ(info.field, "events[0].slowdown");
  EXPECT_EQ(info.found, "0.5");
}

}  // namespace
}  // namespace dtsim

namespace dtsim {
namespace {

// Overrides set fields before the checks run: 2 nodes and dp 16 make 16 GPUs; a path through a
// scalar is refused, naming it.
TEST(ScenarioOverrides, SetFieldsBeforeTheChecks) {
  const fs::path file = kScenarioDir / "gpt3-1.3b-8-h100.yaml";
  const Scenario s = load_scenario(file, {{"cluster.nodes", "2"}, {"parallelism.dp", "16"}});
  EXPECT_EQ(s.cluster.nodes, 2);
  EXPECT_EQ(s.gpu_count(), 16);
  EXPECT_EQ(error_of([&] { load_scenario(file, {{"parallelism.tp", "3"}}); }).field, "parallelism");
  EXPECT_EQ(error_of([&] { load_scenario(file, {{"name.x", "3"}}); }).field, "name.x");
}

// A null override removes the key: the VGG-16 scenario's 2 servers become one per node (0), its
// measured reference goes (the device model computes), and a key the file lacks stays absent.
TEST(ScenarioOverrides, NullRemovesTheKey) {
  const fs::path file = kScenarioDir / "vgg16-16-k80-parameter-server.yaml";
  ASSERT_EQ(load_scenario(file).data_parallel.servers, 2);
  const Scenario s = load_scenario(
      file, {{"data_parallel.servers", "~"}, {"reference", "~"}, {"data_parallel.backup_workers", "~"}});
  EXPECT_EQ(s.data_parallel.servers, 0);
  EXPECT_FALSE(s.reference.has_value());
  EXPECT_EQ(s.data_parallel.backup_workers, 0);
}

// Issue 46: a GPU and a topology built for another were simulated together without a word (an
// A100 on the H100 RoCE file reported "RoCE 11.9% faster"). The NVLink generation names the GPU
// generation of a node: Pascal 1, Volta 2, Ampere 3, Hopper 4, Blackwell 5; PCIe parts none.
TEST(Scenario, GpuAndTopologyOfDifferentGenerationsAreAnErrorUnlessMeant) {
  const std::pair<const char*, int> generations[] = {{"p100-sxm2-16gb", 1}, {"v100-sxm2-32gb", 2}, {"a100-80gb-sxm", 3},
                                                     {"h100-sxm", 4},       {"h200-sxm", 4},       {"b200", 5},
                                                     {"p100-pcie-16gb", 0}, {"k80", 0}};
  for (const auto& [id, generation] : generations) EXPECT_EQ(find_device(id)->nvlink_generation(), generation) << id;

  test::ScratchDir dir;
  const std::string roce = (test::source_dir() / "topologies" / "dgx-h100-roce-spine-leaf.yaml").string();
  const std::string text = "name: a100-on-h100-roce\nmodel: {preset: gpt3-1.3b}\n"
                           "training: {global_batch: 64, micro_batch: 4}\nparallelism: {dp: 16}\n"
                           "cluster: {gpu: a100-80gb-sxm, nodes: 2, topology: " + roce;
  const InputErrorInfo e = test::error_of([&] { load_scenario(dir.write("a.yaml", text + "}\n")); });
  EXPECT_EQ(e.line, 5);
  EXPECT_EQ(e.field, "cluster.gpu");
  EXPECT_EQ(e.expected, "a GPU of NVLink 4 as the nodes of dgx-h100-roce-spine-leaf.yaml (HGX H100 (Ethernet)) hold, "
                        "or cluster.gpu_differs_from_topology: true");
  EXPECT_EQ(e.found, "a100-80gb-sxm (NVLink 3)");
  EXPECT_TRUE(load_scenario(dir.write("b.yaml", text + ", gpu_differs_from_topology: true}\n")).cluster.gpu_differs_from_topology);
  // The A100 twins of the H100 RoCE and 2:1 files (topologies/) take the same scenario.
  for (const char* twin : {"dgx-a100-roce-spine-leaf.yaml", "dgx-a100-hdr-fattree-2to1.yaml"}) {
    std::string a100 = text;
    a100.replace(a100.find(roce), roce.size(), (test::source_dir() / "topologies" / twin).string());
    EXPECT_EQ(load_scenario(dir.write("c.yaml", a100 + "}\n")).cluster.topology.node.nvlink_generation, 3) << twin;
  }
}

// Options that only mean something beside another are errors without it, at the option's line.
TEST(Scenario, OptionsWithoutWhatTheyNeedAreErrorsAtTheirLine) {
  test::ScratchDir dir;
  const std::string topology = (test::source_dir() / "topologies" / "dgx-h100-ndr-fattree.yaml").string();
  // A GPT-3 1.3B scenario on tp 2 x dp 4 with `training` and `parallelism` added to its sections.
  const auto loaded = [&](const std::string& training, const std::string& parallelism) {
    const std::string text = "name: options\nmodel: {preset: gpt3-1.3b}\ntraining: {global_batch: 64, micro_batch: 4" +
                             training + "}\nparallelism: {tp: 2, dp: 4" + parallelism +
                             "}\ncluster: {gpu: h100-sxm, nodes: 1, topology: " + topology + "}\n";
    return load_scenario(dir.write("s.yaml", text));
  };
  const auto error = [&](const std::string& training, const std::string& parallelism) {
    return test::error_of([&] { loaded(training, parallelism); });
  };
  // The error's line (3: training, 4: parallelism), field and what it found.
  const auto expect_error = [](const InputErrorInfo& e, int line, const std::string& field, const std::string& found) {
    EXPECT_EQ(e.line, line) << field;
    EXPECT_EQ(e.field, field);
    EXPECT_EQ(e.found, found) << field;
  };
  const InputErrorInfo layers = error(", recompute: selective, recompute_layers: 4", "");
  expect_error(layers, 3, "training.recompute_layers", "4 with recompute selective");
  EXPECT_EQ(layers.expected, "0 unless training.recompute is full");
  expect_error(error("", ", overlap_param_gather: true"), 4, "parallelism.overlap_param_gather",
               "true with zero_stage 0 and overlap_grad_reduce false");
  EXPECT_EQ(error("", ", zero_stage: 1, overlap_param_gather: true").found,
            "true with zero_stage 1 and overlap_grad_reduce false");  // Megatron-LM asserts it
  EXPECT_TRUE(loaded("", ", zero_stage: 1, overlap_grad_reduce: true, overlap_param_gather: true")
                  .parallelism.overlap_param_gather);
  expect_error(error(", framework: pytorch", ", zero_stage: 2, overlap_grad_reduce: true, overlap_param_gather: true"),
               4, "parallelism.overlap_param_gather", "true with framework pytorch");  // FSDP gathers each forward
  expect_error(error("", ", zero_stage: 3, fp8_weight_all_gather: true"), 4, "parallelism.fp8_weight_all_gather",
               "true with precision bf16 and zero_stage 3");
  expect_error(error(", precision: fp8", ", fp8_tp_all_gather: true"), 4, "parallelism.fp8_tp_all_gather",
               "true with precision fp8 and sequence_parallel false");
  // Megatron prices its own cross-entropy (the default framework of a transformer scenario).
  expect_error(error(", cross_entropy: fused", ""), 3, "training.cross_entropy", "fused");
  EXPECT_EQ(error(", loss_metrics: 2", "").field, "training.loss_metrics");
  EXPECT_EQ(error(", framework: pytorch, loss_metrics: 9", "").expected, "0 to 8");
  // FSDP1 is PyTorch's, and shards from ZeRO-2 on; a version outside 1 and 2 is no FSDP.
  expect_error(error("", ", zero_stage: 3, fsdp_version: 1"), 4, "parallelism.fsdp_version",
               "1 with zero_stage 3 and framework megatron");
  EXPECT_EQ(error(", framework: pytorch", ", zero_stage: 1, fsdp_version: 1").found,
            "1 with zero_stage 1 and framework pytorch");
  EXPECT_EQ(error(", framework: pytorch", ", zero_stage: 3, fsdp_version: 3").field, "parallelism.fsdp_version");
  EXPECT_EQ(loaded(", framework: pytorch", ", zero_stage: 2, fsdp_version: 1").parallelism.fsdp_version, 1);
  const Scenario fused = loaded(", framework: pytorch, cross_entropy: fused, loss_metrics: 2", "");
  EXPECT_EQ(fused.training.cross_entropy, CrossEntropyKernel::fused);
  EXPECT_EQ(fused.training.loss_metrics, 2);
  // flash-attn's varlen API: FlashAttention v1 or v2, called from PyTorch code.
  expect_error(error(", framework: pytorch, attention_varlen: true", ""), 3, "training.attention_varlen",
               "true with attention auto and framework pytorch");
  EXPECT_EQ(error(", attention: flash2, attention_varlen: true", "").found,
            "true with attention flash2 and framework megatron");
  EXPECT_TRUE(loaded(", framework: pytorch, attention: flash2, attention_varlen: true", "").training.attention_varlen);
  // Reentrant checkpointing is torch.utils.checkpoint's; Megatron's recompute is its own.
  expect_error(error(", recompute: full, recompute_reentrant: true", ""), 3, "training.recompute_reentrant",
               "true with framework megatron");
  EXPECT_TRUE(
      loaded(", framework: pytorch, recompute: full, recompute_reentrant: true", "").training.recompute_reentrant);
}

}  // namespace
}  // namespace dtsim
