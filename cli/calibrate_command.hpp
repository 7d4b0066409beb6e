#pragma once
// `dtsim calibrate RAW --out CAL`: a raw profile recorded by dtsim-profile (--raw-out) into a
// calibration for `dtsim run --calibration`, on any machine (no GPU, no CUDA). The conversion is
// the profiler's own (profiler/raw_conversion.hpp), the one `dtsim-profile --from-raw` runs.
#include <CLI/CLI.hpp>

#include <string>

namespace dtsim {

struct CalibrateOptions {
  std::string raw_file;
  std::string out_file;
  std::string peaks_from_spec;  // peaks for a device dtsim's datasheet table lacks
  std::string driver;           // the driver version, where the raw profile's is not one
};

void add_calibrate_options(CLI::App& command, CalibrateOptions& options);
// Exit code 0; bad input (the raw file, the spec file, a flag) throws InputError (exit code 2).
int run_calibrate_command(const CalibrateOptions& options);

}  // namespace dtsim
