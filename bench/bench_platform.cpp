// How long building each stock topology's SimGrid platform takes, at 16,384 GPUs (2048 nodes of
// 8) or the fabric's capacity when smaller, with one sample route from GPU 0 to the last GPU.
//   dtsim_bench_platform [--gpus N] [topology.yaml ...]   (default: every topologies/*.yaml)
// SimGrid 3.32 allows one Engine per process, so each build runs in a forked child.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "platform_builder.hpp"
#include "topology_spec.hpp"

namespace {

namespace fs = std::filesystem;
namespace sg4 = simgrid::s4u;

struct Measurement {
  double build_s = -1;
  double route_latency_s = 0;
  double route_links = 0;
  double total_links = 0;
};

Measurement measure_in_child(const dtsim::TopologySpec& topo, int nodes) {
  int argc = 2;
  char arg0[] = "bench", arg1[] = "--log=root.thres:critical";
  char* argv[] = {arg0, arg1, nullptr};
  sg4::Engine engine(&argc, argv);
  dtsim::configure_network_model(engine);
  const auto start = std::chrono::steady_clock::now();
  const dtsim::Platform platform = dtsim::build_platform(topo, nodes, 1e12);
  Measurement m;
  m.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<sg4::Link*> links;
  platform.gpus.front()->route_to(platform.gpus.back(), links, &m.route_latency_s);
  m.route_links = double(links.size());
  m.total_links = double(engine.get_link_count());
  return m;
}

// Runs the measurement in a child and reads its figures back through a pipe.
Measurement measure(const dtsim::TopologySpec& topo, int nodes) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    Measurement m;
    try {
      m = measure_in_child(topo, nodes);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", topo.name.c_str(), e.what());
    }
    const ssize_t written = write(fds[1], &m, sizeof m);
    _exit(written == ssize_t(sizeof m) ? 0 : 1);
  }
  close(fds[1]);
  Measurement m;
  if (read(fds[0], &m, sizeof m) != ssize_t(sizeof m)) m = {};
  close(fds[0]);
  waitpid(child, nullptr, 0);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  long target_gpus = 16384;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--gpus" && i + 1 < argc)
      target_gpus = std::stol(argv[++i]);
    else
      files.emplace_back(arg);
  }
  if (files.empty()) {
    for (const auto& entry : fs::directory_iterator(fs::path(DTSIM_SOURCE_DIR) / "topologies"))
      if (entry.path().extension() == ".yaml") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
  }
  std::printf("%-28s %-15s %6s %7s %8s %9s %13s %11s\n", "topology", "fabric", "nodes", "GPUs", "links", "build_s",
              "route_lat_us", "route_links");
  for (const fs::path& file : files) {
    const dtsim::TopologySpec topo = dtsim::load_topology(file);
    // Enough nodes for target_gpus (2048 nodes of 8 GPUs), capped at the fabric's capacity.
    long nodes = (target_gpus + topo.node.gpus - 1) / topo.node.gpus;
    if (topo.fabric.capacity_nodes() > 0) nodes = std::min(nodes, topo.fabric.capacity_nodes());
    const Measurement m = measure(topo, int(nodes));
    if (m.build_s < 0) {
      std::printf("%-28s build failed\n", topo.name.c_str());
      continue;
    }
    std::printf("%-28s %-15s %6ld %7ld %8.0f %9.2f %13.1f %11.0f\n", topo.name.c_str(), dtsim::to_string(topo.fabric.kind),
                nodes, nodes * topo.node.gpus, m.total_links, m.build_s, m.route_latency_s * 1e6, m.route_links);
    std::fflush(stdout);
  }
  return 0;
}
