#include "library_versions.hpp"

#include <sstream>

namespace dtsim::profiler {

bool is_driver_version(const std::string& text) {
  int numbers = 0;
  size_t digits = 0;
  for (const char ch : text) {
    if (ch >= '0' && ch <= '9') {
      ++digits;
    } else if (ch == '.' && digits > 0) {
      ++numbers;
      digits = 0;
    } else {
      return false;
    }
  }
  if (digits == 0) return false;  // empty, or ends with a dot
  ++numbers;
  return numbers >= 2 && numbers <= 4;
}

std::optional<std::string> driver_version_of_proc_line(const std::string& line) {
  // The word after "Kernel Module" is "for" on the open module's line: look for the version itself.
  std::istringstream words(line);
  std::string word;
  while (words >> word)
    if (is_driver_version(word)) return word;
  return std::nullopt;
}

bool is_recorded_driver(const std::string& text) {
  if (is_driver_version(text) || text == "unknown") return true;
  return text.rfind("CUDA ", 0) == 0 && is_driver_version(text.substr(5));
}

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

namespace {
// major * major_unit + minor * 100 + patch, as "major.minor.patch".
std::string major_minor_patch(std::size_t version, std::size_t major_unit) {
  return std::to_string(version / major_unit) + "." + std::to_string(version % major_unit / 100) + "." +
         std::to_string(version % 100);
}
}  // namespace

std::string nccl_version_text(int version) { return major_minor_patch(version, version >= 10000 ? 10000 : 1000); }

std::string cudnn_version_text(std::size_t version) {
  return major_minor_patch(version, version >= 90000 ? 10000 : 1000);
}

}  // namespace dtsim::profiler
