#include "data_parallel_run.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "device_spec.hpp"
#include "enum_names.hpp"
#include "layer_model_section.hpp"
#include "scenario_consistency.hpp"
#include "size_limits.hpp"
#include "yaml_choice.hpp"
#include "yaml_field_lines.hpp"

namespace dtsim {

namespace {

// Precisions as the sources name them: tf32 is what fp32 matmuls and convolutions run at on
// A100 (DeviceSpec::fp32_flops); amp is PyTorch's or TensorFlow's automatic mixed precision,
// fp16 products with fp32 master weights and gradients (layer_model_costs.hpp).
Precision read_published_precision(const YamlFields& f, const YAML::Node& training, const std::string& at) {
  const std::string p = f.choice(training, at, "precision", {"fp32", "tf32", "amp", "fp16", "bf16"}, "fp32");
  if (p == "fp32" || p == "tf32") return Precision::fp32;
  if (p == "bf16") return Precision::bf16;
  return Precision::fp16;
}

// The node of the GPU type's topology file, with the run's GPUs per node and network.
ClusterConfig read_cluster(const YamlFields& f, const YAML::Node& run, const std::string& path,
                           const std::filesystem::path& topologies_dir, std::string& not_modelled) {
  ClusterConfig c;
  c.gpu = f.choice(run, path, "gpu", device_ids());
  const int gpus = f.int_in(run, path, "gpus", 1, int(kMaxGpus));
  const int gpus_per_node = f.has(run, "gpus_per_node") ? f.int_in(run, path, "gpus_per_node", 1, kMaxGpusPerNode) : 0;
  c.topology_file = default_topology_for(c.gpu, topologies_dir, gpus_per_node);
  c.topology = load_topology(c.topology_file);
  NodeSpec& node = c.topology.node;
  if (gpus_per_node > 0) node.gpus = gpus_per_node;
  if (gpus % node.gpus != 0 && gpus > node.gpus)
    f.fail(run["gpus"], YamlFields::join(path, "gpus"), fmt::format("a multiple of gpus_per_node ({})", node.gpus),
           std::to_string(gpus));
  if (gpus < node.gpus) node.gpus = gpus;  // part of one node
  c.nodes = gpus / node.gpus;
  if (f.has(run, "network")) {
    const YAML::Node net = run["network"];
    const std::string at = YamlFields::join(path, "network");
    f.require_map(net, at);
    f.require_known_keys(net, at, {"nic_gbps", "nics_per_node", "transport"});
    if (f.has(net, "nic_gbps"))
      node.nic_bw_Bps = f.number_in(net, at, "nic_gbps", 0.001, 1e5, "a NIC speed in Gb/s") * 1e9 / 8;
    if (f.has(net, "nics_per_node")) node.nics = f.int_in(net, at, "nics_per_node", 1, kMaxGpusPerNode);
    if (f.choice(net, at, "transport", {"rdma", "tcp"}, "rdma") == "tcp")
      not_modelled = "TCP transport (NIC latency and bandwidth as RDMA)";
  }
  return c;
}

// The raw text of run[section][key], or "" when absent or null (unpublished).
std::string raw_field(const YAML::Node& run, const char* section, const char* key) {
  if (!run[section] || !run[section].IsMap()) return "";
  const YAML::Node value = run[section][key];
  return value && value.IsScalar() ? value.Scalar() : "";
}

}  // namespace

std::string data_parallel_run_skip_reason(const YamlFields& f, const YAML::Node& run) {
  if (!f.has(run, "gpu")) return "GPU unpublished";
  if (!f.has(run, "training") || !f.has(run["training"], "batch_per_gpu")) return "batch per GPU unpublished";
  const std::string strategy = raw_field(run, "data_parallel", "strategy");
  const std::vector<std::string> modelled = names_of(kDataParallelStrategies);
  if (!strategy.empty() && std::find(modelled.begin(), modelled.end(), strategy) == modelled.end())
    return fmt::format("strategy {} not modelled yet", strategy);
  return "";
}

bool is_data_parallel_run(const YamlFields& f, const YAML::Node& run) {
  return run.IsMap() && f.has(run, "model") && is_layer_model_section(f, run["model"]);
}

PublishedRun read_data_parallel_run(const YamlFields& f, const YAML::Node& root, const YAML::Node& run,
                                    const std::string& path, const std::filesystem::path& topologies_dir) {
  PublishedRun out;
  Scenario& s = out.scenario;
  f.require_known_keys(run, path,
                       {"id", "source", "notes", "gpu", "gpus", "gpus_per_node", "network", "model", "training",
                        "data_parallel", "reference", "measured", "framework", "software"});
  if (f.has(run, "software")) f.require_map(run["software"], YamlFields::join(path, "software"));
  out.source = f.string(run, path, "source");
  if (f.has(run, "notes")) f.string(run, path, "notes");
  s.name = f.string(run, path, "id");
  s.source_file = f.file();
  s.cluster = read_cluster(f, run, path, topologies_dir, out.not_modelled);
  s.layer_model = read_layer_model_section(f, f.child(run, path, "model"), path);
  s.model.name = s.layer_model->graph.name;

  const std::string tp = YamlFields::join(path, "training");
  const YAML::Node training = f.child(run, path, "training");
  f.require_known_keys(training, tp, {"batch_per_gpu", "precision", "memory_format"});
  if (!f.has(training, "precision")) out.not_modelled = "precision unpublished: read as fp32";
  const int gpus = s.cluster.nodes * s.cluster.topology.node.gpus;
  s.training.micro_batch = f.positive_int(training, tp, "batch_per_gpu");
  s.training.global_batch = s.training.micro_batch * gpus;
  s.training.precision = read_published_precision(f, training, tp);
  s.training.memory_format = read_choice(f, training, tp, "memory_format", kMemoryFormats, MemoryFormat::automatic);
  s.training.framework = Framework::pytorch;
  if (f.has(run, "framework")) {
    const std::string framework = f.string(run, path, "framework");
    bool modelled = false;
    for (Framework fw : kFrameworks)
      if (framework == to_string(fw) && fw != Framework::megatron) s.training.framework = fw, modelled = true;
    if (!modelled) out.skipped = fmt::format("framework {} not modelled (dtsim models pytorch and torch_compile "
                                             "for layer-graph models)", framework);
  }
  s.parallelism.dp = gpus;
  s.data_parallel = read_data_parallel_section(f, run, path);
  s.reference = read_reference_section(f, run, path, s.layer_model->graph.sample_unit);

  const std::string mep = YamlFields::join(path, "measured");
  const YAML::Node measured = f.child(run, path, "measured");
  const std::string rate = s.layer_model->graph.sample_unit + "s_per_s";  // images_per_s, sequences_per_s
  f.require_known_keys(measured, mep, {rate, "iteration_time_s", "kernel_classes_s", "peak_allocated_gib"});
  read_measured_extras(f, measured, mep, out);
  out.metric = f.has(measured, "iteration_time_s") ? "iteration_time_s" : rate;
  out.measured = f.positive_number(measured, mep, out.metric);
  check_consistency(s, [&](const std::string& field, const std::string& expected, const std::string& found) {
    const std::string at = YamlFields::join(path, field);
    throw InputError({f.file().string(), line_of_field(root, at), at, expected, found});
  });
  return out;
}

}  // namespace dtsim
