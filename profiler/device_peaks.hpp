#pragma once
// Datasheet dense peaks by device name, which the efficiencies are fractions of. Unknown devices
// are refused rather than guessed: a peaks spec file (--peaks-from-spec) gives them.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "calibration_data.hpp"
#include "json_fields.hpp"

namespace dtsim::profiler {

// Exact cudaDeviceProp::name matches only: PCIe and NVL parts of the same chip run other clocks.
std::optional<Peaks> peaks_of_device(const std::string& device_name);
std::vector<std::string> known_peak_devices();

// The peak FLOP/s of `dtype` ("fp32", "tf32", "fp16", "bf16", "fp8"); throws InputError
// naming `file` and `field` for another dtype.
double peak_flops(const Peaks& peaks, const std::string& dtype, const std::string& file, const std::string& field);

// Reads a peaks object {"fp32_flops": .., "tf32_flops": .., "fp16_flops": .., "bf16_flops": ..,
// "fp8_flops": .., "hbm_Bps": ..} at `path` inside `parent` (all six required, >= 0, hbm_Bps > 0).
Peaks read_peaks(const FieldReader& reader, const json& parent, const std::string& path,
                 const std::string& key);

// A spec file: either such an object or {"peaks": {...}}.
Peaks load_peaks_spec(const std::filesystem::path& file);

}  // namespace dtsim::profiler
