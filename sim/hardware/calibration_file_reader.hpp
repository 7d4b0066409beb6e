#pragma once
// The one reader of calibration files: the simulator (load_calibration, calibration.hpp) and the
// profiler (its tests, its round trips) both read through it, so they cannot disagree on what a
// file means or allows. Strict: a key given twice, an unknown key, a wrong type or a value out
// of its physical range is an InputError naming the file, the field, what was expected and what
// was found. Plain std and nlohmann-json (the profiler compiles it on a GPU machine, see
// sim/calibration_contract.cmake).
#include <filesystem>
#include <string>

#include "calibration_file.hpp"

namespace dtsim::calib {

// Reads format 2 (profiler/README.md) and the older per-kind summary (format 1: no "format" key,
// an "efficiency" object). Only what the model uses is required: per operator op, kind, dtype,
// flops, bytes, time_s and both efficiencies; per collective op, gpus and fit.
CalibrationFile read_calibration_file(const std::filesystem::path& file);

// What an efficiency may be, as error messages say it: the one the model uses for `kind`
// (compute for matmul kinds, memory for the others) from kMinEfficiency, the other from 0, both
// up to the physical bounds of sim/base/size_limits.hpp.
std::string compute_efficiency_range(bool used_by_model);
std::string memory_efficiency_range(bool used_by_model);

}  // namespace dtsim::calib
