#pragma once
// The calibration the profiler builds and writes, in the profiler's namespace. The data types are
// the one format's (sim/hardware/calibration_file.hpp), which the simulator reads with the same
// reader (sim/hardware/calibration_file_reader.hpp): there is no second definition to drift.
#include "calibration_file.hpp"

namespace dtsim::profiler {

using calib::CalibratedCollective;
using calib::CalibratedOperator;
using calib::CollectiveFit;
using calib::CollectivePoint;
using calib::CopyBandwidths;
using calib::kCalibrationFormat;
using calib::kMemoryAccesses;
using calib::OperatorIdentity;
using calib::Peaks;
using calib::ProfilerSettings;
using calib::ShapeFields;
using Calibration = calib::CalibrationFile;

}  // namespace dtsim::profiler
