#pragma once
// The peaks a calibration's efficiencies are fractions of, from the one datasheet table
// (device_spec.cpp): the profiler divides by them and the simulator multiplies by them, so both
// must come from the same place. Plain std (the profiler compiles it on a GPU machine).
#include <optional>
#include <string>

#include "calibration_file.hpp"

namespace dtsim::calib {

// The datasheet peaks of the device a driver name stands for (device_id_of_name): fp32 the CUDA
// cores' rate, tf32 the TF32 tensor cores' (0 before Ampere), fp8 0 without FP8 tensor cores.
// Nothing for a device dtsim does not know (PCIe and NVL parts included: other clocks).
std::optional<Peaks> datasheet_peaks(const std::string& driver_name);

// The FLOP/s of `dtype` ("fp32", "tf32", "fp16", "bf16", "fp8") in `peaks`; nothing for another.
std::optional<double> peak_flops_of(const Peaks& peaks, const std::string& dtype);

}  // namespace dtsim::calib
