#pragma once
// Turns a raw profile (measured now or recorded) into a calibration: median kernel time per
// operator, efficiencies against datasheet peaks, nccl-tests algbw/busbw per collective point
// and a latency/bandwidth fit per collective, copy bandwidths.
#include <optional>
#include <string>

#include "calibration_data.hpp"
#include "raw_profile.hpp"

namespace dtsim::profiler {

// compute: flops / time_s / peak_flops; memory: bytes / time_s / hbm_Bps. 0 when the numerator
// or the peak is 0.
double compute_efficiency(double flops, double time_s, double peak_flops);
double memory_efficiency(double bytes, double time_s, double hbm_Bps);

// Peaks: the raw profile's own if it has them, else `peaks_override` (--peaks-from-spec), else
// the device table; none of them throws InputError. `source` names the raw profile in
// errors: its file, or "<measurement>" for numbers measured in this process. Efficiencies are
// kept as measured, above 1 too (tensors served from L2); one past the physical bounds of
// sim/base/size_limits.hpp throws InputError naming the operator.
Calibration build_calibration(const RawProfile& raw, const std::string& source,
                              const std::optional<Peaks>& peaks_override = std::nullopt);

// The peaks build_calibration would use, by the same rule.
Peaks choose_peaks(const RawProfile& raw, const std::string& source, const std::optional<Peaks>& peaks_override);

}  // namespace dtsim::profiler
