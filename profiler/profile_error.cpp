#include "profile_error.hpp"

namespace dtsim::profiler {

std::string format_profile_error(const ProfileErrorInfo& info) {
  std::string s = info.file + ":";
  if (!info.field.empty()) s += " field '" + info.field + "':";
  return s + " expected " + info.expected + ", found " + info.found;
}

ProfileInputError::ProfileInputError(ProfileErrorInfo info)
    : std::runtime_error(format_profile_error(info)), info_(std::move(info)) {}

}  // namespace dtsim::profiler
