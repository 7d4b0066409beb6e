#pragma once
// Reads back a calibration JSON written by calibration_writer.hpp, every field of the schema
// required; bad input throws InputError naming the file and the field. (The simulator
// has its own, lenient reader in sim/hardware/calibration.cpp; this one checks the profiler's output.)
#include <filesystem>
#include <string>

#include "calibration_data.hpp"
#include "json_fields.hpp"

namespace dtsim::profiler {

Calibration read_calibration(const std::filesystem::path& file);

// op, kind, dtype, shape, flops and bytes of the operator object `o` at path `at`; the raw
// profile (recorded_run.cpp) names its operators the same way.
OperatorIdentity read_operator_identity(const FieldReader& r, const json& o, const std::string& at);

}  // namespace dtsim::profiler
