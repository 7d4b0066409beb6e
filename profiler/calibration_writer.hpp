#pragma once
// Writes a Calibration as JSON (format "dtsim-calibration-2", schema in README.md), whole: with
// the simulator's writer of output files (sim/base/atomic_file.hpp), so a reader never sees half
// a file.
// It reads back with the one reader, sim/hardware/calibration_file_reader.hpp.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "calibration_data.hpp"

namespace dtsim::profiler {

// Fields in the schema's order.
nlohmann::ordered_json calibration_to_json(const Calibration& c);

// Throws std::runtime_error naming the file when it cannot be written; leaves nothing behind.
void write_calibration(const std::filesystem::path& file, const Calibration& c);

// The same whole write for any text (the raw profile and recordings use it too).
void write_text_atomically(const std::filesystem::path& file, const std::string& text);

}  // namespace dtsim::profiler
