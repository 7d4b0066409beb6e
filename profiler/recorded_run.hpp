#pragma once
// A raw profile as JSON (format "dtsim-raw-profile-1"), so that a measurement can be kept,
// turned into a calibration again later, and tested without a GPU:
//   {"format": "dtsim-raw-profile-1",
//    "device": {"name", "compute_capability", "gpus", "driver", "cuda_runtime",
//               "cudnn" (optional: when the machine had one), "nccl", "date"},
//    "peaks": {...}                                      (optional: overrides the device table)
//    "profiler": {"cupti", "iterations", "warmup", "overhead_percent" (number or null)},
//    "operators": [{"op", "kind", "dtype", "shape": {"m": .., ...}, "flops", "bytes",
//                   with cupti:    "attribution": "timestamp_ns" | "correlation_id",
//                                  "runs": [{"begin", "end"}],
//                                  "kernels": [{"name", "start_ns", "end_ns", "grid": [x, y, z],
//                                               "block": [x, y, z], "stream_id", "correlation_id",
//                                               "device_id"}],
//                   without cupti: "event_times_s": [..]}],
//    "collectives": [{"op", "gpus", "dtype", "points": [{"bytes", "time_s"}]}],
//    "copies": {"d2d": {"bytes", "time_s"}, "h2d": {...}, "d2h": {...}}}
// Other top-level keys (a "note", say) are ignored. Bad input throws InputError naming the
// file and the field.
#include <filesystem>
#include <optional>

#include "calibration_data.hpp"
#include "json_fields.hpp"
#include "raw_profile.hpp"

namespace dtsim::profiler {

RawProfile load_raw_profile(const std::filesystem::path& file);
json raw_profile_to_json(const RawProfile& raw);
void write_raw_profile(const std::filesystem::path& file, const RawProfile& raw);  // atomically

// load_raw_profile then build_calibration, with the file as the source errors name.
Calibration calibrate_recorded_run(const std::filesystem::path& file,
                                   const std::optional<Peaks>& peaks_override = std::nullopt);

}  // namespace dtsim::profiler
