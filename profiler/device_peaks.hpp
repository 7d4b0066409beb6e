#pragma once
// The peaks a raw profile is divided by: the device's datasheet peaks from the simulator's table
// (sim/hardware/datasheet_peaks.hpp, device_spec.cpp), so that profiler and simulator cannot
// disagree on them, or peaks given in a spec file for a device that table lacks.
#include <filesystem>
#include <optional>
#include <string>

#include "calibration_data.hpp"
#include "json_fields.hpp"

namespace dtsim::profiler {

// The datasheet peaks of the device a driver name stands for; nothing for a device dtsim does not
// know (PCIe and NVL parts run other clocks: not guessed).
std::optional<Peaks> peaks_of_device(const std::string& device_name);

// The peak FLOP/s of `dtype` ("fp32", "tf32", "fp16", "bf16", "fp8"); throws InputError
// naming `file` and `field` for another dtype.
double peak_flops(const Peaks& peaks, const std::string& dtype, const std::string& file, const std::string& field);

// Reads a peaks object {"fp32_flops": .., "tf32_flops": .., "fp16_flops": .., "bf16_flops": ..,
// "fp8_flops": .., "hbm_Bps": ..} at `path` inside `parent` (all six required, >= 0, hbm_Bps > 0).
Peaks read_peaks(const FieldReader& reader, const json& parent, const std::string& path,
                 const std::string& key);

// A spec file (--peaks-from-spec): either such an object or {"peaks": {...}}.
Peaks load_peaks_spec(const std::filesystem::path& file);

}  // namespace dtsim::profiler
