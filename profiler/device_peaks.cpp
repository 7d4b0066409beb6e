#include "device_peaks.hpp"

#include "input_error.hpp"

namespace dtsim::profiler {

namespace {

struct KnownDevice {
  const char* name;  // as cudaGetDeviceProperties reports it
  Peaks peaks;
};

// NVIDIA datasheets, dense (no sparsity). H100 SXM5 and H200 SXM share compute; the H200 has
// faster HBM3e. The A100 has no FP8 tensor cores.
const KnownDevice kKnownDevices[] = {
    {"NVIDIA H100 80GB HBM3", {67e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12, 3.35e12}},
    {"NVIDIA H200", {67e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12, 4.8e12}},
    {"NVIDIA A100-SXM4-80GB", {19.5e12, 156e12, 312e12, 312e12, 0, 2.039e12}},
};

}  // namespace

std::optional<Peaks> peaks_of_device(const std::string& device_name) {
  for (const KnownDevice& d : kKnownDevices)
    if (device_name == d.name) return d.peaks;
  return std::nullopt;
}

std::vector<std::string> known_peak_devices() {
  std::vector<std::string> names;
  for (const KnownDevice& d : kKnownDevices) names.emplace_back(d.name);
  return names;
}

double peak_flops(const Peaks& peaks, const std::string& dtype, const std::string& file, const std::string& field) {
  if (dtype == "fp32") return peaks.fp32_flops;
  if (dtype == "tf32") return peaks.tf32_flops;
  if (dtype == "fp16") return peaks.fp16_flops;
  if (dtype == "bf16") return peaks.bf16_flops;
  if (dtype == "fp8") return peaks.fp8_flops;
  throw InputError({file, 0, field, "fp32, tf32, fp16, bf16 or fp8", "\"" + dtype + "\""});
}

namespace {

Peaks read_peaks_object(const FieldReader& reader, const json& o, const std::string& at) {
  Peaks p;
  p.fp32_flops = reader.non_negative(o, at, "fp32_flops");
  p.tf32_flops = reader.non_negative(o, at, "tf32_flops");
  p.fp16_flops = reader.non_negative(o, at, "fp16_flops");
  p.bf16_flops = reader.non_negative(o, at, "bf16_flops");
  p.fp8_flops = reader.non_negative(o, at, "fp8_flops");
  p.hbm_Bps = reader.positive(o, at, "hbm_Bps");
  return p;
}

}  // namespace

Peaks read_peaks(const FieldReader& reader, const json& parent, const std::string& path, const std::string& key) {
  return read_peaks_object(reader, reader.object(parent, path, key), field_path(path, key));
}

Peaks load_peaks_spec(const std::filesystem::path& file) {
  const json root = read_json_file(file);
  const FieldReader reader(file.string());
  if (!root.is_object()) reader.fail("", "a JSON object of peaks", describe_found(&root));
  if (root.contains("peaks")) return read_peaks(reader, root, "", "peaks");
  return read_peaks_object(reader, root, "");
}

}  // namespace dtsim::profiler
