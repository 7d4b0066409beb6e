#include "layer_model_section.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "scenario_sections.hpp"
#include "size_limits.hpp"
#include "yaml_choice.hpp"

namespace dtsim {

namespace {

// Per-sample costs a layer file may state: beyond 1e18 (a million times GPT-3's forward per
// token) the number is a typo.
constexpr double kMaxLayerCost = 1e18;
// Sequence lengths and class counts the zoo builds: BERT's position table holds 512 tokens.
constexpr int kMaxZooSequence = 512;
constexpr int kMaxZooClasses = 1'000'000;

double layer_cost(const YamlFields& f, const YAML::Node& layer, const std::string& at, const std::string& key) {
  if (!f.has(layer, key)) return 0;
  return f.number_in(layer, at, key, 0, kMaxLayerCost, fmt::format("a number in [0, {:g}] per sample", kMaxLayerCost));
}

// The parameter-server fields: only with a strategy that has servers, staleness_bound only in
// ssp mode, backup workers only in sync mode.
void read_server_fields(const YamlFields& f, const YAML::Node& dp, const std::string& at, DataParallelConfig& c) {
  const char* const server_keys[] = {"servers", "placement", "sharding", "mode", "staleness_bound", "backup_workers",
                                     "iterations", "server_memory_gbs"};
  if (!c.uses_servers()) {
    for (const char* key : server_keys)
      if (f.has(dp, key))
        f.fail(dp[key], YamlFields::join(at, key), "no such field with strategy allreduce (parameter servers only)",
               YamlFields::describe(dp[key]));
    return;
  }
  if (f.has(dp, "library"))
    f.fail(dp["library"], YamlFields::join(at, "library"), "library only with strategy allreduce",
           fmt::format("strategy {}", to_string(c.strategy)));
  constexpr int kMaxServers = 1 << 16, kMaxIterations = 1000;
  if (f.has(dp, "servers")) c.servers = f.int_in(dp, at, "servers", 1, kMaxServers);
  c.placement = read_choice(f, dp, at, "placement", kServerPlacements, c.placement);
  c.sharding = read_choice(f, dp, at, "sharding", kTensorShardings, c.sharding);
  c.mode = read_choice(f, dp, at, "mode", kUpdateModes, c.mode);
  if (f.has(dp, "staleness_bound") && c.mode != UpdateMode::ssp)
    f.fail(dp["staleness_bound"], YamlFields::join(at, "staleness_bound"), "staleness_bound only with mode ssp",
           fmt::format("mode {}", to_string(c.mode)));
  if (c.mode == UpdateMode::ssp) c.staleness_bound = f.int_in(dp, at, "staleness_bound", 0, kMaxIterations);
  if (f.has(dp, "backup_workers") && c.mode != UpdateMode::sync)
    f.fail(dp["backup_workers"], YamlFields::join(at, "backup_workers"), "backup_workers only with mode sync",
           fmt::format("mode {}", to_string(c.mode)));
  if (f.has(dp, "backup_workers")) c.backup_workers = f.int_in(dp, at, "backup_workers", 0, kMaxServers);
  if (f.has(dp, "iterations")) c.iterations = f.int_in(dp, at, "iterations", 2, kMaxIterations);
  if (f.has(dp, "server_memory_gbs"))
    c.server_memory_gbs = f.number_in(dp, at, "server_memory_gbs", 0.1, 1e5, "a bandwidth in GB/s in [0.1, 100000]");
}

}  // namespace

bool is_layer_model_section(const YamlFields& f, const YAML::Node& model) {
  return model.IsMap() && (f.has(model, "zoo") || f.has(model, "layers_file"));
}

LayerModel read_layer_model_section(const YamlFields& f, const YAML::Node& model, const std::string& path) {
  const std::string at = YamlFields::join(path, "model");
  f.require_known_keys(model, at, {"zoo", "layers_file", "sequence_length", "classes", "optimizer", "weight_decay"});
  LayerModel m;
  if (f.has(model, "zoo") && f.has(model, "layers_file"))
    f.fail(model["layers_file"], YamlFields::join(at, "layers_file"), "either model.zoo or model.layers_file, not both",
           "both");
  if (f.has(model, "layers_file")) {
    for (const char* zoo_only : {"sequence_length", "classes"})
      if (f.has(model, zoo_only))
        f.fail(model[zoo_only], YamlFields::join(at, zoo_only),
               "no such field with model.layers_file (zoo models only)", YamlFields::describe(model[zoo_only]));
    m.file = read_existing_file(f, model, at, "layers_file");
    m.graph = load_layer_file(m.file);
  } else {
    m.zoo = f.choice(model, at, "zoo", zoo_model_names());
    m.options.sequence_length = f.has(model, "sequence_length")
                                    ? f.int_in(model, at, "sequence_length", 1, kMaxZooSequence)
                                    : m.options.sequence_length;
    m.options.classes = f.has(model, "classes") ? f.int_in(model, at, "classes", 1, kMaxZooClasses) : m.options.classes;
    m.graph = *zoo_model(m.zoo, m.options);
  }
  // Image models train with SGD and momentum, sequence models with Adam-like optimizers, DLRM's
  // click records with plain SGD.
  const LayerModelOptimizer usual =
      m.graph.sample_unit == "image"    ? LayerModelOptimizer::sgd_momentum
      : m.graph.sample_unit == "record" ? LayerModelOptimizer::sgd
                                        : LayerModelOptimizer::adam;
  m.optimizer = read_choice(f, model, at, "optimizer", kLayerModelOptimizers, usual);
  const double usual_decay = m.graph.sample_unit == "record" ? 0 : kTorchvisionWeightDecay;
  m.weight_decay = f.has(model, "weight_decay") ? f.number_in(model, at, "weight_decay", 0, 1) : usual_decay;
  return m;
}

// compression_density only for the sparsifiers, powersgd_rank only for PowerSGD, which needs the
// all-reduce to sum its low-rank factors (a server would have to hold them instead of gradients).
void read_compression_fields(const YamlFields& f, const YAML::Node& dp, const std::string& at, DataParallelConfig& c) {
  c.compression = read_choice(f, dp, at, "compression", kGradientCompressions, c.compression);
  const bool sparse = c.compression == GradientCompression::topk || c.compression == GradientCompression::randomk;
  const bool powersgd = c.compression == GradientCompression::powersgd;
  if (f.has(dp, "compression_density") && !sparse)
    f.fail(dp["compression_density"], YamlFields::join(at, "compression_density"),
           "compression_density only with compression topk or randomk",
           fmt::format("compression {}", to_string(c.compression)));
  if (f.has(dp, "powersgd_rank") && !powersgd)
    f.fail(dp["powersgd_rank"], YamlFields::join(at, "powersgd_rank"), "powersgd_rank only with compression powersgd",
           fmt::format("compression {}", to_string(c.compression)));
  if (powersgd && c.uses_servers())
    f.fail(dp["compression"], YamlFields::join(at, "compression"),
           "a compression parameter servers can sum (PowerSGD's factors need an all-reduce)",
           fmt::format("powersgd with strategy {}", to_string(c.strategy)));
  if (sparse)
    c.compression_density = f.has(dp, "compression_density")
                                ? f.number_in(dp, at, "compression_density", 1e-6, 1, "a share in [0.000001, 1]")
                                : kSparsificationDensity;
  if (powersgd && f.has(dp, "powersgd_rank")) c.powersgd_rank = f.int_in(dp, at, "powersgd_rank", 1, 1024);
}

DataParallelConfig read_data_parallel_section(const YamlFields& f, const YAML::Node& holder, const std::string& path) {
  DataParallelConfig c;
  if (!f.has(holder, "data_parallel")) return c;
  const YAML::Node dp = holder["data_parallel"];
  const std::string at = YamlFields::join(path, "data_parallel");
  f.require_map(dp, at);
  f.require_known_keys(dp, at,
                       {"strategy", "library", "bucket_cap_mb", "first_bucket_mb", "cycle_time_ms", "overlap",
                        "servers", "placement", "sharding", "mode", "staleness_bound", "backup_workers", "iterations",
                        "server_memory_gbs", "compression", "compression_density", "powersgd_rank"});
  c.strategy = read_choice(f, dp, at, "strategy", kDataParallelStrategies, c.strategy);
  read_server_fields(f, dp, at, c);
  read_compression_fields(f, dp, at, c);
  c.library = read_choice(f, dp, at, "library", kAllreduceLibraries, c.library);
  const bool horovod = c.fuses_tensors();
  constexpr double kMaxBucketMiB = 1 << 20;  // 1 TiB: larger than any model's gradients
  const char* const size_range = "a size in MiB in [0.001, 1048576]";
  if (horovod && f.has(dp, "first_bucket_mb"))
    f.fail(dp["first_bucket_mb"], YamlFields::join(at, "first_bucket_mb"),
           "no first_bucket_mb with library horovod or mpi (Horovod's first fusion is as large as the others)",
           YamlFields::describe(dp["first_bucket_mb"]));
  if (!horovod && f.has(dp, "cycle_time_ms"))
    f.fail(dp["cycle_time_ms"], YamlFields::join(at, "cycle_time_ms"), "cycle_time_ms only with library horovod or mpi",
           fmt::format("library {}", to_string(c.library)));
  if (horovod) c.bucket_cap_mb = kHorovodFusionThresholdMiB;
  if (f.has(dp, "bucket_cap_mb"))
    c.bucket_cap_mb = f.number_in(dp, at, "bucket_cap_mb", 1e-3, kMaxBucketMiB, size_range);
  if (f.has(dp, "first_bucket_mb"))
    c.first_bucket_mb = f.number_in(dp, at, "first_bucket_mb", 1e-3, kMaxBucketMiB, size_range);
  if (horovod) {
    c.first_bucket_mb = c.bucket_cap_mb;
    c.cycle_time_ms = f.has(dp, "cycle_time_ms")
                          ? f.number_in(dp, at, "cycle_time_ms", 0, 1e4, "a cycle in ms in [0, 10000]")
                          : kHorovodCycleTimeMs;
  }
  c.overlap = f.boolean_or(dp, at, "overlap", c.overlap);
  // The host path is MPI's all-reduce; the all-to-all and all-gather exchanges of the quantisers
  // and top-k are not staged through the CPUs here.
  const GradientCompression all_reduced[] = {GradientCompression::none, GradientCompression::fp16,
                                             GradientCompression::bf16, GradientCompression::randomk,
                                             GradientCompression::powersgd};
  if (c.reduces_on_cpus() && std::find(std::begin(all_reduced), std::end(all_reduced), c.compression) ==
                                 std::end(all_reduced))
    f.fail(dp["compression"], YamlFields::join(at, "compression"),
           "none, fp16, bf16, randomk or powersgd with library mpi (compressions exchanged by all-reduce)",
           to_string(c.compression));
  return c;
}

std::optional<ThroughputReference> read_reference_section(const YamlFields& f, const YAML::Node& holder,
                                                          const std::string& path, const std::string& sample_unit) {
  if (!f.has(holder, "reference")) return std::nullopt;
  const YAML::Node ref = holder["reference"];
  const std::string at = YamlFields::join(path, "reference");
  f.require_map(ref, at);
  const std::string rate_key = sample_unit + "s_per_s";  // images_per_s, sequences_per_s
  f.require_known_keys(ref, at, {"gpus", "samples_per_s", rate_key});
  ThroughputReference r;
  r.gpus = f.has(ref, "gpus") ? f.int_in(ref, at, "gpus", 1, int(kMaxGpus)) : 1;
  const bool named = f.has(ref, rate_key), generic = f.has(ref, "samples_per_s");
  if (named == generic)
    f.fail(ref, at, fmt::format("one of {0}.{1} or {0}.samples_per_s", at, rate_key), named ? "both" : "neither");
  r.samples_per_s = f.number_in(ref, at, named ? rate_key : "samples_per_s", kMinReferenceSamplesPerSecond,
                                kMaxReferenceSamplesPerSecond);
  return r;
}

LayerGraph load_layer_file(const std::filesystem::path& file) {
  const YamlFields f(file);
  const YAML::Node root = f.load();
  f.require_map(root, "");
  f.require_known_keys(root, "", {"name", "sample_unit", "layers"});
  LayerGraph g;
  g.name = f.string(root, "", "name");
  g.sample_unit = f.choice(root, "", "sample_unit", {"image", "sequence", "record"});
  const YAML::Node layers = f.child(root, "", "layers");
  f.require_list(layers, "layers", "a list of layers");
  if (layers.size() == 0) f.fail(layers, "layers", "at least one layer", "an empty list");
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string at = fmt::format("layers[{}]", i);
    const YAML::Node layer = layers[i];
    f.require_map(layer, at);
    f.require_known_keys(layer, at,
                         {"name", "kind", "forward_macs", "forward_other_flops", "parameters", "input_elements",
                          "output_elements", "in_place", "sharded", "dropout", "logits"});
    Layer l;
    l.name = f.string(layer, at, "name");
    l.kind = read_choice(f, layer, at, "kind", kLayerKinds);
    l.forward_macs = layer_cost(f, layer, at, "forward_macs");
    l.forward_other_flops = layer_cost(f, layer, at, "forward_other_flops");
    set_parameters(l, {layer_cost(f, layer, at, "parameters")});  // one tensor
    l.in_place = f.boolean_or(layer, at, "in_place", false);
    l.input_elements = layer_cost(f, layer, at, "input_elements");
    l.output_elements = layer_cost(f, layer, at, "output_elements");
    l.sharded = f.boolean_or(layer, at, "sharded", false);
    if (f.has(layer, "dropout")) l.dropout = f.number_in(layer, at, "dropout", 0, 0.99, "a probability in [0, 0.99]");
    l.logits = f.boolean_or(layer, at, "logits", false);
    if (l.sharded && l.kind != LayerKind::embedding)
      f.fail(layer["sharded"], YamlFields::join(at, "sharded"), "sharded only for a layer of kind embedding",
             fmt::format("kind {}", to_string(l.kind)));
    g.layers.push_back(l);
  }
  return g;
}

}  // namespace dtsim
