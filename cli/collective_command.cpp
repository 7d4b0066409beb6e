#include "collective_command.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <map>
#include <stdexcept>

#include "collective_sweep.hpp"
#include "flag_values.hpp"
#include "input_error.hpp"
#include "size_limits.hpp"

namespace dtsim {

namespace {

const std::map<std::string, CollectiveKind> kOps = {
    {"all_reduce", CollectiveKind::all_reduce}, {"all_gather", CollectiveKind::all_gather},
    {"reduce_scatter", CollectiveKind::reduce_scatter}, {"broadcast", CollectiveKind::broadcast},
    {"alltoall", CollectiveKind::all_to_all}, {"sendrecv", CollectiveKind::send_recv}};
const std::map<std::string, CollectiveAlgorithm> kAlgorithms = {
    {"auto", CollectiveAlgorithm::automatic}, {"ring", CollectiveAlgorithm::ring},
    {"tree", CollectiveAlgorithm::tree}, {"rhd", CollectiveAlgorithm::recursive_halving_doubling},
    {"hierarchical", CollectiveAlgorithm::hierarchical}, {"nvls", CollectiveAlgorithm::nvls},
    {"nvls_tree", CollectiveAlgorithm::nvls_tree}, {"direct", CollectiveAlgorithm::direct}};
const std::map<std::string, Protocol> kProtocols = {
    {"auto", Protocol::automatic}, {"LL", Protocol::ll}, {"LL128", Protocol::ll128}, {"Simple", Protocol::simple}};

template <class T>
std::vector<std::string> keys(const std::map<std::string, T>& m) {
  std::vector<std::string> k;
  for (const auto& [name, value] : m) k.push_back(name);
  return k;
}

// Sizes in one sweep: nccl-tests' default (-b 8 -e 8G -f 2) has 31.
constexpr size_t kMaxSweepSizes = 1000;
// The largest message: 1 TiB, beyond any GPU's memory.
constexpr double kMaxMessageBytes = double(1ULL << 40);

// "8", "64K", "8M", "8G": bytes, powers of 1024 as nccl-tests reads them.
double parse_size(const std::string& flag, const std::string& text) {
  const std::map<std::string, double> scale = {{"", 1}, {"K", 1024}, {"M", 1 << 20}, {"G", 1 << 30}};
  const size_t digits = text.find_first_not_of("0123456789.eE+-");
  const std::string number = text.substr(0, digits), suffix = digits == std::string::npos ? "" : text.substr(digits);
  const std::string expected = "a size in bytes such as 8, 64K, 8M or 8G, from 1 B to 1 TiB";
  if (!scale.count(suffix)) flag_error(flag, expected, "'" + text + "'");
  const double bytes = number_flag(flag, number, 0, kMaxMessageBytes, expected) * scale.at(suffix);
  if (!(bytes >= 1 && bytes <= kMaxMessageBytes)) flag_error(flag, expected, "'" + text + "'");
  return bytes;
}

}  // namespace

void add_collective_options(CLI::App& command, CollectiveOptions& o, const std::string& default_topology) {
  o.topology_file = default_topology;
  command.add_option("topology", o.topology_file, "topology YAML (default: topologies/dgx-h100-ndr-fattree.yaml)");
  command.add_option("--op", o.op, "collective")->check(CLI::IsMember(keys(kOps)));
  command.add_option("-g,--gpus", o.gpus, "GPUs in the communicator (up to a node, or whole nodes)");
  command.add_option("-b,--minbytes", o.min_bytes, "smallest size (nccl-tests -b)");
  command.add_option("-e,--maxbytes", o.max_bytes, "largest size (nccl-tests -e)");
  command.add_option("-f,--stepfactor", o.step_factor, "size multiplier (nccl-tests -f)");
  command.add_option("--algo", o.algorithm, "algorithm (auto = NCCL-like choice)")->check(CLI::IsMember(keys(kAlgorithms)));
  command.add_option("--proto", o.protocol, "protocol (auto = NCCL-like choice)")->check(CLI::IsMember(keys(kProtocols)));
}

int run_collective_command(const CollectiveOptions& o) {
  const int gpus = int(integer_flag("--gpus", o.gpus, 2, kMaxGpus,
                                    fmt::format("2 to {} GPUs (the largest cluster dtsim simulates)", kMaxGpus)));
  const double step_factor = number_flag("--stepfactor", o.step_factor, 1.0001, 1e9);
  const TopologySpec topo = load_topology(o.topology_file);
  CollectiveSweepRequest request;
  request.kind = kOps.at(o.op);
  request.gpus = gpus;
  request.algorithm = kAlgorithms.at(o.algorithm);
  request.protocol = kProtocols.at(o.protocol);
  const double min_bytes = parse_size("--minbytes", o.min_bytes), max_bytes = parse_size("--maxbytes", o.max_bytes);
  if (max_bytes < min_bytes) flag_error("--maxbytes", fmt::format("at least --minbytes ({})", o.min_bytes), o.max_bytes);
  const double sizes = std::floor(std::log(max_bytes / min_bytes) / std::log(step_factor) + 1e-9) + 1;
  if (sizes > kMaxSweepSizes)
    flag_error("--stepfactor",
               fmt::format("a factor giving at most {} sizes from {} to {} (at least {:.4g})", kMaxSweepSizes,
                           o.min_bytes, o.max_bytes, std::pow(max_bytes / min_bytes, 1.0 / (kMaxSweepSizes - 1))),
               fmt::format("{:g} ({:.0f} sizes)", step_factor, sizes));
  request.sizes_bytes = size_sweep(min_bytes, max_bytes, step_factor);
  // Rows come out as they are simulated (as nccl-tests prints them): large communicators take a
  // while per size.
  std::cout << nccl_tests_header(topo, request) << std::flush;
  std::vector<CollectivePoint> points;
  try {
    points = simulate_collective_sweep(topo, request, [&](const CollectivePoint& p) {
      std::cout << nccl_tests_row(request, p) << std::flush;
    });
  } catch (const std::invalid_argument& e) {
    flag_error("--algo/--proto", "an algorithm and protocol that can run this collective", e.what());
  }
  std::cout << nccl_tests_footer(points);
  return 0;
}

}  // namespace dtsim
