#pragma once
// Reads back a calibration JSON written by calibration_writer.hpp, every field of the schema
// required; bad input throws ProfileInputError naming the file and the field. (The simulator
// has its own, lenient reader in sim/calibration.cpp; this one checks the profiler's output.)
#include <filesystem>

#include "calibration_data.hpp"

namespace dtsim::profiler {

Calibration read_calibration(const std::filesystem::path& file);

}  // namespace dtsim::profiler
