// Scenarios written back to YAML (the GUI's Save), events as YAML, the cluster.oversubscription
// field, and the headline figures with time and cost to train.
#include <gtest/gtest.h>

#include <fstream>

#include "device_spec.hpp"
#include "headline_figures.hpp"
#include "scenario_loader.hpp"
#include "scenario_writer.hpp"
#include "test_support.hpp"
#include "training_cost.hpp"

namespace dtsim {
namespace {

namespace fs = std::filesystem;
const fs::path kEvents = test::data_dir() / "scenario-events.yaml";

// A fresh folder under the system's temporary folder, removed at the end of the test.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("dtsim-writer-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path / "deeper"); }
  ~TempDir() { fs::remove_all(path); }
};

TEST(ScenarioWriter, EveryEventKindReadsBackTheSame) {
  const Scenario s = load_scenario(kEvents);
  ASSERT_EQ(s.events.size(), 6u);
  EXPECT_EQ(event_to_yaml(s.events[0]), "{type: straggler, gpu: 5, slowdown: 1.5, start_s: 0.5, end_s: 2}");
  EXPECT_EQ(event_to_yaml(s.events[1]), "{type: slow_node, node: 1, slowdown: 1.2}");
  EXPECT_EQ(event_to_yaml(s.events[4]), "{type: failure, resource: node, node: 1, at_s: 30}");
  EXPECT_EQ(event_to_yaml(s.events[5]), "{type: background_traffic, from_node: 0, to_node: 1, rate_GBps: 20, start_s: 1}");
  const Scenario back = load_scenario(kEvents, {{"events", events_to_yaml(s.events)}});
  ASSERT_EQ(back.events.size(), s.events.size());
  for (size_t i = 0; i < s.events.size(); ++i) EXPECT_EQ(event_to_yaml(back.events[i]), event_to_yaml(s.events[i]));
  EXPECT_EQ(events_to_yaml({}), "[]");
  EXPECT_TRUE(load_scenario(kEvents, {{"events", "[]"}}).events.empty());
}

TEST(ScenarioWriter, SavedFileLoadsWithTheOverridesAndTheSameTopology) {
  TempDir dir;
  const fs::path out = dir.path / "deeper" / "saved.yaml";
  const std::string yaml = scenario_yaml(kEvents, {{"parallelism.dp", "8"}, {"cluster.nodes", "1"},
                                                   {"events", "[{type: straggler, gpu: 2, slowdown: 2}]"}}, out);
  std::ofstream(out) << yaml;
  const Scenario saved = load_scenario(out);
  EXPECT_EQ(saved.parallelism.dp, 8);
  EXPECT_EQ(saved.cluster.nodes, 1);
  ASSERT_EQ(saved.events.size(), 1u);
  EXPECT_EQ(std::get<StragglerEvent>(saved.events[0]).slowdown, 2.0);
  const Scenario original = load_scenario(kEvents);
  EXPECT_EQ(fs::canonical(saved.cluster.topology_file), fs::canonical(original.cluster.topology_file));
  EXPECT_EQ(saved.name, original.name);
}

// kEvents with `overrides`, written by scenario_to_yaml (plan --write-scenario, Slurm tasks) and
// read back.
Scenario written_and_read_back(const std::vector<FieldOverride>& overrides) {
  TempDir dir;
  const fs::path out = dir.path / "written.yaml";
  std::ofstream(out) << scenario_to_yaml(load_scenario(kEvents, overrides), "round trip");
  return load_scenario(out);
}

// The loss kernels: a scenario with llm-foundry's loss (fused, Composer's 2 metric passes) reads
// back with them.
TEST(ScenarioWriter, WrittenScenarioKeepsTheLossKernels) {
  const Scenario back = written_and_read_back({{"training.framework", "pytorch"},
                                               {"training.cross_entropy", "fused"},
                                               {"training.loss_metrics", "2"},
                                               {"events", "[]"}});
  EXPECT_EQ(back.training.cross_entropy, CrossEntropyKernel::fused);
  EXPECT_EQ(back.training.loss_metrics, 2);
  EXPECT_EQ(back.training.framework, Framework::pytorch);
}

TEST(ScenarioWriter, WrittenScenarioKeepsItsFsdpVersion) {
  EXPECT_EQ(written_and_read_back({{"training.framework", "pytorch"},
                                   {"parallelism.zero_stage", "3"},
                                   {"parallelism.fsdp_version", "1"},
                                   {"events", "[]"}})
                .parallelism.fsdp_version,
            1);
}

TEST(ScenarioWriter, WrittenScenarioKeepsItsVarlenAttention) {
  EXPECT_TRUE(written_and_read_back({{"training.framework", "pytorch"},
                                     {"training.attention", "flash2"},
                                     {"training.attention_varlen", "true"},
                                     {"events", "[]"}})
                  .training.attention_varlen);
}

TEST(ScenarioWriter, WrittenScenarioKeepsItsReentrantRecompute) {
  EXPECT_TRUE(written_and_read_back({{"training.framework", "pytorch"},
                                     {"training.recompute", "full"},
                                     {"training.recompute_reentrant", "true"},
                                     {"events", "[]"}})
                  .training.recompute_reentrant);
}

TEST(ScenarioWriter, WrittenScenarioKeepsItsMemoryFormat) {
  EXPECT_EQ(written_and_read_back({{"training.memory_format", "channels_last"}, {"events", "[]"}})
                .training.memory_format,
            MemoryFormat::channels_last);
}

TEST(ScenarioWriter, BadOverridePathIsAnInputError) {
  const InputErrorInfo e = test::error_of([] { scenario_yaml(kEvents, {{"training..micro_batch", "2"}}, "x.yaml"); });
  EXPECT_EQ(e.field, "training..micro_batch");
  EXPECT_EQ(test::error_of([] { scenario_yaml("no-such.yaml", {}, "x.yaml"); }).expected, "an existing file");
}

TEST(ClusterOversubscription, OverridesTheTopologysFabricOnFatTreesOnly) {
  const fs::path llama = test::source_dir() / "scenarios" / "llama2-70b-256-h100.yaml";
  const Scenario base = load_scenario(llama);
  ASSERT_EQ(base.cluster.topology.fabric.kind, FabricKind::fat_tree);
  EXPECT_EQ(load_scenario(llama, {{"cluster.oversubscription", "4"}}).cluster.topology.fabric.oversubscription, 4.0);
  const InputErrorInfo low = test::error_of([&] { load_scenario(llama, {{"cluster.oversubscription", "0.5"}}); });
  EXPECT_EQ(low.field, "cluster.oversubscription");
  EXPECT_EQ(low.found, "'0.5'");
  const fs::path torus = test::source_dir() / "topologies" / "dgx-h100-torus-3d.yaml";
  const InputErrorInfo wrong = test::error_of([&] {
    load_scenario(llama, {{"cluster.topology", torus.string()}, {"cluster.oversubscription", "2"}});
  });
  EXPECT_EQ(wrong.field, "cluster.oversubscription");
}

TEST(HeadlineFigures, TimeAndCostToTrainByHand) {
  Report r;
  r.gpus = 1024;
  r.iteration_s = 10;
  r.tokens_per_s = 1e6;
  r.mfu = 0.5;
  r.model_tflops_per_gpu = 156;
  r.memory.total_bytes = 70e9;
  r.memory.capacity_bytes = 80e9;
  const TrainingCost c = training_cost(r, 300e9, 2.0);
  EXPECT_DOUBLE_EQ(c.time_s, 3e5);                     // 300e9 / 1e6 tokens/s
  EXPECT_DOUBLE_EQ(c.gpu_hours, 3e5 / 3600 * 1024);    // 85,333 GPU-hours
  EXPECT_DOUBLE_EQ(c.cost_usd, 2.0 * 3e5 / 3600 * 1024);
  const std::vector<HeadlineFigure> f = headline_figures(r, c);
  ASSERT_EQ(f.size(), 9u);
  EXPECT_EQ(f[0].text, "10.0000 s");
  EXPECT_EQ(f[1].text, "1,000,000 tokens/s");
  EXPECT_EQ(f[3].text, "50.0 %");
  EXPECT_EQ(f[4].text, "70.0 of 80 GB");
  EXPECT_EQ(f[5].label, "time to train 300B tokens");
  EXPECT_EQ(f[5].text, "3.5 days");  // 3e5 s
  EXPECT_EQ(f[7].text, "$170,667");
  EXPECT_EQ(f[8].text, "0 MWh");  // no GPU named: no power
  const Report no_throughput;
  EXPECT_EQ(training_cost(no_throughput, 300e9, 2.0).time_s, 0);  // nothing to say
  EXPECT_EQ(headline_csv({"a,b"}, {f}).substr(0, 30), "run,iteration_s,tokens_per_s,m");
  EXPECT_NE(headline_csv({"a,b"}, {f}).find("\n\"a,b\",10,1000000,156,50,70,"), std::string::npos);
}

// 1024 H100 SXM (700 W) in 128 DGX H100 of 10.2 kW: 1.3056 MW of nodes, 1.69728 MW at PUE 1.3;
// without the node's power, the GPUs' 0.7168 MW. 3.5 days (3e5 s) at 1.69728 MW: 141.44 MWh.
TEST(HeadlineFigures, EnergyFromBoardAndNodePowerByHand) {
  Report r;
  r.gpus = 1024;
  r.gpus_per_node = 8;
  r.gpu_board_power_w = 700;
  r.node_power_w = 10200;
  r.tokens_per_s = 1e6;
  const TrainingCost c = training_cost(r, 300e9, CostInputs{.usd_per_gpu_hour = 3.0, .pue = 1.3});
  EXPECT_DOUBLE_EQ(c.it_power_w, 128 * 10200.0);
  EXPECT_DOUBLE_EQ(c.facility_power_w, 128 * 10200.0 * 1.3);
  EXPECT_NEAR(c.energy_mwh, 141.44, 1e-9);
  EXPECT_DOUBLE_EQ(c.cost_usd, 3.0 * 3e5 / 3600 * 1024);
  r.node_power_w = 0;
  EXPECT_DOUBLE_EQ(training_cost(r, 300e9).it_power_w, 1024 * 700.0);
  EXPECT_FALSE(training_cost(r, 300e9).node_power_known);
  EXPECT_EQ(with_thousands(1234567.8), "1,234,568");
  EXPECT_EQ(with_thousands(999), "999");
  EXPECT_EQ(with_thousands(1000), "1,000");
  EXPECT_EQ(find_device("h100-sxm")->board_power_w, 700);
  EXPECT_EQ(find_device("a100-80gb-sxm")->board_power_w, 400);
  EXPECT_EQ(load_topology(test::source_dir() / "topologies" / "dgx-h100-ndr-fattree.yaml").node.power_w, 10200);
}

TEST(HeadlineFigures, LayerModelCountsItsSamples) {
  Report r;
  r.gpus = 16;
  r.iteration_s = 2;
  r.layer_model = true;
  r.sample_unit = "image";
  r.samples_per_s = 1024;  // 2048 images per 2 s step
  const double imagenet_90_epochs = 90.0 * 1281167;
  EXPECT_EQ(usual_training_amount("image"), imagenet_90_epochs);
  const TrainingCost c = training_cost(r, imagenet_90_epochs, 2.0);
  EXPECT_EQ(c.unit, "image");
  EXPECT_DOUBLE_EQ(c.time_s, imagenet_90_epochs / 1024);  // 112,602 s
  EXPECT_DOUBLE_EQ(c.gpu_hours, imagenet_90_epochs / 1024 / 3600 * 16);
  const std::vector<HeadlineFigure> f = headline_figures(r, c);
  EXPECT_EQ(f[1].key, "images_per_s");
  EXPECT_EQ(f[1].text, "1024.0 images/s");
  EXPECT_EQ(f[5].label, "time to train 115.3M images");
  EXPECT_EQ(f[5].text, "1.3 days");  // 112,602 s
  // A transformer's run and this one in one table: the throughput column names both units.
  Report t;
  t.tokens_per_s = 1e6;
  const std::string csv = headline_csv({"gpt", "vgg"}, {headline_figures(t, {}), f});
  EXPECT_EQ(csv.substr(0, 41), "run,iteration_s,tokens_per_s|images_per_s");
  EXPECT_EQ(usual_training_amount("record"), 4195197692.0);  // Criteo 1TB, days 0-22
  EXPECT_EQ(usual_training_amount("sequence"), 256e6);       // BERT: 1M steps of 256
  EXPECT_EQ(usual_training_amount("parsec"), 0);
}

}  // namespace
}  // namespace dtsim
