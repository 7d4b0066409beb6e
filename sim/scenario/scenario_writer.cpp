#include "scenario_writer.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <stdexcept>

#include "field_override_yaml.hpp"
#include "transformer_config.hpp"
#include "input_error.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

namespace fs = std::filesystem;

namespace {

// ", start_s: 1, end_s: 2", leaving out the defaults (0 and to the end).
std::string window(double start_s, double end_s) {
  std::string w;
  if (start_s != 0) w += fmt::format(", start_s: {}", start_s);
  if (end_s < kForever_s) w += fmt::format(", end_s: {}", end_s);
  return w;
}

std::string to_yaml(const StragglerEvent& e) {
  if (e.node >= 0) return fmt::format("{{type: slow_node, node: {}, slowdown: {}{}}}", e.node, e.slowdown, window(e.start_s, e.end_s));
  return fmt::format("{{type: straggler, gpu: {}, slowdown: {}{}}}", e.gpu, e.slowdown, window(e.start_s, e.end_s));
}

std::string to_yaml(const SlowLinkEvent& e) {
  const std::string where = e.link == EventLink::nic ? fmt::format("link: nic, node: {}, nic: {}", e.node, e.nic)
                                                     : fmt::format("link: nvlink, gpu: {}", e.gpu);
  return fmt::format("{{type: slow_link, {}, bandwidth_fraction: {}{}}}", where, e.bandwidth_fraction,
                     window(e.start_s, e.end_s));
}

std::string to_yaml(const ResourceFailureEvent& e) {
  std::string what;
  switch (e.resource) {
    case FailedResource::gpu: what = fmt::format("resource: gpu, gpu: {}", e.gpu); break;
    case FailedResource::node: what = fmt::format("resource: node, node: {}", e.node); break;
    case FailedResource::nic: what = fmt::format("resource: nic, node: {}, nic: {}", e.node, e.nic); break;
    case FailedResource::nvlink: what = fmt::format("resource: nvlink, gpu: {}", e.gpu); break;
    case FailedResource::leaf_switch: what = fmt::format("resource: leaf_switch, leaf: {}", e.leaf); break;
  }
  return fmt::format("{{type: failure, {}, at_s: {}}}", what, e.at_s);
}

std::string to_yaml(const BackgroundTrafficEvent& e) {
  return fmt::format("{{type: background_traffic, from_node: {}, to_node: {}, rate_GBps: {}{}}}", e.from_node,
                     e.to_node, e.rate_Bps / 1e9, window(e.start_s, e.end_s));
}

// A string as a double-quoted YAML scalar (names and paths may hold ':' or '#').
std::string quoted(const std::string& text) {
  YAML::Emitter e;
  e << YAML::DoubleQuoted << text;
  return e.c_str();
}

// A relative path of the scenario at `from` rewritten to name the same file from `to`'s folder.
void rebase_path(YAML::Node map, const char* key, const fs::path& from, const fs::path& to) {
  if (!map.IsMap() || !map[key] || !map[key].IsScalar()) return;
  const fs::path value = map[key].as<std::string>();
  if (value.is_absolute()) return;
  const fs::path target = fs::weakly_canonical(fs::absolute(from).parent_path() / value);
  const fs::path folder = fs::weakly_canonical(fs::absolute(to).parent_path());
  map[key] = target.lexically_relative(folder).generic_string();
}

}  // namespace

std::string event_to_yaml(const Event& e) {
  return std::visit([](const auto& x) { return to_yaml(x); }, e);
}

std::string events_to_yaml(const std::vector<Event>& events) {
  std::string out = "[";
  for (size_t i = 0; i < events.size(); ++i) out += (i ? ", " : "") + event_to_yaml(events[i]);
  return out + "]";
}

std::string scenario_yaml(const fs::path& file, const std::vector<FieldOverride>& overrides,
                          const fs::path& destination) {
  if (!fs::is_regular_file(file)) throw InputError({file.string(), 0, "", "an existing file", file.string()});
  YAML::Node root = YamlFields(file).load();
  for (const FieldOverride& o : overrides) apply_field_override(file, root, o);
  if (root.IsMap()) {
    if (root["cluster"]) rebase_path(root["cluster"], "topology", file, destination);
    if (root["model"]) rebase_path(root["model"], "hf_config", file, destination);
    if (root["model"]) rebase_path(root["model"], "layers_file", file, destination);
    rebase_path(root, "calibration", file, destination);
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::string scenario_to_yaml(const Scenario& s, const std::string& comment) {
  if (s.layer_model || s.input_pipeline) throw std::invalid_argument("scenario_to_yaml writes transformer scenarios");
  const TransformerConfig& m = s.model;
  const bool preset = find_model_preset(m.name).has_value();
  std::string out;
  for (size_t start = 0; start < comment.size();) {
    const size_t end = std::min(comment.find('\n', start), comment.size());
    out += "# " + comment.substr(start, end - start) + "\n";
    start = end + 1;
  }
  out += fmt::format("name: {}\nmodel:\n", quoted(preset ? s.name : m.name));
  if (preset) out += fmt::format("  preset: {}\n", m.name);
  out += fmt::format("  layers: {}\n  hidden: {}\n  heads: {}\n  kv_heads: {}\n  ffn_hidden: {}\n  seq_len: {}\n"
                     "  vocab: {}\n  mlp: {}\n  dropout: {}\n  tied_embeddings: {}\n",
                     m.layers, m.hidden, m.heads, m.kv_heads, m.ffn_hidden, m.seq_len, m.vocab,
                     m.mlp == MlpKind::swiglu ? "swiglu" : "gelu", m.dropout, m.tied_embeddings);
  if (m.norm) out += fmt::format("  norm: {}\n", to_string(*m.norm));
  if (m.position) out += fmt::format("  position: {}\n", to_string(*m.position));
  if (m.bias) out += fmt::format("  bias: {}\n", *m.bias);
  if (m.fused_qkv) out += fmt::format("  fused_qkv: {}\n", *m.fused_qkv);
  if (m.moe.enabled())
    out += fmt::format("  moe: {{experts: {}, top_k: {}, expert_ffn_hidden: {}, capacity_factor: {}}}\n", m.moe.experts,
                       m.moe.top_k, m.moe.expert_ffn_hidden, m.moe.capacity_factor);
  const TrainingConfig& t = s.training;
  out += fmt::format("training:\n  global_batch: {}\n  micro_batch: {}\n  precision: {}\n  recompute: {}\n"
                     "  attention: {}\n  fp8_recipe: {}\n  optimizer: {}\n  cross_entropy: {}\n  cuda_graphs: {}\n"
                     "  framework: {}\n  mixed_precision: {}\n",
                     t.global_batch, t.micro_batch, to_string(t.precision), to_string(t.recompute), to_string(t.attention),
                     to_string(t.fp8_recipe), to_string(t.optimizer), to_string(t.cross_entropy), t.cuda_graphs,
                     to_string(t.framework), to_string(t.mixed_precision));
  if (t.recompute_layers > 0) out += fmt::format("  recompute_layers: {}\n", t.recompute_layers);
  if (t.recompute_reentrant) out += "  recompute_reentrant: true\n";
  if (t.loss_metrics > 0) out += fmt::format("  loss_metrics: {}\n", t.loss_metrics);
  if (t.attention_varlen) out += "  attention_varlen: true\n";
  if (t.memory_format != MemoryFormat::automatic)
    out += fmt::format("  memory_format: {}\n", to_string(t.memory_format));
  const ParallelismConfig& p = s.parallelism;
  out += fmt::format("parallelism:\n  tp: {}\n  cp: {}\n  pp: {}\n  dp: {}\n  ep: {}\n  schedule: {}\n"
                     "  virtual_stages: {}\n  sequence_parallel: {}\n  tp_comm_overlap: {}\n  zero_stage: {}\n"
                     "  overlap_grad_reduce: {}\n  overlap_param_gather: {}\n  grad_reduce_in_bf16: {}\n"
                     "  fp8_weight_all_gather: {}\n  fp8_tp_all_gather: {}\n  bucket_mb: {}\n  fsdp_prefetch: {}\n"
                     "  fsdp_version: {}\n",
                     p.tp, p.cp, p.pp, p.dp, p.ep, to_string(p.schedule), p.virtual_stages, p.sequence_parallel,
                     p.tp_comm_overlap, p.zero_stage, p.overlap_grad_reduce, p.overlap_param_gather,
                     p.grad_reduce_in_bf16, p.fp8_weight_all_gather, p.fp8_tp_all_gather, p.bucket_mb,
                     p.fsdp_prefetch, p.fsdp_version);
  if (p.first_stage_layers > 0) out += fmt::format("  first_stage_layers: {}\n", p.first_stage_layers);
  if (p.last_stage_layers > 0) out += fmt::format("  last_stage_layers: {}\n", p.last_stage_layers);
  const ClusterConfig& c = s.cluster;
  out += fmt::format("cluster:\n  gpu: {}\n  nodes: {}\n  topology: {}\n", c.gpu, c.nodes,
                     quoted(fs::absolute(c.topology_file).lexically_normal().string()));
  if (c.gpu_differs_from_topology) out += "  gpu_differs_from_topology: true\n";
  if (s.calibration_file)
    out += fmt::format("calibration: {}\n", quoted(fs::absolute(*s.calibration_file).lexically_normal().string()));
  if (!s.events.empty()) out += "events: " + events_to_yaml(s.events) + "\n";
  return out;
}

}  // namespace dtsim
