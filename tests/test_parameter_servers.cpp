// Parameter servers (issue 18): servers as SimGrid actors on CPU hosts whose NICs the engine
// shares, sync / async / bounded-staleness updates, backup workers, and where the weights of a
// zoo model land. Times are derived by hand on nodes of one GPU with a 50 GB/s NIC.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "model_zoo.hpp"
#include "parameter_server_workload.hpp"
#include "scenario_loader.hpp"
#include "simulation.hpp"
#include "test_support.hpp"

namespace dtsim {
namespace {

constexpr double kNicBps = 50e9;       // single-gpu-nodes: 400 Gb/s
constexpr double kMemoryBps = 1e11;    // the servers' CPU hosts
constexpr int kIterations = 5;

// `compute_s.size()` workers on nodes 0..W-1, each pulling, computing compute_s[w], pushing all
// its gradients (`bytes`, the whole model) and waiting for the push; one dedicated server on
// node W holding every weight.
Workload one_server_workload(const std::vector<double>& compute_s, double bytes, ServerUpdateMode mode) {
  Workload w;
  const int workers = int(compute_s.size());
  w.servers.nodes = {workers};
  w.servers.shard_bytes = {bytes};
  w.servers.bucket_bytes = {{bytes}};
  w.servers.mode = mode;
  w.servers.iterations = kIterations;
  w.cpu_memory_Bps = kMemoryBps;
  for (int rank = 0; rank < workers; ++rank) {
    w.servers.workers.push_back(rank);
    RankProgram& p = w.ranks.emplace_back();
    for (int it = 0; it < kIterations; ++it) {
      p.tasks.push_back({.kind = TaskKind::ps_pull, .iteration = it});
      p.tasks.push_back({.kind = TaskKind::compute, .compute_s = compute_s[size_t(rank)]});
      p.tasks.push_back({.kind = TaskKind::ps_push, .iteration = it, .ps_bucket = 0});
      p.tasks.push_back({.kind = TaskKind::ps_wait, .iteration = it});
    }
  }
  return w;
}

SimulationResult run(const Workload& w) {
  return simulate_workload(test::test_topology("single-gpu-nodes"), int(w.ranks.size()), test::kSpeed, w, {});
}

// A worker's steps after the first iteration.
std::vector<double> steps_of(const ParameterServerStats& s, int worker) {
  std::vector<double> steps;
  const std::vector<double>& ends = s.step_end_s[size_t(worker)];
  for (size_t i = 1; i < ends.size(); ++i) steps.push_back(ends[i] - ends[i - 1]);
  return steps;
}

TEST(ParameterServerEngine, ASyncStepIsPullComputePushAndTheServersUpdate) {
  // 4 workers, 5 GB of weights on one server. Pull: the server's NIC sends 4 x 5 GB at 50 GB/s,
  // 0.4 s; compute 1 s; push: 4 x 5 GB into its NIC, 0.4 s; the server adds each gradient
  // (3 B of memory traffic per byte: 4 x 15 GB at 100 GB/s, 0.6 s) and applies the update
  // (5 B per byte, SGD with momentum: 0.25 s) before it answers the next pulls. 2.65 s.
  const double bytes = 5e9;
  const SimulationResult r = run(one_server_workload({1, 1, 1, 1}, bytes, ServerUpdateMode::sync));
  const double expected_s = 4 * bytes / kNicBps + 1 + 4 * bytes / kNicBps + (4 * 3 + 5) * bytes / kMemoryBps;
  ASSERT_DOUBLE_EQ(expected_s, 2.65);
  EXPECT_NEAR(r.engine.iteration_s, expected_s, 0.001 * expected_s);
  EXPECT_EQ(r.engine.iterations, kIterations);
  EXPECT_EQ(r.engine.servers.staleness_counts.at(0), 4 * kIterations);  // every gradient fresh
  EXPECT_DOUBLE_EQ(r.engine.servers.server_received_bytes[0], 4 * kIterations * bytes);
  EXPECT_DOUBLE_EQ(r.engine.servers.server_sent_bytes[0], 4 * kIterations * bytes);
  // Per iteration, each worker spends the pull and the push waiting (the updates included).
  EXPECT_NEAR(r.engine.ranks[0].compute_s, 1, 1e-9);
}

TEST(ParameterServerEngine, AsyncStepsSkipTheUpdateAndGradientsArriveSeveralVersionsLate) {
  // Async: pulls are answered at once, so a step is pull + compute + push = 1.8 s while the
  // server's updater applies the 4 gradients one after another (0.25 s each, 1 s a round).
  // Round 0 pulls version 0 and its gradients are applied 0, 1, 2, 3 versions late. Every later
  // round pulls right after its push arrived, while the previous round's 4 updates are still
  // being applied (version 4(k-1)), and its gradients are applied at versions 4k..4k+3: 4 to 7
  // versions late, each once per round.
  const double bytes = 5e9;
  const SimulationResult r = run(one_server_workload({1, 1, 1, 1}, bytes, ServerUpdateMode::async));
  EXPECT_NEAR(r.engine.iteration_s, 1.8, 0.001 * 1.8);
  const std::map<int, long> expected = {{0, 1}, {1, 1}, {2, 1}, {3, 1},
                                        {4, kIterations - 1}, {5, kIterations - 1},
                                        {6, kIterations - 1}, {7, kIterations - 1}};
  EXPECT_EQ(r.engine.servers.staleness_counts, expected);
}

TEST(ParameterServerEngine, BackupWorkersLetTheFastWorkersGoOnWithoutTheStraggler) {
  // 1 MB of weights (transfers of microseconds) and a fast server: the step is the compute.
  // Worker 3 computes 2 s, the others 1 s. Sync waits for it: 2 s. With one backup worker each
  // update takes the first 3 gradients: the fast workers step in 1 s, and every one of the
  // straggler's gradients arrives after its iteration's update and is dropped.
  const std::vector<double> compute_s = {1, 1, 1, 2};
  Workload sync = one_server_workload(compute_s, 1e6, ServerUpdateMode::sync);
  Workload backup = sync;
  backup.servers.backup_workers = 1;
  const SimulationResult waits = run(sync), goes_on = run(backup);
  for (double step : steps_of(waits.engine.servers, 0)) EXPECT_NEAR(step, 2, 0.01);
  for (double step : steps_of(goes_on.engine.servers, 0)) EXPECT_NEAR(step, 1, 0.01);
  for (double step : steps_of(goes_on.engine.servers, 3)) EXPECT_NEAR(step, 2, 0.01);
  EXPECT_EQ(waits.engine.servers.dropped_gradients, 0);
  EXPECT_EQ(goes_on.engine.servers.dropped_gradients, kIterations);
}

TEST(ParameterServerEngine, BoundedStalenessHoldsTheFastWorkersOnceTheyLeadByTheBound) {
  // The straggler above, async: the fast workers step in 1 s throughout. SSP with bound 1: a
  // pull of iteration k waits until the straggler's gradients of k - 2 are applied, at 2(k - 1) s.
  // Fast pulls at 0, 1, 2 (its iteration 0 is in at 2 s), then 4, 6: steps 1, 1, 2, 2.
  const std::vector<double> compute_s = {1, 1, 1, 2};
  const SimulationResult async = run(one_server_workload(compute_s, 1e6, ServerUpdateMode::async));
  Workload ssp = one_server_workload(compute_s, 1e6, ServerUpdateMode::bounded_staleness);
  ssp.servers.staleness_bound = 1;
  const SimulationResult bounded = run(ssp);
  for (double step : steps_of(async.engine.servers, 0)) EXPECT_NEAR(step, 1, 0.01);
  const std::vector<double> steps = steps_of(bounded.engine.servers, 0);
  ASSERT_EQ(steps.size(), size_t(kIterations - 1));
  const double expected[] = {1, 1, 2, 2};
  for (size_t i = 0; i < steps.size(); ++i) EXPECT_NEAR(steps[i], expected[i], 0.01) << "step " << i + 1;
}

TEST(ParameterServerWorkload, WeightsGoRoundRobinByTensorSoVgg16sFc6LoadsOneServer) {
  // VGG-16's tensors in layer order: 13 convolutions (0-12), then classifier.0 (fc6, tensor 13:
  // 25088 x 4096 weights + 4096 biases) -> server 13 % 2 = 1.
  const Scenario s =
      test::vgg16_on_k80_servers("data_parallel: {strategy: parameter_server, servers: 2, sharding: round_robin}\n");
  const ParameterServers ps = parameter_servers(s, {{1.0, 0, 0, int(s.layer_model->graph.layers.size()) - 1}});
  const double fc6_bytes = (25088.0 * 4096 + 4096) * 4;
  const double total = s.layer_model->graph.parameters() * 4;
  ASSERT_EQ(ps.shard_bytes.size(), 2u);
  EXPECT_DOUBLE_EQ(ps.shard_bytes[0] + ps.shard_bytes[1], total);
  EXPECT_GT(ps.shard_bytes[1], fc6_bytes);
  EXPECT_LT(ps.shard_bytes[0], total - fc6_bytes);
  EXPECT_EQ(ps.nodes, (std::vector<int>{0, 1}));  // colocated: server i on node i
  EXPECT_EQ(ps.workers.size(), 16u);
  EXPECT_DOUBLE_EQ(ps.apply_bytes_per_byte, 5);  // SGD with momentum: 20 B per 4 B weight
}

TEST(ParameterServerWorkload, GreedyShardingGivesEachTensorToTheLeastLoadedServer) {
  // ResNet-50's first layers in order: conv1 (9,408 weights), bn1 (128), layer1.0.conv1 (4,096),
  // layer1.0.bn1 (128). Greedy over 2 servers: conv1 -> 0; bn1 -> 1 (empty); conv -> 1 (128 B
  // < 37,632 B); bn -> 1 (16,896 < 37,632). Round-robin: conv1, conv -> 0; bn1, bn -> 1.
  const Scenario s = test::vgg16_on_k80_servers("data_parallel: {strategy: parameter_server, servers: 2}\n");
  Scenario four = s;
  LayerGraph& g = four.layer_model->graph;
  g.layers = {Layer{"conv1", LayerKind::convolution, 0, 0, 9408}, Layer{"bn1", LayerKind::normalization, 0, 0, 128},
              Layer{"conv", LayerKind::convolution, 0, 0, 4096}, Layer{"bn", LayerKind::normalization, 0, 0, 128}};
  const GradientBucket all{1.0, 0, 0, 3};
  EXPECT_EQ(parameter_servers(four, {all}).shard_bytes, (std::vector<double>{9408 * 4, (128 + 4096 + 128) * 4}));
  four.data_parallel.sharding = TensorSharding::round_robin;
  EXPECT_EQ(parameter_servers(four, {all}).shard_bytes, (std::vector<double>{(9408 + 4096) * 4, 256 * 4}));
}

TEST(ParameterServerWorkload, HierarchicalPushesOncePerNodeAndDedicatedServersGetTheirOwnNodes) {
  const Scenario s = test::vgg16_on_k80_servers(
      "data_parallel: {strategy: hierarchical, servers: 3, placement: dedicated, mode: async}\n");
  const Workload w = build_workload(s, resolve_scenario(s).compute);
  EXPECT_EQ(w.servers.workers, (std::vector<int>{0, 8}));  // each node's first GPU
  EXPECT_EQ(w.servers.nodes, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(w.servers.mode, ServerUpdateMode::async);
  ASSERT_EQ(w.groups.size(), 2u);  // the node groups the gradients are all-reduced over
  EXPECT_EQ(w.groups[1].ranks.front(), 8);
  const SimulationResult r = simulate(s);
  EXPECT_EQ(r.engine.servers.step_end_s.size(), 2u);
  EXPECT_GT(r.engine.iteration_s, 0);
}

TEST(ParameterServerScenario, TheShippedScenarioReportsTheServerHoldingFc6AndFreshGradients) {
  // 16 workers, 2 servers (greedy: fc6's 411 MB on one of them), 5 synchronous iterations.
  const test::ScratchDir dir;
  const std::string json = (dir.path() / "ps.json").string();
  const std::string scenario = (test::source_dir() / "scenarios" / "vgg16-16-k80-parameter-server.yaml").string();
  const test::CliResult r = test::run_dtsim("run " + scenario + " --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("parameter servers   2 servers, sync updates, 5 iterations"), std::string::npos) << r.output;
  const nlohmann::json report = nlohmann::json::parse(std::ifstream(json));
  const nlohmann::json& ps = report["parameter_servers"];
  EXPECT_EQ(ps["staleness_counts"], nlohmann::json({{"0", 16 * 5}}));
  const double fc6_bytes = (25088.0 * 4096 + 4096) * 4;
  EXPECT_GE(ps["busiest_server"]["received_bytes_per_iteration"].get<double>(), 16 * fc6_bytes);
  EXPECT_EQ(report["analytic_iteration_time_s"], 0);
}

TEST(ParameterServerScenario, FieldsThatDoNotFitTheStrategyAreErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"data_parallel: {strategy: parameter_server, mode: async, staleness_bound: 2}\n",
       "data_parallel.staleness_bound"},
      {"data_parallel: {strategy: parameter_server, library: nccl}\n", "data_parallel.library"},
      {"data_parallel: {strategy: allreduce, servers: 2}\n", "data_parallel.servers"},
      {"data_parallel: {strategy: parameter_server, backup_workers: 16}\n", "data_parallel.backup_workers"},
      {"data_parallel: {strategy: parameter_server, mode: ssp}\n", "data_parallel.staleness_bound"},
  };
  for (const auto& [lines, field] : cases)
    EXPECT_EQ(test::error_of([&] { test::vgg16_on_k80_servers(lines); }).field, field) << lines;
}

}  // namespace
}  // namespace dtsim
