#include "simulation.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <simgrid/plugins/load.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <cstdio>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "device_spec.hpp"
#include "event_reach.hpp"
#include "events.hpp"
#include "input_error.hpp"
#include "memory_budget.hpp"
#include "memory_estimate.hpp"
#include "workload_builder.hpp"

namespace dtsim {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Runs in the child: everything that touches SimGrid.
// Where the child writes its simulated clock for SimulationOptions::on_progress; -1 for none.
int progress_fd = -1;

// Every ~0.2 s of wall time, the simulated clock to progress_fd (never blocking: a full pipe
// drops the update).
void report_progress_while_running() {
  if (progress_fd < 0) return;
  auto last = std::make_shared<Clock::time_point>(Clock::now());
  simgrid::s4u::Engine::on_time_advance_cb([last](double) {
    const Clock::time_point now = Clock::now();
    if (now - *last < std::chrono::milliseconds(200)) return;
    *last = now;
    const double clock_s = simgrid::s4u::Engine::get_clock();
    [[maybe_unused]] const ssize_t n = write(progress_fd, &clock_s, sizeof clock_s);
  });
}

// Bytes each link carried, by direction, from SimGrid's link-load plugin, plus `folded_bytes` by
// link name: the flows of folded replicas (EngineResult::folded_flow_link_bytes).
std::vector<LinkUsage> link_usage(const simgrid::s4u::Engine& engine, const std::map<std::string, double>& folded_bytes) {
  std::map<std::string, LinkUsage> by_name;
  for (const simgrid::s4u::Link* link : engine.get_all_links()) {
    const auto folded = folded_bytes.find(link->get_name());
    const double extra_bytes = folded == folded_bytes.end() ? 0 : folded->second;
    bool down = false;
    const std::string name = without_direction(link->get_name(), &down);
    auto [it, fresh] = by_name.try_emplace(name, classify_link(name));
    LinkUsage& u = it->second;
    if (fresh) u.bandwidth_Bps = link->get_bandwidth();
    (down ? u.down_bytes : u.up_bytes) += sg_link_get_cum_load(link) + extra_bytes;
  }
  std::vector<LinkUsage> usage;
  for (auto& [name, u] : by_name) usage.push_back(std::move(u));
  return usage;
}

// Runs in the child: everything that touches SimGrid.
SimulationResult run_simgrid(const TopologySpec& topology, int nodes, double gpu_speed_flops,
                             const Workload& workload, const std::vector<Event>& events,
                             const SimulationOptions& options) {
  SimulationResult result;
  // A failure event leaves ranks blocked for good; SimGrid calls that a deadlock at critical
  // level, and the report says it better.
  int argc = 3;
  char arg0[] = "dtsim", arg1[] = "--log=root.thres:critical", arg2[] = "--log=ker_engine.app:file:/dev/null";
  char* argv[] = {arg0, arg1, arg2, nullptr};
  simgrid::s4u::Engine engine(&argc, argv);
  configure_network_model(engine);
  if (options.record_link_usage) sg_link_load_plugin_init();
  const auto build_start = Clock::now();
  // Dedicated parameter servers sit on nodes after the workers'.
  int platform_nodes = nodes;
  for (int server_node : workload.servers.nodes) platform_nodes = std::max(platform_nodes, server_node + 1);
  Platform platform = build_platform(topology, platform_nodes, gpu_speed_flops, workload.cpu_memory_Bps);
  apply_events(events, platform, topology);
  if (options.unlimited_tier)
    for (simgrid::s4u::Link* link : engine.get_all_links())
      if (link_tier(link->get_name()) == *options.unlimited_tier) link->set_bandwidth(link->get_bandwidth() * 1e6);
  if (options.record_link_usage)
    for (const simgrid::s4u::Link* link : engine.get_all_links()) sg_link_load_track(link);
  report_progress_while_running();
  result.platform_build_wall_s = seconds_since(build_start);

  const auto run_start = Clock::now();
  const bool failures_possible = std::any_of(events.begin(), events.end(), [](const Event& e) {
    return std::holds_alternative<ResourceFailureEvent>(e);
  });
  EngineOptions engine_options;
  engine_options.record_spans = options.record_trace;
  engine_options.failures_possible = failures_possible;
  engine_options.record_waits = !events.empty();
  engine_options.record_folded_flows = options.record_link_usage;
  result.engine = run_engine(engine, platform, topology.node, workload, engine_options);
  result.simulation_wall_s = seconds_since(run_start);
  if (options.record_link_usage) result.links = link_usage(engine, result.engine.folded_flow_link_bytes);
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) result.peak_memory_bytes = double(usage.ru_maxrss) * 1024;  // KiB on Linux
  return result;
}

json to_json(const SimulationResult& r) {
  json ranks = json::array();
  for (const RankTimes& t : r.engine.ranks) {
    json by_kind = json::object();
    for (const auto& [kind, c] : t.communication_by_kind) by_kind[kind] = {c.total_s, c.exposed_s};
    ranks.push_back({t.finish_s, t.compute_s, t.communication_s, t.bubble_s, by_kind});
  }
  json spans = json::array();
  for (const TraceSpan& sp : r.engine.spans)
    spans.push_back({sp.rank, int(sp.kind), int(sp.phase), sp.micro_batch, sp.start_s, sp.end_s, sp.group,
                     int(sp.collective)});
  json links = json::array();
  for (const LinkUsage& l : r.links) links.push_back({l.name, l.bandwidth_Bps, l.up_bytes, l.down_bytes});
  const ParameterServerStats& ps = r.engine.servers;
  json staleness = json::array();
  for (const auto& [versions, count] : ps.staleness_counts) staleness.push_back({versions, count});
  const json servers = {ps.worker_ranks, ps.step_end_s, staleness, ps.dropped_gradients, ps.server_received_bytes,
                        ps.server_sent_bytes, ps.server_update_s};
  return {{"iteration_s", r.engine.iteration_s}, {"activities", r.engine.activities},
          {"iterations", r.engine.iterations}, {"servers", servers},
          {"representative", r.engine.representative},
          {"build_s", r.platform_build_wall_s},  {"run_s", r.simulation_wall_s},
          {"peak_memory_bytes", r.peak_memory_bytes},
          {"ranks", ranks},                      {"spans", spans},
          {"group_kinds", r.engine.group_kinds},
          {"completed", r.engine.completed},
          {"unfinished_ranks", r.engine.unfinished_ranks},
          {"stopped_s", r.engine.stopped_s},
          {"waited_on_s", r.engine.waited_on_s},
          {"links", links}};
}

SimulationResult from_json(const json& j) {
  SimulationResult r;
  r.engine.iteration_s = j["iteration_s"];
  r.engine.activities = j["activities"];
  r.engine.iterations = j["iterations"];
  const json& servers = j["servers"];
  ParameterServerStats& ps = r.engine.servers;
  ps.worker_ranks = servers[0].get<std::vector<int>>();
  ps.step_end_s = servers[1].get<std::vector<std::vector<double>>>();
  for (const json& e : servers[2]) ps.staleness_counts[e[0].get<int>()] = e[1].get<long>();
  ps.dropped_gradients = servers[3];
  ps.server_received_bytes = servers[4].get<std::vector<double>>();
  ps.server_sent_bytes = servers[5].get<std::vector<double>>();
  ps.server_update_s = servers[6].get<std::vector<double>>();
  r.engine.representative = j["representative"].get<std::vector<int>>();
  r.platform_build_wall_s = j["build_s"];
  r.simulation_wall_s = j["run_s"];
  r.peak_memory_bytes = j["peak_memory_bytes"];
  for (const json& t : j["ranks"]) {
    RankTimes& times = r.engine.ranks.emplace_back(RankTimes{t[0], t[1], t[2], t[3], {}});
    for (const auto& [kind, c] : t[4].items()) times.communication_by_kind[kind] = {c[0], c[1]};
  }
  for (const json& sp : j["spans"])
    r.engine.spans.push_back({sp[0], SpanKind(sp[1].get<int>()), Phase(sp[2].get<int>()), sp[3], sp[4], sp[5], sp[6],
                              CollectiveKind(sp[7].get<int>())});
  r.engine.group_kinds = j["group_kinds"].get<std::vector<std::string>>();
  r.engine.completed = j["completed"];
  r.engine.unfinished_ranks = j["unfinished_ranks"];
  r.engine.stopped_s = j["stopped_s"];
  r.engine.waited_on_s = j["waited_on_s"].get<std::vector<double>>();
  for (const json& l : j["links"]) {
    LinkUsage u = classify_link(l[0].get<std::string>());
    u.bandwidth_Bps = l[1];
    u.up_bytes = l[2];
    u.down_bytes = l[3];
    r.links.push_back(std::move(u));
  }
  return r;
}

// SimGrid's max-min solver walks the links shared by flows recursively on the engine's (the
// main thread's) stack, about one frame per flow in a group of coupled flows: 87,000 frames for
// one all-reduce over 65,536 GPUs, past the usual 8 MiB. The main thread's stack grows on demand
// up to the soft limit, so the child raises it (Linux keeps at least 128 MiB free below it).
void allow_deep_engine_stack() {
  constexpr rlim_t kEngineStackBytes = rlim_t(120) << 20;
  rlimit limit{};
  if (getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= kEngineStackBytes)
    return;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? kEngineStackBytes : std::min(limit.rlim_max, kEngineStackBytes);
  setrlimit(RLIMIT_STACK, &limit);
}

// SimGrid ends the process (abort) where one of its own allocations fails, which the memory
// budget makes happen: in the child, SIGABRT with the data segment at its limit is reported as
// the budget exceeded (a reply prepared beforehand; write and _exit are async-signal-safe).
int abort_reply_fd = -1;
std::vector<uint8_t> memory_exceeded_reply;
rlim_t data_limit_bytes = 0;

void on_abort(int) {
  char statm[128] = {};
  const int fd = open("/proc/self/statm", O_RDONLY);
  const ssize_t n = fd >= 0 ? read(fd, statm, sizeof statm - 1) : -1;
  if (fd >= 0) close(fd);
  // Fields: size resident shared text lib data dt, in pages; data (6th) is what RLIMIT_DATA caps.
  unsigned long long field[7] = {};
  int i = 0;
  for (ssize_t c = 0; c < n && i < 7; ++c) {
    if (statm[c] == ' ') ++i;
    else if (statm[c] >= '0' && statm[c] <= '9') field[i] = field[i] * 10 + unsigned(statm[c] - '0');
  }
  const double data_bytes = double(field[5]) * double(sysconf(_SC_PAGESIZE));
  if (abort_reply_fd >= 0 && data_limit_bytes > 0 && data_bytes > 0.9 * double(data_limit_bytes)) {
    [[maybe_unused]] const ssize_t w = write(abort_reply_fd, memory_exceeded_reply.data(), memory_exceeded_reply.size());
    _exit(0);
  }
  signal(SIGABRT, SIG_DFL);
  raise(SIGABRT);
}

void report_memory_exhaustion_on_abort(int reply_fd, double limit_bytes) {
  abort_reply_fd = reply_fd;
  data_limit_bytes = rlim_t(limit_bytes);
  memory_exceeded_reply = json::to_msgpack(json{{"memory_exceeded", true}});
  signal(SIGABRT, on_abort);
}

void write_all(int fd, const std::vector<uint8_t>& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) _exit(3);
    done += size_t(n);
  }
}

// The reply a simulation sends back (msgpack): {"ok": result}, or what went wrong.
json reply_of(const std::function<SimulationResult()>& body) {
  try {
    return {{"ok", to_json(body())}};
  } catch (const InputError& e) {
    const InputErrorInfo& i = e.info();
    return {{"input_error", {i.file, i.line, i.field, i.expected, i.found}}};
  } catch (const std::bad_alloc&) {
    return {{"memory_exceeded", true}};
  } catch (const std::exception& e) {
    return {{"error", e.what()}};
  }
}

// The result a reply holds, or what it says went wrong, thrown. `what`: the simulation, for the
// memory-budget message.
SimulationResult result_of_reply(const std::vector<uint8_t>& bytes, const std::string& what, double memory_limit_bytes) {
  const json reply = json::from_msgpack(bytes);
  if (reply.contains("memory_exceeded")) throw memory_budget_exceeded(what, memory_limit_bytes);
  if (reply.contains("input_error")) {
    const json& i = reply.at("input_error");
    throw InputError({i.at(0), i.at(1), i.at(2), i.at(3), i.at(4)});
  }
  if (reply.contains("error")) throw std::runtime_error(reply.at("error").get<std::string>());
  return from_json(reply.at("ok"));
}

// A forked child computing one SimulationResult; finish() collects it. With `progress`, the child
// also reports its simulated clock on a second pipe.
class ChildSimulation {
 public:
  // `at_once`: children running beside this one; each gets that share of the memory budget.
  ChildSimulation(std::string what, const std::function<SimulationResult()>& body, bool progress = false,
                  int at_once = 1)
      : what_(std::move(what)), memory_limit_bytes_(memory_budget_bytes() / std::max(1, at_once)) {
    int fds[2], progress_fds[2] = {-1, -1};
    if (pipe(fds) != 0) throw std::runtime_error("simulate: pipe() failed");
    if (progress && pipe(progress_fds) != 0) throw std::runtime_error("simulate: pipe() failed");
    // The child inherits unflushed stdio buffers; SimGrid flushes them, which would print twice.
    std::cout.flush();
    std::fflush(nullptr);
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("simulate: fork() failed");
    if (pid_ == 0) {
      // A child outliving its parent (killed, crashed) would compute for nothing: it dies with
      // it. The check covers a parent that died before the request was made.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(1);
      allow_deep_engine_stack();
      limit_process_memory(memory_limit_bytes_);
      report_memory_exhaustion_on_abort(fds[1], memory_limit_bytes_);
      close(fds[0]);
      if (progress) {
        close(progress_fds[0]);
        fcntl(progress_fds[1], F_SETFL, O_NONBLOCK);
        progress_fd = progress_fds[1];
      }
      write_all(fds[1], json::to_msgpack(reply_of(body)));
      close(fds[1]);
      _exit(0);  // skip SimGrid's and the parent's static destructors
    }
    close(fds[1]);
    fd_ = fds[0];
    if (progress) {
      close(progress_fds[1]);
      progress_fd_ = progress_fds[0];
    }
  }
  ChildSimulation(ChildSimulation&& o) noexcept
      : what_(std::move(o.what_)), memory_limit_bytes_(o.memory_limit_bytes_), pid_(std::exchange(o.pid_, -1)),
        fd_(std::exchange(o.fd_, -1)),
        progress_fd_(std::exchange(o.progress_fd_, -1)) {}
  ChildSimulation(const ChildSimulation&) = delete;
  ~ChildSimulation() { kill_child(); }

  // Returns what the child's body returned, or rethrows what it threw. Polls every 0.1 s for
  // `cancel` (then kills the child and throws SimulationCancelled) and passes progress reports on.
  SimulationResult finish(const std::atomic<bool>* cancel = nullptr,
                          const std::function<void(double)>& on_progress = {}) {
    std::vector<uint8_t> bytes;
    for (bool open = true; open;) {
      if (cancel && cancel->load()) {
        kill_child();
        throw SimulationCancelled();
      }
      pollfd fds[2] = {{fd_, POLLIN, 0}, {progress_fd_, POLLIN, 0}};
      const int ready = poll(fds, progress_fd_ >= 0 ? 2 : 1, 100);
      if (ready < 0 && errno != EINTR) break;
      if (ready <= 0) continue;
      if (progress_fd_ >= 0 && (fds[1].revents & (POLLIN | POLLHUP))) read_progress(on_progress);
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) open = read_some(bytes);
    }
    close_fds();
    int status = 0;
    waitpid(std::exchange(pid_, -1), &status, 0);
    const std::string what = fmt::format("the simulation of '{}'", what_);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || bytes.empty())
      throw std::runtime_error(fmt::format("simulation of '{}' failed in its child process (status {})", what_, status));
    return result_of_reply(bytes, what, memory_limit_bytes_);
  }

 private:
  // False at the end of the stream.
  bool read_some(std::vector<uint8_t>& bytes) {
    uint8_t buf[1 << 16];
    const ssize_t n = read(fd_, buf, sizeof buf);
    if (n < 0) return errno == EINTR || errno == EAGAIN;
    bytes.insert(bytes.end(), buf, buf + n);
    return n > 0;
  }

  void read_progress(const std::function<void(double)>& on_progress) {
    double clock_s[64];
    const ssize_t n = read(progress_fd_, clock_s, sizeof clock_s);
    if (n <= 0) {
      close(std::exchange(progress_fd_, -1));
      return;
    }
    if (on_progress && n >= ssize_t(sizeof(double))) on_progress(clock_s[n / sizeof(double) - 1]);
  }

  void close_fds() {
    if (fd_ >= 0) close(std::exchange(fd_, -1));
    if (progress_fd_ >= 0) close(std::exchange(progress_fd_, -1));
  }

  void kill_child() {
    close_fds();
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(std::exchange(pid_, -1), nullptr, 0);
    }
  }

  std::string what_;
  double memory_limit_bytes_;
  pid_t pid_ = -1;
  int fd_ = -1;
  int progress_fd_ = -1;
};

SimulationResult run_in_child(const std::string& what, const std::function<SimulationResult()>& body) {
  return ChildSimulation(what, body).finish();
}

// What a batch's simulations record: `options` without the cancel flag and the progress callback,
// which belong to one simulation run by simulate.
SimulationOptions recording_only(SimulationOptions options) {
  options.cancel = nullptr;
  options.on_progress = nullptr;
  return options;
}

// Runs in the child: `resolved` outlives it (ChildSimulation's constructor forks).
std::function<SimulationResult()> simulation_body(const ResolvedScenario& resolved, const SimulationOptions& options) {
  return [&resolved, options] {
    const Scenario& s = resolved.scenario;
    ReplicaFolding folding;
    if (options.fold_replicas && !s.data_parallel.uses_servers()) {
      std::optional<std::vector<int>> reached = gpus_events_reach(s.events, resolved.topology.node.gpus);
      folding = {reached.has_value(), reached.value_or(std::vector<int>{})};
    }
    const Workload workload = build_workload(s, resolved.compute, folding);
    refuse_beyond_memory_limit(workload, long(s.cluster.nodes) * resolved.topology.node.gpus, s.name);
    return run_simgrid(resolved.topology, s.cluster.nodes, resolved.compute.peak_flops(), workload, s.events, options);
  };
}

}  // namespace

SimulationResult simulate_workload(const TopologySpec& topology, int nodes, double gpu_speed_flops,
                                   const Workload& workload, const std::vector<Event>& events,
                                   const SimulationOptions& options) {
  return run_in_child(topology.name, [&] {
    refuse_beyond_memory_limit(workload, long(nodes) * topology.node.gpus, topology.name);
    return run_simgrid(topology, nodes, gpu_speed_flops, workload, events, options);
  });
}

namespace {

// What the parent adds to a child's result: where the efficiencies came from and, with an input
// pipeline, the step it allows (the GPUs' simulated step is the one with data always ready).
void complete(const ResolvedScenario& resolved, SimulationResult& result) {
  result.efficiency_source = resolved.calibration_provenance;
  if (!resolved.scenario.input_pipeline || !result.engine.completed) return;
  result.input = input_pipeline_step(resolved.scenario, result.engine.iteration_s);
  result.engine.iteration_s = result.input->step_s;
}

}  // namespace

struct StartedSimulation::Child {
  ChildSimulation simulation;
};

StartedSimulation::StartedSimulation(ResolvedScenario scenario, SimulationOptions options)
    : scenario_(std::move(scenario)), options_(std::move(options)) {
  child_ = std::make_unique<Child>(
      Child{ChildSimulation(scenario_.scenario.name, simulation_body(scenario_, options_), bool(options_.on_progress))});
}

StartedSimulation::StartedSimulation(StartedSimulation&&) noexcept = default;
StartedSimulation::~StartedSimulation() = default;

SimulationResult StartedSimulation::finish() {
  SimulationResult result = child_->simulation.finish(options_.cancel, options_.on_progress);
  complete(scenario_, result);
  return result;
}

SimulationResult simulate(const ResolvedScenario& resolved, const SimulationOptions& options) {
  return StartedSimulation(resolved, options).finish();
}

SimulationResult simulate(const Scenario& s, const SimulationOptions& options) {
  return simulate(resolve_scenario(s), options);
}

std::vector<SimulationOutcome> simulate_many(const std::vector<ResolvedScenario>& scenarios, int parallel,
                                             const std::function<void(size_t, const SimulationOutcome&)>& on_outcome,
                                             const std::atomic<bool>* cancel, const SimulationOptions& options) {
  const SimulationOptions recording = recording_only(options);
  std::vector<SimulationOutcome> outcomes(scenarios.size());
  auto report = [&](size_t i) {
    if (on_outcome) on_outcome(i, outcomes[i]);
  };
  // A window of up to `parallel` children, collected oldest first so outcomes come in order.
  std::deque<std::pair<size_t, ChildSimulation>> running;
  size_t next = 0;
  while (next < scenarios.size() || !running.empty()) {
    const bool cancelled = cancel && cancel->load();
    while (!cancelled && next < scenarios.size() && running.size() < size_t(std::max(1, parallel))) {
      const size_t i = next++;
      try {
        running.emplace_back(i, ChildSimulation(scenarios[i].scenario.name, simulation_body(scenarios[i], recording),
                                                false, std::max(1, parallel)));
      } catch (const std::exception& e) {
        outcomes[i].error = e.what();
        report(i);
      }
    }
    if (running.empty()) {
      if (!cancelled) continue;
      for (; next < scenarios.size(); ++next) {
        outcomes[next].error = SimulationCancelled().what();
        report(next);
      }
      break;
    }
    auto& [i, child] = running.front();
    try {
      outcomes[i].result = child.finish(cancel);
      complete(scenarios[i], *outcomes[i].result);
    } catch (const std::exception& e) {
      outcomes[i].error = e.what();
    }
    report(i);
    running.pop_front();
  }
  return outcomes;
}

std::vector<uint8_t> simulate_to_reply(const std::function<ResolvedScenario()>& resolve,
                                       const SimulationOptions& options) {
  const SimulationOptions recording = recording_only(options);
  return json::to_msgpack(reply_of([&] {
    const ResolvedScenario resolved = resolve();
    return run_in_child(resolved.scenario.name, simulation_body(resolved, recording));
  }));
}

SimulationOutcome outcome_from_reply(const ResolvedScenario& resolved, const std::vector<uint8_t>& reply) {
  SimulationOutcome outcome;
  try {
    outcome.result = result_of_reply(reply, fmt::format("the simulation of '{}'", resolved.scenario.name),
                                     memory_budget_bytes());
    complete(resolved, *outcome.result);
  } catch (const std::exception& e) {
    outcome.result.reset();
    outcome.error = e.what();
  }
  return outcome;
}

}  // namespace dtsim
