#pragma once
// Measured efficiencies that replace the defaults of efficiency_defaults.hpp. For now a
// calibration file holds one fraction of peak per operator kind (profiler/ will write richer
// files, by shape):
//   {"device": "NVIDIA H100 80GB HBM3", "date": "2026-11-21",
//    "efficiency": {"gemm": {"compute": 0.78}, "elementwise": {"memory": 0.88}}}
#include <filesystem>
#include <string>

#include "efficiency_defaults.hpp"

namespace dtsim {

struct Calibration {
  std::string device;
  EfficiencyTable efficiencies;
};

// Starts from `defaults` and overrides what the file gives; bad input throws InputError.
Calibration load_calibration(const std::filesystem::path& file, const EfficiencyTable& defaults);

}  // namespace dtsim
