// What-if events (sim/engine/events.cpp, sim/analysis/what_if.cpp) against what can be worked out by hand: a
// straggler's window, a slowed NIC in a bandwidth-bound all-reduce, failures that stop the
// iteration without crashing, and who waited for whom.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <variant>

#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "test_support.hpp"
#include "workload_builder.hpp"
#include "what_if.hpp"

namespace dtsim {
namespace {

// GPT-3 1.3B, data-parallel over 8 H100 of one node (the stock scenario).
Scenario one_node() {
  Scenario s = load_scenario(test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml");
  s.events.clear();
  return s;
}

// The same on 2 nodes of one GPU each: the all-reduce's ring crosses both NICs.
Scenario two_single_gpu_nodes() {
  Scenario s = one_node();
  s.cluster.topology = test::test_topology("one-gpu");
  s.cluster.topology.node.nic_bw_Bps = 50e9;
  s.cluster.nodes = 2;
  s.parallelism.dp = 2;
  s.training.global_batch = 16;
  check_scenario_consistency(s);
  return s;
}

StragglerEvent straggler(int gpu, double slowdown, double start_s = 0, double end_s = kForever_s) {
  StragglerEvent e;
  e.gpu = gpu, e.slowdown = slowdown, e.start_s = start_s, e.end_s = end_s;
  return e;
}

// GPU 3 at half speed during the first half of its healthy compute C: by C/2 it has done C/4,
// and the remaining 3C/4 run at full speed, so its compute ends at C/2 + 3C/4 = 1.25 C.
TEST(WhatIf, StragglerWindowSlowsOnlyTheWorkInsideIt) {
  Scenario s = one_node();
  const SimulationResult healthy = simulate(s);
  const double compute_s = healthy.engine.ranks[3].compute_s;
  s.events.push_back(straggler(3, 2.0, 0, compute_s / 2));
  const SimulationResult slowed = simulate(s);
  EXPECT_NEAR(slowed.engine.ranks[3].compute_s, 1.25 * compute_s, 1e-6 * compute_s);
  EXPECT_NEAR(slowed.engine.iteration_s, healthy.engine.iteration_s + 0.25 * compute_s, 1e-4 * compute_s);
}

// The 7 healthy GPUs each wait (k - 1) C for the straggler at the gradient all-reduce, C its
// forward and backward compute (the optimizer step comes after the all-reduce): 7 (k - 1) C
// GPU-seconds are charged to GPU 3, nothing to the others.
TEST(WhatIf, WaitingIsChargedToTheStraggler) {
  Scenario s = one_node();
  const double optimizer_s = workload_inputs(s, resolve_scenario(s).compute).optimizer_s[0];
  const double compute_s = simulate(s).engine.ranks[3].compute_s - optimizer_s;
  s.events.push_back(straggler(3, 1.5));
  const SimulationResult r = simulate(s);
  ASSERT_EQ(r.engine.waited_on_s.size(), 8u);
  EXPECT_NEAR(r.engine.waited_on_s[3], 7 * 0.5 * compute_s, 1e-3 * 7 * 0.5 * compute_s);
  for (int g : {0, 1, 2, 4, 5, 6, 7}) EXPECT_LT(r.engine.waited_on_s[g], 1e-6 * compute_s) << g;
  const std::string text = format_what_if(s, r, simulate(one_node()));
  EXPECT_NE(text.find("GPU 3 computes 1.5x slower"), std::string::npos) << text;
}

// A ring all-reduce of 2 ranks is bound by its slowest edge: NIC 0 of node 1 at half its
// bandwidth doubles the bandwidth term of the gradient all-reduce (5.3 GB of fp32 gradients,
// latency negligible next to it).
TEST(WhatIf, HalfSpeedNicDoublesABandwidthBoundAllReduce) {
  Scenario s = two_single_gpu_nodes();
  const SimulationResult healthy = simulate(s);
  SlowLinkEvent nic;
  nic.link = EventLink::nic, nic.node = 1, nic.nic = 0, nic.bandwidth_fraction = 0.5;
  s.events.push_back(nic);
  const SimulationResult slowed = simulate(s);
  const double comm_s = healthy.engine.ranks[0].communication_s;
  ASSERT_GT(comm_s, 0.05);
  EXPECT_NEAR(slowed.engine.ranks[0].communication_s, 2 * comm_s, 0.02 * 2 * comm_s);
}

// Slowdowns on one GPU combine: GPU 3 at 1.5x on node 0 at 1.2x computes 1.5 x 1.2 = 1.8 times
// longer, the node's other GPUs 1.2 times (SimGrid takes one speed profile per host).
TEST(WhatIf, StragglerOnASlowNodeCombinesTheSlowdowns) {
  Scenario s = one_node();
  const SimulationResult healthy = simulate(s);
  const double compute_s = healthy.engine.ranks[3].compute_s;
  StragglerEvent node;
  node.node = 0, node.slowdown = 1.2;
  s.events = {straggler(3, 1.5), node};
  const SimulationResult slowed = simulate(s);
  EXPECT_NEAR(slowed.engine.ranks[3].compute_s, 1.8 * compute_s, 1e-6 * compute_s);
  EXPECT_NEAR(slowed.engine.ranks[2].compute_s, 1.2 * healthy.engine.ranks[2].compute_s, 1e-6 * compute_s);
}

// Two windows on GPU 3: 2x during [0, C/2) and 1.5x from 0 on. Until C/2 it runs at 1/3 speed
// (C/6 done), then at 2/3: the remaining 5C/6 take 5C/4, so its compute ends at 1.75 C.
TEST(WhatIf, OverlappingWindowsOnOneGpuMultiplyWhileBothAreOpen) {
  Scenario s = one_node();
  const double compute_s = simulate(s).engine.ranks[3].compute_s;
  s.events = {straggler(3, 2.0, 0, compute_s / 2), straggler(3, 1.5)};
  EXPECT_NEAR(simulate(s).engine.ranks[3].compute_s, 1.75 * compute_s, 1e-6 * compute_s);
}

// Two half-speed windows on one NIC leave it a quarter of its bandwidth: the bandwidth-bound
// all-reduce of two ranks takes four times as long.
TEST(WhatIf, TwoSlowLinkEventsOnOneNicMultiplyTheirFractions) {
  Scenario s = two_single_gpu_nodes();
  const double comm_s = simulate(s).engine.ranks[0].communication_s;
  SlowLinkEvent nic;
  nic.link = EventLink::nic, nic.node = 1, nic.nic = 0, nic.bandwidth_fraction = 0.5;
  s.events = {nic, nic};
  EXPECT_NEAR(simulate(s).engine.ranks[0].communication_s, 4 * comm_s, 0.02 * 4 * comm_s);
}

// Failures never crash the simulator: before the end the iteration is reported incomplete; after
// it, nothing changes.
TEST(WhatIf, FailuresStopTheIterationWithoutCrashing) {
  for (FailedResource what : {FailedResource::gpu, FailedResource::node, FailedResource::nic, FailedResource::nvlink,
                              FailedResource::leaf_switch}) {
    // NVLink only carries traffic between GPUs of one node: fail it in the 8-GPU node.
    Scenario s = what == FailedResource::nvlink ? one_node() : two_single_gpu_nodes();
    const double healthy_s = simulate(s).engine.iteration_s;
    ResourceFailureEvent failure;
    failure.resource = what, failure.gpu = 1, failure.node = 1, failure.nic = 0, failure.leaf = 0;
    failure.at_s = healthy_s / 2;
    s.events = {failure};
    const SimulationResult r = simulate(s);
    EXPECT_FALSE(r.engine.completed) << int(what);
    EXPECT_GE(r.engine.unfinished_ranks, 1) << int(what);
    failure.at_s = 2 * healthy_s;
    s.events = {failure};
    const SimulationResult late = simulate(s);
    EXPECT_TRUE(late.engine.completed) << int(what);
    EXPECT_NEAR(late.engine.iteration_s, healthy_s, 1e-9 * healthy_s) << int(what);
  }
}

// Sensitivity: at slowdown 2 the data-parallel iteration is longer by exactly one compute phase.
TEST(WhatIf, StragglerSensitivityGrowsByTheComputePhase) {
  const Scenario s = one_node();
  const double compute_s = simulate(s).engine.ranks[3].compute_s;
  const std::vector<SensitivityPoint> points = straggler_sensitivity(s, 3, {1.0, 2.0});
  ASSERT_EQ(points.size(), 2u);
  EXPECT_NEAR(points[1].iteration_s - points[0].iteration_s, compute_s, 1e-4 * compute_s);
}

TEST(WhatIf, BadEventsNameTheField) {
  Scenario s = one_node();
  SlowLinkEvent dead;
  dead.bandwidth_fraction = 0;
  s.events = {dead};
  EXPECT_EQ(test::error_of([&] { check_scenario_consistency(s); }).field, "events[0].bandwidth_fraction");
  s.events = {straggler(3, 2.0, 5, 1)};
  EXPECT_EQ(test::error_of([&] { check_scenario_consistency(s); }).field, "events[0].end_s");
  BackgroundTrafficEvent loop;
  loop.rate_Bps = 1e9;
  s.events = {loop};
  EXPECT_EQ(test::error_of([&] { check_scenario_consistency(s); }).field, "events[0].to_node");
}

}  // namespace
}  // namespace dtsim

namespace dtsim {
namespace {

TEST(WhatIf, EveryEventKindLoadsFromYaml) {
  const Scenario s = load_scenario(test::data_dir() / "scenario-events.yaml");
  ASSERT_EQ(s.events.size(), 6u);
  const auto& straggler = std::get<StragglerEvent>(s.events[0]);
  EXPECT_EQ(straggler.gpu, 5);
  EXPECT_DOUBLE_EQ(straggler.end_s, 2);
  EXPECT_EQ(std::get<StragglerEvent>(s.events[1]).node, 1);
  EXPECT_DOUBLE_EQ(std::get<SlowLinkEvent>(s.events[2]).bandwidth_fraction, 0.25);
  EXPECT_EQ(std::get<SlowLinkEvent>(s.events[3]).link, EventLink::nvlink);
  EXPECT_EQ(std::get<ResourceFailureEvent>(s.events[4]).resource, FailedResource::node);
  EXPECT_DOUBLE_EQ(std::get<BackgroundTrafficEvent>(s.events[5]).rate_Bps, 20e9);
  EXPECT_EQ(describe_event(s.events[1]), "every GPU of node 1 computes 1.2x slower");
}

// ---- what-ifs from the command line (issue 46, item 8) ----

// `--event` adds the event a YAML file would hold: the same scenario, the same events, the same
// iteration. gpt3-13b-64-a100-straggler.yaml holds {type: straggler, gpu: 5, slowdown: 1.3}.
TEST(WhatIfCli, AnEventOnTheCommandLineIsTheEventInTheFile) {
  const std::string with_event = (test::source_dir() / "scenarios" / "gpt3-13b-64-a100-straggler.yaml").string();
  const Scenario from_file = load_scenario(with_event);
  ASSERT_EQ(from_file.events.size(), 1u);
  const Scenario from_flag =
      load_scenario(with_event, {{"events", "~"}, event_override("--event", "straggler gpu=5 slowdown=1.3")});
  ASSERT_EQ(from_flag.events.size(), 1u);
  EXPECT_EQ(simulate(from_flag).engine.iteration_s, simulate(from_file).engine.iteration_s);
  // The loader's checks and messages: a GPU beyond the cluster, a type that does not exist.
  const test::CliResult far = test::run_dtsim("run " + with_event + " --event 'straggler gpu=64 slowdown=2'");
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_NE(far.output.find("field 'events[1].gpu': expected a GPU rank in [0, 64), found 64"), std::string::npos)
      << far.output;
  const test::CliResult typo = test::run_dtsim("run " + with_event + " --event 'stragler gpu=1'");
  EXPECT_NE(typo.output.find("field 'events[1].type'"), std::string::npos) << typo.output;
  const test::CliResult form = test::run_dtsim("run " + with_event + " --event 'straggler gpu'");
  EXPECT_NE(form.output.find("field '--event': expected an event type and its fields as KEY=VALUE"), std::string::npos)
      << form.output;
}

// `sweep --field events.0.slowdown` reaches into the events list, as the GUI's sweep does; a
// slowdown of 1.3 is the file's own iteration.
TEST(WhatIfCli, SweepReachesIntoTheEventsList) {
  const std::string with_event = (test::source_dir() / "scenarios" / "gpt3-13b-64-a100-straggler.yaml").string();
  const Scenario slower = load_scenario(with_event, {{"events.0.slowdown", "2"}});
  EXPECT_DOUBLE_EQ(std::get<StragglerEvent>(slower.events.at(0)).slowdown, 2.0);
  const InputErrorInfo e = test::error_of([&] { load_scenario(with_event, {{"events.3.slowdown", "2"}}); });
  EXPECT_EQ(e.expected, "an index of the list at '3' (0 to 0)");
  const test::CliResult r =
      test::run_dtsim("sweep " + with_event + " --field events.0.slowdown --values 1.3,2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(fmt::format("{:.4f}", simulate(load_scenario(with_event)).engine.iteration_s)),
            std::string::npos)
      << r.output;
}

// `--straggler-sweep GPU --values`: the slowdowns asked for, the first the scenario as it is.
TEST(WhatIfCli, StragglerSweepTakesItsSlowdowns) {
  const std::string scenario = (test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml").string();
  const test::CliResult r = test::run_dtsim("run " + scenario + " --straggler-sweep 2 --values 1,1.3,2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const double healthy = simulate(load_scenario(scenario)).engine.iteration_s;
  EXPECT_NE(r.output.find(fmt::format("{:.4f}      +0.0%", healthy)), std::string::npos) << r.output;
  for (const char* slowdown : {"\n        1 ", "\n      1.3 ", "\n        2 "})
    EXPECT_NE(r.output.find(slowdown), std::string::npos) << r.output;
  EXPECT_EQ(test::run_dtsim("run " + scenario + " --values 1,2").exit_code, 2);
  EXPECT_EQ(test::run_dtsim("run " + scenario + " --straggler-sweep 2 --values 0.5").exit_code, 2);
}

}  // namespace
}  // namespace dtsim
