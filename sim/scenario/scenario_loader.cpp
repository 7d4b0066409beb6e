#include "scenario_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "device_spec.hpp"
#include "field_override_yaml.hpp"
#include "input_file.hpp"
#include "json_input.hpp"
#include "leaf_switches.hpp"
#include "size_limits.hpp"
#include "yaml_fields.hpp"

namespace dtsim {

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "?";
}

const char* to_string(PipelineScheduleKind k) {
  switch (k) {
    case PipelineScheduleKind::gpipe: return "gpipe";
    case PipelineScheduleKind::one_f_one_b: return "1f1b";
    case PipelineScheduleKind::interleaved_1f1b: return "interleaved_1f1b";
    case PipelineScheduleKind::zero_bubble: return "zero_bubble";
  }
  return "?";
}

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string join_list(const std::vector<std::string>& items) {
  std::string list;
  for (const auto& item : items) list += (list.empty() ? "" : ", ") + item;
  return list;
}

// ---------------------------------------------------------------------------------------------
// Consistency checks, shared by load_scenario (which knows line numbers) and
// check_scenario_consistency (which does not).

// Reports a problem with the dotted `field` by throwing InputError (it must not return); the
// reporter adds file and line.
using Fail = std::function<void(const std::string& field, const std::string& expected, const std::string& found)>;

// Every count must be positive before anything is divided by it (scenarios built in code
// skip the loader's type checks).
void check_positive_counts(const Scenario& s, const Fail& fail) {
  const std::pair<const char*, int> counts[] = {
      {"model.layers", s.model.layers},          {"model.hidden", s.model.hidden},
      {"model.heads", s.model.heads},            {"model.kv_heads", s.model.kv_heads},
      {"model.ffn_hidden", s.model.ffn_hidden},  {"model.seq_len", s.model.seq_len},
      {"model.vocab", s.model.vocab},            {"training.global_batch", s.training.global_batch},
      {"training.micro_batch", s.training.micro_batch}, {"parallelism.tp", s.parallelism.tp},
      {"parallelism.pp", s.parallelism.pp},      {"parallelism.dp", s.parallelism.dp},
      {"parallelism.cp", s.parallelism.cp},      {"parallelism.ep", s.parallelism.ep},
      {"parallelism.virtual_stages", s.parallelism.virtual_stages},
      {"cluster.nodes", s.cluster.nodes},        {"cluster.topology", s.cluster.topology.node.gpus},
  };
  for (const auto& [field, value] : counts)
    if (value <= 0) fail(field, "a positive integer", std::to_string(value));
}

// Sizes dtsim can build (size_limits.hpp), checked before anything multiplies counts in int.
void check_sizes(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& p = s.parallelism;
  const long long gpus = 1LL * p.tp * p.cp * p.pp * p.dp;
  if (gpus > kMaxGpus)
    fail("parallelism", fmt::format("tp*cp*pp*dp at most {} GPUs (the largest cluster dtsim simulates)", kMaxGpus),
         fmt::format("{}*{}*{}*{} = {}", p.tp, p.cp, p.pp, p.dp, gpus));
  const long long cluster_gpus = 1LL * s.cluster.nodes * s.cluster.topology.node.gpus;
  if (cluster_gpus > kMaxGpus)
    fail("cluster.nodes",
         fmt::format("at most {} nodes of {} GPUs ({} GPUs, the largest cluster dtsim simulates)",
                     kMaxGpus / s.cluster.topology.node.gpus, s.cluster.topology.node.gpus, kMaxGpus),
         std::to_string(s.cluster.nodes));
  // In double: each factor may be up to 1e9, and their product would overflow any integer.
  const double passes =
      double(gpus) * double(s.training.global_batch / (1LL * p.dp * s.training.micro_batch)) * p.virtual_stages;
  if (passes > double(kMaxRankMicroBatches))
    fail("training.global_batch",
         fmt::format("at most {} micro-batch passes to simulate (GPUs x micro-batches per replica x "
                     "virtual stages), the most dtsim holds in memory",
                     kMaxRankMicroBatches),
         fmt::format("{} ({:.0f} passes)", s.training.global_batch, passes));
}

void require_multiple(const Fail& fail, const std::string& field, int value, int divisor,
                      const std::string& divisor_name) {
  if (value % divisor != 0)
    fail(field, fmt::format("a multiple of {} ({})", divisor_name, divisor), std::to_string(value));
}

void check_model_shape(const TransformerConfig& m, const Fail& fail) {
  require_multiple(fail, "model.hidden", m.hidden, m.heads, "model.heads");
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    fail("model.kv_heads", fmt::format("a divisor of model.heads ({})", m.heads), std::to_string(m.kv_heads));
}

void check_gpu_count(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& par = s.parallelism;
  const int gpus_per_node = s.cluster.topology.node.gpus;
  const int cluster_gpus = s.cluster.nodes * gpus_per_node;
  if (s.gpu_count() == cluster_gpus) return;
  fail("parallelism",
       fmt::format("tp*cp*pp*dp = {} (cluster.nodes {} x {} GPUs per node)", cluster_gpus, s.cluster.nodes,
                   gpus_per_node),
       fmt::format("tp*cp*pp*dp = {}*{}*{}*{} = {}", par.tp, par.cp, par.pp, par.dp, s.gpu_count()));
}

// Layers on the first and last stage may be set apart (Megatron's
// --decoder-first/last-pipeline-num-layers); the rest split evenly over the middle stages.
void check_stage_layers(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& p = s.parallelism;
  const int first = p.first_stage_layers, last = p.last_stage_layers;
  if (first < 0) fail("parallelism.first_stage_layers", "an integer >= 0", std::to_string(first));
  if (last < 0) fail("parallelism.last_stage_layers", "an integer >= 0", std::to_string(last));
  if (first == 0 && last == 0) {
    require_multiple(fail, "model.layers", s.model.layers, p.pp * p.virtual_stages,
                     p.virtual_stages > 1 ? "parallelism.pp x parallelism.virtual_stages" : "parallelism.pp");
    return;
  }
  const std::string field = first > 0 ? "parallelism.first_stage_layers" : "parallelism.last_stage_layers";
  const int set_apart = (first > 0) + (last > 0);
  if (p.virtual_stages > 1) fail(field, "unset with parallelism.virtual_stages > 1", std::to_string(first > 0 ? first : last));
  if (p.pp <= set_apart)
    fail(field, fmt::format("unset unless parallelism.pp > {}", set_apart), std::to_string(first > 0 ? first : last));
  const int rest = s.model.layers - first - last;
  const int middle = p.pp - set_apart;
  if (rest <= 0 || rest % middle != 0)
    fail(field,
         fmt::format("a value leaving the other {} stages a positive multiple of {} layers (model.layers {})",
                     middle, middle, s.model.layers),
         std::to_string(first > 0 ? first : last));
}

void check_schedule(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& p = s.parallelism;
  const bool interleaved = p.schedule == PipelineScheduleKind::interleaved_1f1b;
  if (!interleaved && p.virtual_stages > 1)
    fail("parallelism.virtual_stages", "1 unless parallelism.schedule is interleaved_1f1b",
         std::to_string(p.virtual_stages));
  if (!interleaved) return;
  if (p.virtual_stages < 2)
    fail("parallelism.virtual_stages", "at least 2 with schedule interleaved_1f1b", std::to_string(p.virtual_stages));
  if (p.pp < 2) fail("parallelism.pp", "at least 2 with schedule interleaved_1f1b", std::to_string(p.pp));
  // Megatron-LM requires whole rounds of pp micro-batches for its interleaved schedule.
  if (s.micro_batches_per_replica() % p.pp != 0)
    fail("training.global_batch",
         fmt::format("micro-batches per replica (global_batch / (dp x micro_batch) = {}) a multiple of "
                     "parallelism.pp ({}) for interleaved_1f1b",
                     s.micro_batches_per_replica(), p.pp),
         std::to_string(s.training.global_batch));
}

void check_data_parallel_options(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& p = s.parallelism;
  if (p.zero_stage < 0 || p.zero_stage > 3)
    fail("parallelism.zero_stage", "0, 1, 2 or 3", std::to_string(p.zero_stage));
  if (!(p.bucket_mb > 0)) fail("parallelism.bucket_mb", "a number > 0", fmt::format("{}", p.bucket_mb));
}

// Context parallelism splits every sequence into 2*cp chunks (two per rank, so that causal
// attention work balances); expert parallelism splits each data-parallel group's experts.
void check_context_and_expert_split(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& p = s.parallelism;
  const MoeConfig& moe = s.model.moe;
  if (p.cp > 1) require_multiple(fail, "model.seq_len", s.model.seq_len, 2 * p.cp, "2 x parallelism.cp");
  if (!moe.enabled()) {
    if (p.ep > 1) fail("parallelism.ep", "1 for a dense model (model.moe.experts is 0)", std::to_string(p.ep));
    return;
  }
  if (moe.top_k < 1 || moe.top_k > moe.experts)
    fail("model.moe.top_k", fmt::format("between 1 and model.moe.experts ({})", moe.experts), std::to_string(moe.top_k));
  if (!(moe.capacity_factor > 0))
    fail("model.moe.capacity_factor", "a number > 0", fmt::format("{}", moe.capacity_factor));
  if (moe.expert_ffn_hidden <= 0)
    fail("model.moe.expert_ffn_hidden", "a positive integer", std::to_string(moe.expert_ffn_hidden));
  require_multiple(fail, "model.moe.expert_ffn_hidden", moe.expert_ffn_hidden, p.tp, "parallelism.tp");
  require_multiple(fail, "parallelism.dp", p.dp, p.ep, "parallelism.ep");
  require_multiple(fail, "model.moe.experts", moe.experts, p.ep, "parallelism.ep");
}

// Megatron-style splitting: whole layers per stage, whole heads and FFN columns per TP rank.
void check_model_split(const Scenario& s, const Fail& fail) {
  const TransformerConfig& m = s.model;
  const int tp = s.parallelism.tp;
  require_multiple(fail, "model.heads", m.heads, tp, "parallelism.tp");
  if (m.kv_heads % tp != 0 && tp % m.kv_heads != 0)  // KV heads are split, or replicated
    fail("model.kv_heads", fmt::format("a multiple or a divisor of parallelism.tp ({})", tp),
         std::to_string(m.kv_heads));
  require_multiple(fail, "model.ffn_hidden", m.ffn_hidden, tp, "parallelism.tp");
}

void check_batch_split(const Scenario& s, const Fail& fail) {
  const int dp = s.parallelism.dp;
  const int micro_batch = s.training.micro_batch;
  if (s.training.global_batch % (dp * micro_batch) == 0) return;
  fail("training.global_batch",
       fmt::format("a multiple of parallelism.dp x training.micro_batch = {} x {} = {}", dp, micro_batch,
                   dp * micro_batch),
       std::to_string(s.training.global_batch));
}

void check_device(const Scenario& s, const Fail& fail) {
  const DeviceSpec* device = find_device(s.cluster.gpu);
  if (!device) {
    fail("cluster.gpu", fmt::format("one of [{}]", join_list(device_ids())), "'" + s.cluster.gpu + "'");
    return;
  }
  const Precision precision = s.training.precision;
  if (device->peak_flops(precision) > 0) return;
  fail("training.precision",
       fmt::format("a precision cluster.gpu supports ({} has no {})", device->id, to_string(precision)),
       to_string(precision));
}

// Event targets must exist, factors make sense and windows are ordered.
class EventChecker {
 public:
  EventChecker(const Scenario& s, const Fail& fail, std::string path)
      : s_(s), fail_(fail), path_(std::move(path)), nodes_(s.cluster.nodes) {}

  void operator()(const StragglerEvent& e) const {
    if (e.node >= 0) in_range("node", e.node, nodes_, "a node index");
    else in_range("gpu", e.gpu, s_.gpu_count(), "a GPU rank");
    if (!(e.slowdown >= 1 && e.slowdown <= kMaxSlowdown))
      fail_(path_ + ".slowdown",
            fmt::format("a number in [1, {:g}] (1 = normal speed; a stopped GPU is a failure event)", kMaxSlowdown),
            fmt::format("{}", e.slowdown));
    window(e.start_s, e.end_s);
  }
  void operator()(const SlowLinkEvent& e) const {
    if (e.link == EventLink::nic) {
      in_range("node", e.node, nodes_, "a node index");
      in_range("nic", e.nic, s_.cluster.topology.node.nics, "a NIC index");
    } else {
      in_range("gpu", e.gpu, s_.gpu_count(), "a GPU rank");
    }
    if (!(e.bandwidth_fraction >= 1 / kMaxSlowdown && e.bandwidth_fraction <= 1))
      fail_(path_ + ".bandwidth_fraction",
            fmt::format("a number in [{:g}, 1] (1 = full speed; a dead link is a failure event)", 1 / kMaxSlowdown),
            fmt::format("{}", e.bandwidth_fraction));
    window(e.start_s, e.end_s);
  }
  void operator()(const ResourceFailureEvent& e) const {
    switch (e.resource) {
      case FailedResource::gpu:
      case FailedResource::nvlink: in_range("gpu", e.gpu, s_.gpu_count(), "a GPU rank"); break;
      case FailedResource::node: in_range("node", e.node, nodes_, "a node index"); break;
      case FailedResource::nic:
        in_range("node", e.node, nodes_, "a node index");
        in_range("nic", e.nic, s_.cluster.topology.node.nics, "a NIC index");
        break;
      case FailedResource::leaf_switch: {
        const TopologySpec& topology = s_.cluster.topology;
        if (!has_leaf_switches(topology.fabric.kind))
          fail_(path_ + ".resource", "a failure a fat_tree, spine_leaf or rail_optimized fabric has (leaf_switch)",
                to_string(topology.fabric.kind));
        in_range("leaf", e.leaf, leaf_switch_count(topology, s_.cluster.nodes), "a leaf switch index");
        break;
      }
    }
    time(".at_s", e.at_s);
  }
  void operator()(const BackgroundTrafficEvent& e) const {
    in_range("from_node", e.from_node, nodes_, "a node index");
    in_range("to_node", e.to_node, nodes_, "a node index");
    if (e.from_node == e.to_node) fail_(path_ + ".to_node", "a node other than from_node", std::to_string(e.to_node));
    if (!(e.rate_Bps >= kMinEventRate_Bps && e.rate_Bps <= kMaxEventRate_Bps))
      fail_(path_ + ".rate_GBps", fmt::format("a rate in [{:g}, {:g}] GB/s", kMinEventRate_Bps / 1e9, kMaxEventRate_Bps / 1e9),
            fmt::format("{}", e.rate_Bps / 1e9));
    window(e.start_s, e.end_s);
  }

 private:
  void in_range(const std::string& key, int value, int count, const std::string& what) const {
    if (value < 0 || value >= count) fail_(path_ + "." + key, fmt::format("{} in [0, {})", what, count), std::to_string(value));
  }
  void window(double start_s, double end_s) const {
    time(".start_s", start_s);
    if (end_s != kForever_s) time(".end_s", end_s);
    if (!(end_s > start_s)) fail_(path_ + ".end_s", fmt::format("a time after start_s ({} s)", start_s), fmt::format("{}", end_s));
  }
  void time(const std::string& key, double t_s) const {
    if (!(t_s >= 0 && t_s <= kMaxEventTime_s))
      fail_(path_ + key, fmt::format("a time in [0, {:g}] s", kMaxEventTime_s), fmt::format("{}", t_s));
  }
  const Scenario& s_;
  const Fail& fail_;
  std::string path_;
  int nodes_;
};

void check_events(const Scenario& s, const Fail& fail) {
  for (size_t i = 0; i < s.events.size(); ++i) std::visit(EventChecker(s, fail, fmt::format("events[{}]", i)), s.events[i]);
}

void check_consistency(const Scenario& s, const Fail& fail) {
  check_positive_counts(s, fail);
  check_sizes(s, fail);
  check_model_shape(s.model, fail);
  check_gpu_count(s, fail);
  check_model_split(s, fail);
  check_batch_split(s, fail);
  check_stage_layers(s, fail);
  check_schedule(s, fail);
  check_data_parallel_options(s, fail);
  check_context_and_expert_split(s, fail);
  check_device(s, fail);
  check_events(s, fail);
}

// ---------------------------------------------------------------------------------------------
// Finding the line a dotted field path such as "events[0].gpu" was written on.

// The node a path step names and the line of its key (or list item); nullopt if absent.
std::optional<std::pair<YAML::Node, int>> step_into(const YAML::Node& node, const std::string& step) {
  const size_t bracket = step.find('[');
  const std::string key = step.substr(0, bracket);
  if (!node.IsMap()) return std::nullopt;
  for (const auto& kv : node) {
    if (kv.first.Scalar() != key) continue;
    if (bracket == std::string::npos) return std::make_pair(kv.second, YamlFields::line_of(kv.first));
    const size_t index = std::stoul(step.substr(bracket + 1));
    if (!kv.second.IsSequence() || index >= kv.second.size()) return std::nullopt;
    const YAML::Node item = kv.second[index];
    return std::make_pair(item, YamlFields::line_of(item));
  }
  return std::nullopt;
}

std::optional<int> exact_line_of_field(const YAML::Node& root, const std::string& field) {
  YAML::Node node = root;
  int line = 0;
  size_t start = 0;
  while (start <= field.size()) {
    const size_t dot = std::min(field.find('.', start), field.size());
    const auto next = step_into(node, field.substr(start, dot - start));
    if (!next) return std::nullopt;
    node.reset(next->first);  // rebinds; operator= would overwrite the tree's node
    line = next->second;
    start = dot + 1;
  }
  return line;
}

// The line of `field`, or, when the file does not spell it out (a model shape that came from a
// preset, a defaulted count), of the key it came from or of its nearest written ancestor.
int line_of_field(const YAML::Node& root, const std::string& field) {
  if (const auto line = exact_line_of_field(root, field)) return *line;
  if (field.rfind("model.", 0) == 0)
    for (const char* source : {"model.preset", "model.hf_config"})
      if (const auto line = exact_line_of_field(root, source)) return *line;
  const size_t dot = field.rfind('.');
  return dot == std::string::npos ? 0 : line_of_field(root, field.substr(0, dot));
}

// ---------------------------------------------------------------------------------------------
// Reading the scenario YAML.

fs::path resolve_existing_file(const YamlFields& f, const YAML::Node& map, const std::string& path,
                               const std::string& key) {
  const fs::path written = f.string(map, path, key);
  const fs::path resolved = (f.file().parent_path() / written).lexically_normal();
  if (!is_existing_file(resolved))
    f.fail(map[key], YamlFields::join(path, key), "an existing file", resolved.string());
  return resolved;
}

int non_negative_int(const YamlFields& f, const YAML::Node& map, const std::string& path, const std::string& key) {
  return f.int_in(map, path, key, 0, 1'000'000'000, "an integer >= 0");
}

double finite_number(const YamlFields& f, const YAML::Node& map, const std::string& path, const std::string& key) {
  const double largest = std::numeric_limits<double>::max();
  return f.number_in(map, path, key, -largest, largest, "a number");
}

TransformerConfig read_model_base(const YamlFields& f, const YAML::Node& model) {
  const bool has_preset = f.has(model, "preset");
  const bool has_hf_config = f.has(model, "hf_config");
  if (has_preset && has_hf_config)
    f.fail(model["hf_config"], "model.hf_config", "either model.preset or model.hf_config, not both",
           "both");
  if (has_hf_config) return load_hf_config(resolve_existing_file(f, model, "model", "hf_config"));
  if (has_preset) {
    const std::string name = f.string(model, "model", "preset");
    if (auto preset = find_model_preset(name)) return *preset;
    f.fail(model["preset"], "model.preset", fmt::format("one of [{}]", join_list(model_preset_names())),
           "'" + name + "'");
  }

  // No preset: the shape is spelled out in full.
  TransformerConfig m;
  m.layers = f.positive_int(model, "model", "layers");
  m.hidden = f.positive_int(model, "model", "hidden");
  m.heads = f.positive_int(model, "model", "heads");
  m.kv_heads = m.heads;
  m.ffn_hidden = 4 * m.hidden;
  m.seq_len = f.positive_int(model, "model", "seq_len");
  m.vocab = f.positive_int(model, "model", "vocab");
  m.mlp = MlpKind::gelu;
  return m;
}

MoeConfig read_moe(const YamlFields& f, const YAML::Node& moe, const TransformerConfig& m) {
  f.require_map(moe, "model.moe");
  f.require_known_keys(moe, "model.moe", {"experts", "top_k", "expert_ffn_hidden", "capacity_factor"});
  MoeConfig c = m.moe;
  c.experts = f.positive_int_or(moe, "model.moe", "experts", c.experts);
  c.top_k = f.positive_int_or(moe, "model.moe", "top_k", c.top_k);
  c.expert_ffn_hidden = f.positive_int_or(moe, "model.moe", "expert_ffn_hidden",
                                          c.expert_ffn_hidden > 0 ? c.expert_ffn_hidden : m.ffn_hidden);
  if (f.has(moe, "capacity_factor")) c.capacity_factor = f.positive_number(moe, "model.moe", "capacity_factor");
  if (c.experts == 0) f.fail(moe, "model.moe.experts", "a positive integer", "nothing");
  return c;
}

TransformerConfig read_model(const YamlFields& f, const YAML::Node& model, const std::string& scenario_name) {
  f.require_known_keys(model, "model",
                       {"preset", "hf_config", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "seq_len",
                        "vocab", "mlp", "moe"});
  TransformerConfig m = read_model_base(f, model);
  if (m.name.empty()) m.name = scenario_name;

  const bool multi_head_attention = m.kv_heads == m.heads;  // then overriding heads moves kv_heads along
  m.layers = f.positive_int_or(model, "model", "layers", m.layers);
  m.hidden = f.positive_int_or(model, "model", "hidden", m.hidden);
  m.heads = f.positive_int_or(model, "model", "heads", m.heads);
  m.kv_heads = f.positive_int_or(model, "model", "kv_heads", multi_head_attention ? m.heads : m.kv_heads);
  m.ffn_hidden = f.positive_int_or(model, "model", "ffn_hidden", m.ffn_hidden);
  m.seq_len = f.positive_int_or(model, "model", "seq_len", m.seq_len);
  m.vocab = f.positive_int_or(model, "model", "vocab", m.vocab);
  if (f.has(model, "mlp"))
    m.mlp = f.choice(model, "model", "mlp", {"gelu", "swiglu"}) == "swiglu" ? MlpKind::swiglu : MlpKind::gelu;
  if (f.has(model, "moe")) m.moe = read_moe(f, model["moe"], m);
  return m;
}

TrainingConfig read_training(const YamlFields& f, const YAML::Node& training) {
  f.require_known_keys(training, "training", {"global_batch", "micro_batch", "precision", "recompute"});
  TrainingConfig t;
  t.global_batch = f.positive_int(training, "training", "global_batch");
  t.micro_batch = f.positive_int_or(training, "training", "micro_batch", 1);

  const std::string precision =
      f.choice(training, "training", "precision", {"bf16", "fp16", "fp8", "fp32"}, "bf16");
  for (Precision p : {Precision::bf16, Precision::fp16, Precision::fp8, Precision::fp32})
    if (precision == to_string(p)) t.precision = p;

  const std::string recompute = f.choice(training, "training", "recompute", {"none", "selective", "full"}, "none");
  for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full})
    if (recompute == to_string(r)) t.recompute = r;
  return t;
}

ParallelismConfig read_parallelism(const YamlFields& f, const YAML::Node& root) {
  ParallelismConfig p;
  if (!f.has(root, "parallelism")) return p;
  const YAML::Node par = root["parallelism"];
  f.require_known_keys(par, "parallelism",
                       {"tp", "pp", "dp", "cp", "ep", "schedule", "virtual_stages", "first_stage_layers",
                        "last_stage_layers", "sequence_parallel", "tp_comm_overlap", "zero_stage",
                        "overlap_grad_reduce", "bucket_mb"});
  const std::string at = "parallelism";
  p.tp = f.positive_int_or(par, at, "tp", 1);
  p.pp = f.positive_int_or(par, at, "pp", 1);
  p.dp = f.positive_int_or(par, at, "dp", 1);
  p.cp = f.positive_int_or(par, at, "cp", 1);
  p.ep = f.positive_int_or(par, at, "ep", 1);
  const std::string schedule = f.choice(par, at, "schedule", {"gpipe", "1f1b", "interleaved_1f1b", "zero_bubble"}, "1f1b");
  for (PipelineScheduleKind k : {PipelineScheduleKind::gpipe, PipelineScheduleKind::one_f_one_b,
                                 PipelineScheduleKind::interleaved_1f1b, PipelineScheduleKind::zero_bubble})
    if (schedule == to_string(k)) p.schedule = k;
  p.virtual_stages = f.positive_int_or(par, at, "virtual_stages", 1);
  if (f.has(par, "first_stage_layers")) p.first_stage_layers = non_negative_int(f, par, at, "first_stage_layers");
  if (f.has(par, "last_stage_layers")) p.last_stage_layers = non_negative_int(f, par, at, "last_stage_layers");
  p.sequence_parallel = f.boolean_or(par, at, "sequence_parallel", false);
  p.tp_comm_overlap = f.boolean_or(par, at, "tp_comm_overlap", false);
  if (f.has(par, "zero_stage")) p.zero_stage = non_negative_int(f, par, at, "zero_stage");
  p.overlap_grad_reduce = f.boolean_or(par, at, "overlap_grad_reduce", false);
  if (f.has(par, "bucket_mb")) p.bucket_mb = f.positive_number(par, at, "bucket_mb");
  return p;
}

ClusterConfig read_cluster(const YamlFields& f, const YAML::Node& cluster) {
  f.require_known_keys(cluster, "cluster", {"gpu", "nodes", "topology", "oversubscription"});
  ClusterConfig c;
  c.gpu = f.choice(cluster, "cluster", "gpu", device_ids());
  c.nodes = f.positive_int(cluster, "cluster", "nodes");
  c.topology_file = resolve_existing_file(f, cluster, "cluster", "topology");
  c.topology = load_topology(c.topology_file);
  if (f.has(cluster, "oversubscription")) {  // the topology's fabric.oversubscription, for what-ifs and sweeps
    const FabricKind kind = c.topology.fabric.kind;
    if (kind != FabricKind::fat_tree && kind != FabricKind::rail_optimized)
      f.fail(cluster["oversubscription"], "cluster.oversubscription",
             "no such field for this fabric (fat_tree and rail_optimized only)",
             fmt::format("a {} fabric in {}", to_string(kind), c.topology_file.filename().string()));
    const double ratio = f.number_in(cluster, "cluster", "oversubscription", 1, kMaxOversubscription,
                                     fmt::format("a ratio in [1, {:g}] (leaf down- / up-bandwidth)", kMaxOversubscription));
    c.topology.fabric.oversubscription = ratio;
  }
  const long capacity = c.topology.fabric.capacity_nodes();
  if (capacity > 0 && c.nodes > capacity)
    f.fail(cluster["nodes"], "cluster.nodes",
           fmt::format("at most {} nodes, all that the {} fabric of {} holds", capacity,
                       to_string(c.topology.fabric.kind), c.topology_file.filename().string()),
           std::to_string(c.nodes));
  return c;
}

// [start_s, end_s): both optional (0 and the end of the iteration).
std::pair<double, double> read_window(const YamlFields& f, const YAML::Node& event, const std::string& path) {
  const double start = f.has(event, "start_s") ? finite_number(f, event, path, "start_s") : 0.0;
  const double end = f.has(event, "end_s") ? finite_number(f, event, path, "end_s") : kForever_s;
  return {start, end};
}

Event read_event(const YamlFields& f, const YAML::Node& event, const std::string& path) {
  const std::string type =
      f.choice(event, path, "type", {"straggler", "slow_node", "slow_link", "failure", "background_traffic"});
  if (type == "straggler" || type == "slow_node") {
    const bool node = type == "slow_node";
    f.require_known_keys(event, path, {"type", node ? "node" : "gpu", "slowdown", "start_s", "end_s"});
    StragglerEvent e;
    (node ? e.node : e.gpu) = non_negative_int(f, event, path, node ? "node" : "gpu");
    e.slowdown = finite_number(f, event, path, "slowdown");
    std::tie(e.start_s, e.end_s) = read_window(f, event, path);
    return e;
  }
  if (type == "slow_link") {
    SlowLinkEvent e;
    e.link = f.choice(event, path, "link", {"nic", "nvlink"}) == "nic" ? EventLink::nic : EventLink::nvlink;
    if (e.link == EventLink::nic) {
      f.require_known_keys(event, path, {"type", "link", "node", "nic", "bandwidth_fraction", "start_s", "end_s"});
      e.node = non_negative_int(f, event, path, "node");
      e.nic = non_negative_int(f, event, path, "nic");
    } else {
      f.require_known_keys(event, path, {"type", "link", "gpu", "bandwidth_fraction", "start_s", "end_s"});
      e.gpu = non_negative_int(f, event, path, "gpu");
    }
    e.bandwidth_fraction = finite_number(f, event, path, "bandwidth_fraction");
    std::tie(e.start_s, e.end_s) = read_window(f, event, path);
    return e;
  }
  if (type == "failure") {
    ResourceFailureEvent e;
    const std::string resource = f.choice(event, path, "resource", {"gpu", "node", "nic", "nvlink", "leaf_switch"});
    e.resource = resource == "gpu"      ? FailedResource::gpu
                 : resource == "node"   ? FailedResource::node
                 : resource == "nic"    ? FailedResource::nic
                 : resource == "nvlink" ? FailedResource::nvlink
                                        : FailedResource::leaf_switch;
    if (e.resource == FailedResource::leaf_switch) {
      f.require_known_keys(event, path, {"type", "resource", "leaf", "at_s"});
      e.leaf = non_negative_int(f, event, path, "leaf");
    } else if (e.resource == FailedResource::nic) {
      f.require_known_keys(event, path, {"type", "resource", "node", "nic", "at_s"});
      e.node = non_negative_int(f, event, path, "node");
      e.nic = non_negative_int(f, event, path, "nic");
    } else if (e.resource == FailedResource::node) {
      f.require_known_keys(event, path, {"type", "resource", "node", "at_s"});
      e.node = non_negative_int(f, event, path, "node");
    } else {
      f.require_known_keys(event, path, {"type", "resource", "gpu", "at_s"});
      e.gpu = non_negative_int(f, event, path, "gpu");
    }
    e.at_s = finite_number(f, event, path, "at_s");
    return e;
  }
  f.require_known_keys(event, path, {"type", "from_node", "to_node", "rate_GBps", "start_s", "end_s"});
  BackgroundTrafficEvent e;
  e.from_node = non_negative_int(f, event, path, "from_node");
  e.to_node = non_negative_int(f, event, path, "to_node");
  e.rate_Bps = finite_number(f, event, path, "rate_GBps") * 1e9;
  std::tie(e.start_s, e.end_s) = read_window(f, event, path);
  return e;
}

std::vector<Event> read_events(const YamlFields& f, const YAML::Node& root) {
  std::vector<Event> events;
  if (!f.has(root, "events")) return events;
  const YAML::Node list = root["events"];
  if (!list.IsSequence()) f.fail(list, "events", "a list", YamlFields::describe(list));
  for (size_t i = 0; i < list.size(); ++i) events.push_back(read_event(f, list[i], fmt::format("events[{}]", i)));
  return events;
}

// ---------------------------------------------------------------------------------------------
// Hugging Face config.json.

class HfConfigReader {
 public:
  HfConfigReader(fs::path file, json config) : file_(std::move(file)), config_(std::move(config)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& expected, const std::string& found) const {
    throw InputError({file_.string(), 0, key, expected, found});
  }

  bool has(const std::string& key) const { return config_.contains(key) && !config_[key].is_null(); }

  // The first of `keys` present (GPT-2 configs name things differently from Llama ones).
  int positive_int(std::initializer_list<const char*> keys) const {
    for (const char* key : keys) {
      if (!has(key)) continue;
      const json& value = config_[key];
      if (!value.is_number_integer() || value.get<long long>() <= 0 || value.get<long long>() > 1'000'000'000)
        fail(key, "a positive integer", value.dump());
      return value.get<int>();
    }
    fail(*keys.begin(), "a positive integer (this key is required)", "nothing");
  }

  int positive_int_or(const char* key, int fallback) const { return has(key) ? positive_int({key}) : fallback; }

  std::string string_or(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!config_[key].is_string()) fail(key, "a string", config_[key].dump());
    return config_[key].get<std::string>();
  }

 private:
  fs::path file_;
  json config_;
};

}  // namespace

TransformerConfig load_hf_config(const fs::path& file) {
  const json config = parse_json_input(file);
  if (!config.is_object()) throw InputError({file.string(), 0, "", "a JSON object", config.type_name()});
  const HfConfigReader hf(file, config);

  TransformerConfig m;
  m.name = hf.string_or("_name_or_path", file.stem().string());
  if (m.name.empty()) m.name = file.stem().string();
  m.hidden = hf.positive_int({"hidden_size", "n_embd"});
  m.layers = hf.positive_int({"num_hidden_layers", "n_layer"});
  m.heads = hf.positive_int({"num_attention_heads", "n_head"});
  m.kv_heads = hf.positive_int_or("num_key_value_heads", m.heads);
  m.ffn_hidden = hf.has("intermediate_size") ? hf.positive_int({"intermediate_size"})
                                              : hf.positive_int_or("n_inner", 4 * m.hidden);
  m.vocab = hf.positive_int({"vocab_size"});
  m.seq_len = hf.positive_int({"max_position_embeddings", "n_positions"});
  m.mlp = hf.string_or("hidden_act", "") == "silu" ? MlpKind::swiglu : MlpKind::gelu;

  if (m.hidden % m.heads != 0)
    hf.fail("hidden_size", fmt::format("a multiple of num_attention_heads ({})", m.heads),
            std::to_string(m.hidden));
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    hf.fail("num_key_value_heads", fmt::format("a divisor of num_attention_heads ({})", m.heads),
            std::to_string(m.kv_heads));
  return m;
}

void check_scenario_consistency(const Scenario& s) {
  const std::string file = s.source_file.empty() ? std::string("<scenario>") : s.source_file.string();
  check_consistency(s, [&](const std::string& field, const std::string& expected, const std::string& found) {
    throw InputError({file, 0, field, expected, found});
  });
}

// Sets `path` (dotted mapping keys) of `root` to `value` parsed as YAML.
void apply_field_override(const fs::path& file, YAML::Node root, const FieldOverride& o) {
  std::vector<std::string> keys;
  for (size_t start = 0;;) {
    const size_t dot = o.path.find('.', start);
    keys.push_back(o.path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  YAML::Node node = root;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].empty() || !node.IsMap())
      throw InputError({file.string(), 0, o.path, "a dotted path of mapping keys (e.g. parallelism.tp)", o.path});
    if (i + 1 == keys.size()) {
      try {
        node[keys[i]] = YAML::Load(o.value);
      } catch (const YAML::Exception& e) {
        throw InputError({file.string(), 0, o.path, "a YAML value", "'" + o.value + "'"});
      }
    } else {
      if (!node[keys[i]]) node[keys[i]] = YAML::Node(YAML::NodeType::Map);
      node.reset(node[keys[i]]);
    }
  }
}

Scenario load_scenario(const fs::path& file) { return load_scenario(file, {}); }

Scenario load_scenario(const fs::path& file, const std::vector<FieldOverride>& overrides) {
  const YamlFields f(file);
  const YAML::Node root = f.load();
  for (const FieldOverride& o : overrides) apply_field_override(file, root, o);
  if (!overrides.empty()) f.check_tree(root);
  f.require_known_keys(root, "",
                       {"name", "model", "training", "parallelism", "cluster", "calibration", "events",
                        "reliability"});  // reliability: read by `dtsim goodput` (reliability_config.hpp)

  Scenario s;
  s.source_file = file;
  s.name = f.string(root, "", "name");
  s.model = read_model(f, f.child(root, "", "model"), s.name);
  s.training = read_training(f, f.child(root, "", "training"));
  s.parallelism = read_parallelism(f, root);
  s.cluster = read_cluster(f, f.child(root, "", "cluster"));
  if (f.has(root, "calibration")) s.calibration_file = resolve_existing_file(f, root, "", "calibration");
  s.events = read_events(f, root);

  check_consistency(s, [&](const std::string& field, const std::string& expected, const std::string& found) {
    throw InputError({file.string(), line_of_field(root, field), field, expected, found});
  });
  return s;
}

}  // namespace dtsim
