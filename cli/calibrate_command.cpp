#include "calibrate_command.hpp"

#include <iostream>
#include <optional>

#include "calibration_writer.hpp"
#include "device_peaks.hpp"
#include "flag_values.hpp"
#include "raw_conversion.hpp"

namespace dtsim {

void add_calibrate_options(CLI::App& command, CalibrateOptions& o) {
  command.add_option("raw", o.raw_file, "raw profile JSON (dtsim-profile --raw-out, format dtsim-raw-profile-1)")
      ->required();
  command.add_option("--out", o.out_file, "calibration JSON to write (atomically)")->required();
  command.add_option("--peaks-from-spec", o.peaks_from_spec,
                     "JSON with fp32/tf32/fp16/bf16/fp8_flops and hbm_Bps, for a device dtsim's datasheet table lacks");
  command.add_option("--driver", o.driver,
                     "driver version to record (nvidia-smi's), where the raw profile's is not one");
}

int run_calibrate_command(const CalibrateOptions& o) {
  check_output_path("--out", o.out_file);
  profiler::ConversionOptions options;
  if (!o.peaks_from_spec.empty()) options.peaks = profiler::load_peaks_spec(o.peaks_from_spec);
  options.driver = o.driver;
  const profiler::Conversion conversion = profiler::convert_raw_profile(o.raw_file, options);
  for (const std::string& warning : conversion.warnings) std::cerr << "dtsim: warning: " << warning << "\n";
  write_output_file("--out", o.out_file, profiler::calibration_to_json(conversion.calibration).dump(2) + "\n");
  std::cout << "calibration written to " << o.out_file << ": " << profiler::summarize_calibration(conversion.calibration);
  return 0;
}

}  // namespace dtsim
