#include "simulation.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "calibration_use.hpp"
#include "device_spec.hpp"
#include "events.hpp"
#include "input_error.hpp"
#include "workload_builder.hpp"

namespace dtsim {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

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
  const auto build_start = Clock::now();
  Platform platform = build_platform(topology, nodes, gpu_speed_flops);
  apply_events(events, platform, topology);
  result.platform_build_wall_s = seconds_since(build_start);

  const auto run_start = Clock::now();
  const bool failures_possible = std::any_of(events.begin(), events.end(), [](const Event& e) {
    return std::holds_alternative<ResourceFailureEvent>(e);
  });
  result.engine = run_engine(engine, platform, topology.node, workload, options.record_trace, failures_possible,
                             !events.empty());
  result.simulation_wall_s = seconds_since(run_start);
  return result;
}

json to_json(const SimulationResult& r) {
  json ranks = json::array();
  for (const RankTimes& t : r.engine.ranks) ranks.push_back({t.finish_s, t.compute_s, t.communication_s, t.bubble_s});
  json spans = json::array();
  for (const TraceSpan& sp : r.engine.spans)
    spans.push_back({sp.rank, int(sp.kind), int(sp.phase), sp.micro_batch, sp.start_s, sp.end_s, sp.group,
                     int(sp.collective)});
  return {{"iteration_s", r.engine.iteration_s}, {"activities", r.engine.activities},
          {"build_s", r.platform_build_wall_s},  {"run_s", r.simulation_wall_s},
          {"ranks", ranks},                      {"spans", spans},
          {"group_kinds", r.engine.group_kinds},
          {"completed", r.engine.completed},
          {"unfinished_ranks", r.engine.unfinished_ranks},
          {"stopped_s", r.engine.stopped_s},
          {"waited_on_s", r.engine.waited_on_s}};
}

SimulationResult from_json(const json& j) {
  SimulationResult r;
  r.engine.iteration_s = j["iteration_s"];
  r.engine.activities = j["activities"];
  r.platform_build_wall_s = j["build_s"];
  r.simulation_wall_s = j["run_s"];
  for (const json& t : j["ranks"]) r.engine.ranks.push_back({t[0], t[1], t[2], t[3]});
  for (const json& sp : j["spans"])
    r.engine.spans.push_back({sp[0], SpanKind(sp[1].get<int>()), Phase(sp[2].get<int>()), sp[3], sp[4], sp[5], sp[6],
                              CollectiveKind(sp[7].get<int>())});
  r.engine.group_kinds = j["group_kinds"].get<std::vector<std::string>>();
  r.engine.completed = j["completed"];
  r.engine.unfinished_ranks = j["unfinished_ranks"];
  r.engine.stopped_s = j["stopped_s"];
  r.engine.waited_on_s = j["waited_on_s"].get<std::vector<double>>();
  return r;
}

void write_all(int fd, const std::vector<uint8_t>& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) _exit(3);
    done += size_t(n);
  }
}

std::vector<uint8_t> read_all(int fd) {
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    bytes.insert(bytes.end(), buf, buf + n);
  }
  return bytes;
}

// A forked child computing one SimulationResult; finish() collects it.
class ChildSimulation {
 public:
  ChildSimulation(std::string what, const std::function<SimulationResult()>& body) : what_(std::move(what)) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("simulate: pipe() failed");
    // The child inherits unflushed stdio buffers; SimGrid flushes them, which would print twice.
    std::cout.flush();
    std::fflush(nullptr);
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("simulate: fork() failed");
    if (pid_ == 0) {
      close(fds[0]);
      json reply;
      try {
        reply = {{"ok", to_json(body())}};
      } catch (const InputError& e) {
        const InputErrorInfo& i = e.info();
        reply = {{"input_error", {i.file, i.line, i.field, i.expected, i.found}}};
      } catch (const std::exception& e) {
        reply = {{"error", e.what()}};
      }
      write_all(fds[1], json::to_msgpack(reply));
      close(fds[1]);
      _exit(0);  // skip SimGrid's and the parent's static destructors
    }
    close(fds[1]);
    fd_ = fds[0];
  }

  // Returns what the child's body returned, or rethrows what it threw.
  SimulationResult finish() {
    const std::vector<uint8_t> bytes = read_all(fd_);
    close(fd_);
    int status = 0;
    waitpid(pid_, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || bytes.empty())
      throw std::runtime_error(fmt::format("simulation of '{}' failed in its child process (status {})", what_, status));
    const json reply = json::from_msgpack(bytes);
    if (reply.contains("input_error")) {
      const json& i = reply["input_error"];
      throw InputError({i[0], i[1], i[2], i[3], i[4]});
    }
    if (reply.contains("error")) throw std::runtime_error(reply["error"].get<std::string>());
    return from_json(reply["ok"]);
  }

 private:
  std::string what_;
  pid_t pid_ = -1;
  int fd_ = -1;
};

SimulationResult run_in_child(const std::string& what, const std::function<SimulationResult()>& body) {
  return ChildSimulation(what, body).finish();
}

std::string efficiency_source(const Scenario& s) { return calibration_provenance(s); }

std::function<SimulationResult()> simulation_body(const Scenario& s, const ComputeModel& compute,
                                                  const SimulationOptions& options) {
  return [&s, compute, options] {
    const Workload workload = build_workload(s, compute);
    TopologySpec topology = s.cluster.topology;
    topology.node = calibrated_node(s);
    return run_simgrid(topology, s.cluster.nodes, compute.peak_flops(), workload, s.events, options);
  };
}

}  // namespace

SimulationResult simulate_workload(const TopologySpec& topology, int nodes, double gpu_speed_flops,
                                   const Workload& workload, const std::vector<Event>& events,
                                   const SimulationOptions& options) {
  return run_in_child(topology.name, [&] {
    return run_simgrid(topology, nodes, gpu_speed_flops, workload, events, options);
  });
}

ComputeModel compute_model_of(const Scenario& s) { return calibrated_compute_model(s); }

SimulationResult simulate(const Scenario& s, const SimulationOptions& options) {
  const ComputeModel compute = compute_model_of(s);
  SimulationResult result = run_in_child(s.name, simulation_body(s, compute, options));
  result.efficiency_source = efficiency_source(s);
  return result;
}

std::vector<SimulationOutcome> simulate_many(const std::vector<Scenario>& scenarios, int parallel) {
  std::vector<SimulationOutcome> outcomes(scenarios.size());
  for (size_t first = 0; first < scenarios.size(); first += size_t(std::max(1, parallel))) {
    const size_t last = std::min(scenarios.size(), first + size_t(std::max(1, parallel)));
    std::vector<std::pair<size_t, ChildSimulation>> running;
    for (size_t i = first; i < last; ++i) {
      try {
        const ComputeModel compute = compute_model_of(scenarios[i]);
        running.emplace_back(i, ChildSimulation(scenarios[i].name, simulation_body(scenarios[i], compute, {})));
      } catch (const std::exception& e) {
        outcomes[i].error = e.what();
      }
    }
    for (auto& [i, child] : running) {
      try {
        outcomes[i].result = child.finish();
        outcomes[i].result->efficiency_source = efficiency_source(scenarios[i]);
      } catch (const std::exception& e) {
        outcomes[i].error = e.what();
      }
    }
  }
  return outcomes;
}

}  // namespace dtsim
