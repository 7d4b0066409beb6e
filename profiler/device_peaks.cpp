#include "device_peaks.hpp"

#include "datasheet_peaks.hpp"
#include "input_error.hpp"

namespace dtsim::profiler {

std::optional<Peaks> peaks_of_device(const std::string& device_name) { return calib::datasheet_peaks(device_name); }

double peak_flops(const Peaks& peaks, const std::string& dtype, const std::string& file, const std::string& field) {
  if (const std::optional<double> flops = calib::peak_flops_of(peaks, dtype)) return *flops;
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
