#include "raw_conversion.hpp"

#include <cstdio>

#include "calibration_builder.hpp"
#include "input_error.hpp"
#include "library_versions.hpp"
#include "recorded_run.hpp"

namespace dtsim::profiler {

namespace {

std::string printed(const char* format, double a, double b = 0, double c = 0) {
  char text[160];
  std::snprintf(text, sizeof text, format, a, b, c);
  return text;
}

}  // namespace

Conversion convert_raw_profile(const std::filesystem::path& raw_file, const ConversionOptions& options) {
  if (!options.driver.empty() && !is_driver_version(options.driver))
    flag_error("--driver", "a driver version such as 580.159.04 (nvidia-smi --query-gpu=driver_version)",
               "'" + options.driver + "'");
  const RawProfile raw = load_raw_profile(raw_file);
  Conversion out;
  out.calibration = build_calibration(raw, raw_file.string(), options.peaks);
  const std::string& measured = raw.device.driver;
  if (!options.driver.empty()) {
    out.calibration.driver = options.driver;
    if (is_driver_version(measured) && measured != options.driver)
      out.warnings.push_back(raw_file.string() + ": field 'device.driver': " + measured + " replaced by --driver " +
                             options.driver);
  } else if (!is_recorded_driver(measured)) {
    out.calibration.driver = "unknown";
    out.warnings.push_back(raw_file.string() + ": field 'device.driver': expected a driver version such as "
                           "580.159.04, found '" + measured + "' (dtsim-profile before issue 43 misread the open "
                           "kernel module's version line); recorded as \"unknown\": --driver VERSION records it");
  }
  return out;
}

std::string summarize_calibration(const Calibration& c) {
  std::string text = std::to_string(c.operators.size()) + " operators, " + std::to_string(c.collectives.size()) +
                     " collectives; " + c.device + ", driver " + c.driver + ", CUDA runtime " + c.cuda_runtime +
                     (c.cudnn.empty() ? "" : ", cuDNN " + c.cudnn) + ", NCCL " + c.nccl + ", " + c.date + "\n";
  for (const CalibratedCollective& coll : c.collectives)
    text += "  " + coll.op + " " + std::to_string(coll.gpus) +
            printed(" GPUs: fit latency %.2f us, busbw %.1f GB/s\n", coll.fit.latency_s * 1e6, coll.fit.busbw_Bps / 1e9);
  text += printed("  copies: d2d %.0f GB/s (read + write), h2d %.1f GB/s, d2h %.1f GB/s\n", c.copies.d2d_Bps / 1e9,
                  c.copies.h2d_Bps / 1e9, c.copies.d2h_Bps / 1e9);
  return text;
}

}  // namespace dtsim::profiler
