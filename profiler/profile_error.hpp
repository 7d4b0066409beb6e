#pragma once
// The profiler's error for bad input (a recorded raw profile, a peaks spec, a calibration read
// back) and for measurements it cannot turn into a calibration. Its message names the file, the
// field, what was expected and what was found, like the simulator's InputError; it has its own
// type so that dtsim_profile_core builds without the simulator's library (on a GPU machine
// that has only the CUDA toolkit).
#include <stdexcept>
#include <string>

namespace dtsim::profiler {

struct ProfileErrorInfo {
  std::string file;      // path as given, or "<measurement>" for numbers measured just now
  std::string field;     // dotted path, e.g. "operators[2].runs[0].end_ns"; empty for the whole file
  std::string expected;  // what would have been accepted
  std::string found;     // what was there
};

class ProfileInputError : public std::runtime_error {
 public:
  explicit ProfileInputError(ProfileErrorInfo info);
  const ProfileErrorInfo& info() const { return info_; }

 private:
  ProfileErrorInfo info_;
};

// "file: field 'f': expected E, found F" (", field ..." left out when the field is empty)
std::string format_profile_error(const ProfileErrorInfo& info);

}  // namespace dtsim::profiler
