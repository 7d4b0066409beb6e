#pragma once
// The versions a measurement records (driver, CUDA runtime, cuDNN, NCCL), spelled from what the
// GPU program reads (gpu/device_info.cpp): plain text work, tested without a GPU.
#include <cstddef>
#include <optional>
#include <string>

namespace dtsim::profiler {

// "580.159.04" from the first line of /proc/driver/nvidia/version, of the proprietary kernel
// module ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue ...") or of the open
// one ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."):
// the first word made of digits and dots only; nothing when the line has none.
std::optional<std::string> driver_version_of_proc_line(const std::string& line);

// "580.159.04": two to four numbers joined by dots.
bool is_driver_version(const std::string& text);

// A driver field as a calibration may record it: a driver version, "CUDA 13.0" (the driver's
// CUDA version, the fallback when /proc has no module line) or "unknown".
bool is_recorded_driver(const std::string& text);

// cudaRuntimeGetVersion / cudaDriverGetVersion (1000 major + 10 minor): 13000 -> "13.0".
std::string cuda_version_text(int version);

// ncclGetVersion: 10000 major + 100 minor + patch since NCCL 2.9 (22803 -> "2.28.3"), 1000 major
// + 100 minor + patch before (2804 -> "2.8.4").
std::string nccl_version_text(int version);

// cudnnGetVersion: 10000 major + 100 minor + patch since cuDNN 9 (91900 -> "9.19.0"), 1000 major
// + 100 minor + patch before (8907 -> "8.9.7").
std::string cudnn_version_text(std::size_t version);

}  // namespace dtsim::profiler
