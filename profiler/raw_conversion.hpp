#pragma once
// A recorded raw profile into a calibration, on any machine: what `dtsim calibrate RAW --out CAL`
// and `dtsim-profile --from-raw RAW --out CAL` both run (the GPU run builds from the same
// calibration_builder), so the two cannot differ.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "calibration_data.hpp"

namespace dtsim::profiler {

struct ConversionOptions {
  std::optional<Peaks> peaks;  // --peaks-from-spec: for a device the datasheet table lacks
  std::string driver;          // --driver: the driver version, when the raw profile's is not one
};

struct Conversion {
  Calibration calibration;
  std::vector<std::string> warnings;  // one line each: what was recorded otherwise than measured
};

// Reads `raw_file` (load_raw_profile) and builds its calibration (build_calibration). A driver
// field that is not a version ("for", from dtsim-profile before issue 43) is recorded as
// "unknown" with a warning, unless options.driver gives it. Bad input throws InputError naming the
// file (or the flag) and the field.
Conversion convert_raw_profile(const std::filesystem::path& raw_file, const ConversionOptions& options = {});

// What a calibration holds, a few lines for the terminal: operators, collective fits, copies.
std::string summarize_calibration(const Calibration& c);

}  // namespace dtsim::profiler
