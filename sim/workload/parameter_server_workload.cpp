#include "parameter_server_workload.hpp"

#include <algorithm>

#include "gradient_compression.hpp"
#include "layer_model_costs.hpp"

namespace dtsim {

namespace {

ServerUpdateMode update_mode(UpdateMode m) {
  switch (m) {
    case UpdateMode::sync: return ServerUpdateMode::sync;
    case UpdateMode::async: return ServerUpdateMode::async;
    case UpdateMode::ssp: return ServerUpdateMode::bounded_staleness;
  }
  return ServerUpdateMode::sync;
}

bool hierarchical(const Scenario& s) { return s.data_parallel.strategy == DataParallelStrategy::hierarchical; }

int server_count(const Scenario& s) {
  return s.data_parallel.servers > 0 ? s.data_parallel.servers : s.cluster.nodes;
}

class ProgramWriter {
 public:
  ProgramWriter(const Scenario& s, const WorkloadInputs& in, const ParameterServers& servers, int rank)
      : s_(s), in_(in), servers_(servers), rank_(rank), gpus_per_node_(s.cluster.topology.node.gpus) {}

  RankProgram write() {
    const bool leader = !hierarchical(s_) || rank_ % gpus_per_node_ == 0;
    for (int it = 0; it < servers_.iterations; ++it) {
      if (leader) prog_.tasks.push_back({.kind = TaskKind::ps_pull, .phase = Phase::gradient_sync, .iteration = it});
      if (hierarchical(s_))
        node_collective(CollectiveKind::broadcast, in_.parameter_bytes.front(), Phase::gradient_sync);
      for (int mb = 0; mb < in_.micro_batches; ++mb) {
        compute(in_.forward.front(), Phase::forward, mb, 1);
        if (mb + 1 < in_.micro_batches || hierarchical(s_))
          compute(in_.backward.front(), Phase::backward, mb, 1);
        else
          backward_with_pushes(mb, it);
      }
      if (hierarchical(s_)) {
        node_collective(CollectiveKind::all_reduce, in_.gradient_bytes.front(), Phase::gradient_sync);
        if (leader) push(0, it, whole_model_encode_s());
      }
      if (leader) prog_.tasks.push_back({.kind = TaskKind::ps_wait, .phase = Phase::gradient_sync, .iteration = it});
    }
    return std::move(prog_);
  }

 private:
  void compute(const StagePass& pass, Phase phase, int mb, double share) {
    if (share <= 1e-12 || pass.compute_s <= 0) return;
    prog_.tasks.push_back({.kind = TaskKind::compute, .phase = phase, .micro_batch = mb,
                           .compute_s = pass.compute_s * share, .flops = pass.flops * share});
  }

  // Encodes the bucket's gradients (compression) and sends them.
  void push(int bucket, int iteration, double encode_s) {
    if (encode_s > 0)
      prog_.tasks.push_back({.kind = TaskKind::compute, .phase = Phase::backward, .compute_s = encode_s});
    prog_.tasks.push_back(
        {.kind = TaskKind::ps_push, .phase = Phase::gradient_sync, .iteration = iteration, .ps_bucket = bucket});
  }

  // Each bucket is pushed once the part of the pass that fills it is done.
  void backward_with_pushes(int mb, int iteration) {
    double done = 0;
    for (size_t b = 0; b < in_.gradient_bucket_layout.size(); ++b) {
      compute(in_.backward.front(), Phase::backward, mb, in_.gradient_bucket_layout[b].compute_share);
      done += in_.gradient_bucket_layout[b].compute_share;
      push(int(b), iteration, in_.gradient_bucket_layout[b].encode_s);
    }
    compute(in_.backward.front(), Phase::backward, mb, 1 - done);
  }

  // Hierarchical: the node's leader encodes all the gradients at once; encoding streams through
  // memory, so that costs what the buckets' encodings add up to.
  double whole_model_encode_s() const {
    double t = 0;
    for (const GradientBucket& b : in_.gradient_bucket_layout) t += b.encode_s;
    return t;
  }

  void node_collective(CollectiveKind kind, double bytes, Phase phase) {
    if (gpus_per_node_ < 2 || bytes <= 0) return;
    prog_.tasks.push_back({.kind = TaskKind::collective, .phase = phase, .group = rank_ / gpus_per_node_,
                           .collective = kind, .bytes = bytes});
  }

  const Scenario& s_;
  const WorkloadInputs& in_;
  const ParameterServers& servers_;
  const int rank_;
  const int gpus_per_node_;
  RankProgram prog_;
};

}  // namespace

std::vector<int> tensor_servers(const Scenario& s) {
  const LayerGraph& g = s.layer_model->graph;
  const int count = server_count(s);
  std::vector<int> server_of(g.layers.size(), -1);
  std::vector<double> held_bytes(size_t(count), 0);
  int tensors = 0;
  for (size_t l = 0; l < g.layers.size(); ++l) {
    if (g.layers[l].parameters <= 0) continue;
    const int to = s.data_parallel.sharding == TensorSharding::round_robin
                       ? tensors % count
                       : int(std::min_element(held_bytes.begin(), held_bytes.end()) - held_bytes.begin());
    ++tensors;
    server_of[l] = to;
    held_bytes[size_t(to)] += g.layers[l].parameters * kLayerModelGradientBytes;
  }
  return server_of;
}

ParameterServers parameter_servers(const Scenario& s, const std::vector<GradientBucket>& buckets) {
  const DataParallelConfig& dp = s.data_parallel;
  const LayerGraph& g = s.layer_model->graph;
  const int nodes = s.cluster.nodes, gpus_per_node = s.cluster.topology.node.gpus;
  const int count = server_count(s);
  ParameterServers ps;
  for (int i = 0; i < count; ++i)
    ps.nodes.push_back(dp.placement == ServerPlacement::colocated ? i % nodes : nodes + i);
  const std::vector<int> server_of = tensor_servers(s);
  ps.shard_bytes.assign(size_t(count), 0);
  for (size_t l = 0; l < g.layers.size(); ++l)
    if (server_of[l] >= 0) ps.shard_bytes[size_t(server_of[l])] += g.layers[l].parameters * kLayerModelGradientBytes;
  for (const GradientBucket& b : buckets) {
    std::vector<double>& to = ps.bucket_bytes.emplace_back(size_t(count), 0.0);
    for (int i = b.first_layer; i <= b.last_layer; ++i)
      if (const size_t l = size_t(i); server_of[l] >= 0)
        to[size_t(server_of[l])] += g.layers[l].parameters * kLayerModelGradientBytes;
  }
  const int gpus = s.parallelism.dp;
  for (int rank = 0; rank < gpus; ++rank)
    if (!hierarchical(s) || rank % gpus_per_node == 0) ps.workers.push_back(rank);
  ps.mode = update_mode(dp.mode);
  ps.staleness_bound = dp.staleness_bound;
  ps.backup_workers = dp.backup_workers;
  ps.iterations = dp.iterations > 0 ? dp.iterations : kParameterServerIterations;
  ps.apply_bytes_per_byte = optimizer_bytes_per_parameter(s.layer_model->optimizer) / kLayerModelGradientBytes;
  ps.push_wire_share = push_wire_share(dp);
  ps.decode_bytes_per_byte = server_decode_bytes_per_byte(dp);
  return ps;
}

Workload assemble_parameter_server_workload(const Scenario& s, const WorkloadInputs& in) {
  Workload w;
  std::vector<GradientBucket> pushes = in.gradient_bucket_layout;
  if (hierarchical(s) || pushes.empty()) {  // one push of everything after the node's all-reduce
    const int layers = int(s.layer_model->graph.layers.size());
    pushes = {{.compute_share = 1, .bytes = in.gradient_bytes.front(), .first_layer = 0, .last_layer = layers - 1}};
  }
  w.servers = parameter_servers(s, pushes);
  w.cpu_memory_Bps = s.data_parallel.server_memory_gbs * 1e9;
  w.collective_sm_share = in.collective_sm_share;
  const int gpus_per_node = s.cluster.topology.node.gpus;
  if (hierarchical(s))
    for (int node = 0; node < s.cluster.nodes; ++node) {
      CommGroup& group = w.groups.emplace_back(CommGroup{"node", {}});
      for (int g = 0; g < gpus_per_node; ++g) group.ranks.push_back(node * gpus_per_node + g);
    }
  for (int rank = 0; rank < s.parallelism.dp; ++rank)
    w.ranks.push_back(ProgramWriter(s, in, w.servers, rank).write());
  return w;
}

}  // namespace dtsim
