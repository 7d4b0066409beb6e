#include "flag_values.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <utility>
#include <vector>

#include "atomic_file.hpp"
#include "input_error.hpp"
#include "input_file.hpp"

namespace dtsim {

namespace fs = std::filesystem;

long long integer_flag(const std::string& flag, const std::string& text, long long minimum, long long maximum,
                       const std::string& expected) {
  long long value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || text.front() == '+' || error != std::errc() || stop != end || value < minimum || value > maximum)
    flag_error(flag, expected.empty() ? fmt::format("an integer from {} to {}", minimum, maximum) : expected,
               "'" + text + "'");
  return value;
}

double number_flag(const std::string& flag, const std::string& text, double minimum, double maximum,
                   const std::string& expected) {
  char* stop = nullptr;
  // Decimal only: strtod also reads "nan", "inf" and hexadecimal ("0x10"), which no flag means.
  const bool decimal = !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos;
  const double value = decimal ? std::strtod(text.c_str(), &stop) : 0;
  if (!decimal || stop != text.c_str() + text.size() || !std::isfinite(value) || value < minimum || value > maximum)
    flag_error(flag, expected.empty() ? fmt::format("a number from {:g} to {:g}", minimum, maximum) : expected,
               "'" + text + "'");
  return value;
}

void check_length_flag_unit(bool tokens_given, bool samples_given, const std::string& unit) {
  if (tokens_given && unit != "token")
    flag_error("--tokens", fmt::format("--samples: this scenario's model counts in {}s", unit), "--tokens");
  if (samples_given && unit == "token") flag_error("--samples", "--tokens: this scenario's model counts in tokens", "--samples");
}

namespace {
// `-` as an output: that file goes to standard output, and what the command prints for people goes
// to standard error instead, so that `dtsim run --json - | jq` reads JSON only.
std::string stdout_flag;              // the flag that claimed standard output, if any
std::streambuf* standard_output = nullptr;

void claim_standard_output(const std::string& flag) {
  if (!stdout_flag.empty() && stdout_flag != flag)
    flag_error(flag, "at most one output written to standard output ('-')", "'-', also given to " + stdout_flag);
  if (!stdout_flag.empty()) return;
  stdout_flag = flag;
  std::cout.flush();
  standard_output = std::cout.rdbuf(std::cerr.rdbuf());
}
}  // namespace

void check_output_path(const std::string& flag, const std::string& file) {
  if (file.empty()) return;
  if (file == "-") return claim_standard_output(flag);
  std::error_code ec;
  const fs::path folder = fs::path(file).parent_path();
  if (!fs::is_directory(folder.empty() ? fs::path(".") : folder, ec))
    flag_error(flag, "a file in an existing folder", file);
  if (fs::is_directory(file, ec)) flag_error(flag, "a file path, not a folder", file);
  static std::vector<std::pair<std::string, fs::path>> outputs;  // two flags, one file: one write lost
  const fs::path path = fs::weakly_canonical(file, ec);
  for (const auto& [other_flag, other] : outputs)
    if (!ec && other == path && other_flag != flag)
      flag_error(flag, "a file that no other output names", "'" + file + "', also given to " + other_flag);
  if (!ec) outputs.emplace_back(flag, path);
  declare_output(flag, file);
}

void write_output_file(const std::string& flag, const std::string& file, const std::string& content) {
  if (file == "-" && standard_output) {
    std::ostream(standard_output).write(content.data(), std::streamsize(content.size())).flush();
    return;
  }
  declare_output(flag, file);  // again: an input read since its check is refused here, unwritten
  std::cout.flush();  // /dev/stdout is appended to: what the command printed comes first
  const std::string error = write_file_atomically(file, content);
  if (!error.empty()) flag_error(flag, "a writable file path", file + " (" + error + ")");
}

void write_announced_output(const std::string& flag, const std::string& file, const std::string& content) {
  write_output_file(flag, file, content);
  std::cout << fmt::format("{} written to {}\n", flag.substr(2), file == "-" ? "standard output" : file);
}

void check_chart_flags(const std::string& png_file, const std::string& svg_file, bool charts_available) {
  for (const auto& [flag, file] : {std::pair<std::string, std::string>{"--png", png_file},
                                   std::pair<std::string, std::string>{"--svg", svg_file}}) {
    if (!file.empty() && !charts_available)
      flag_error(flag, "a dtsim built with Qt 6 (Gui, Svg) for charts",
                 "a build without it: Qt 6 was not found at build time (install qt6-base-dev qt6-svg-dev and "
                 "rebuild)");
    check_output_path(flag, file);
  }
}

CostInputs cost_input_flags(const std::string& usd_per_gpu_hour, const std::string& pue) {
  CostInputs in;
  if (!usd_per_gpu_hour.empty()) in.usd_per_gpu_hour = number_flag("--usd-per-gpu-hour", usd_per_gpu_hour, 0, 1e6);
  if (!pue.empty()) in.pue = number_flag("--pue", pue, 1, 10, "a power usage effectiveness in [1, 10]");
  return in;
}

}  // namespace dtsim
