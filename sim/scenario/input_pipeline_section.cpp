#include "input_pipeline_section.hpp"

#include "yaml_choice.hpp"

namespace dtsim {

const char* to_string(InputStorage s) { return s == InputStorage::local ? "local" : "shared"; }

std::optional<InputPipelineConfig> read_input_pipeline_section(const YamlFields& f, const YAML::Node& holder,
                                                               const std::string& path) {
  if (!f.has(holder, "input_pipeline")) return std::nullopt;
  const YAML::Node in = holder["input_pipeline"];
  const std::string at = YamlFields::join(path, "input_pipeline");
  f.require_map(in, at);
  f.require_known_keys(in, at,
                       {"sample_bytes", "storage", "storage_GBps", "cpu_cores", "samples_per_s_per_core",
                        "prefetch_batches", "cache_hit_rate"});
  // Beyond these the number is a typo: a 1 GB sample, a 100 TB/s file system, a million cores.
  constexpr double kMaxSampleBytes = 1e9, kMaxStorageGBps = 1e5, kMaxSamplesPerCore = 1e7;
  constexpr int kMaxCores = 1'000'000, kMaxPrefetch = 1000;
  InputPipelineConfig c;
  c.sample_bytes = f.number_in(in, at, "sample_bytes", 1, kMaxSampleBytes, "bytes per sample in [1, 1e9]");
  c.storage = read_choice(f, in, at, "storage", kInputStorages, c.storage);
  c.storage_GBps =
      f.number_in(in, at, "storage_GBps", 1e-3, kMaxStorageGBps, "a read bandwidth in GB/s in [0.001, 1e5]");
  c.cpu_cores = f.int_in(in, at, "cpu_cores", 1, kMaxCores);
  c.samples_per_s_per_core = f.number_in(in, at, "samples_per_s_per_core", 1e-3, kMaxSamplesPerCore,
                                         "samples per second in [0.001, 1e7]");
  if (f.has(in, "prefetch_batches")) c.prefetch_batches = f.int_in(in, at, "prefetch_batches", 0, kMaxPrefetch);
  if (f.has(in, "cache_hit_rate"))
    c.cache_hit_rate = f.number_in(in, at, "cache_hit_rate", 0, 1, "a share of the samples in [0, 1]");
  return c;
}

}  // namespace dtsim
