#pragma once
// The one error type for bad user input (scenario, topology, calibration, CLI flag).
// Its message names the file, line, field, what was expected and what was found;
// the CLI turns it into exit code 2.
#include <string>
#include <stdexcept>

namespace dtsim {

struct InputErrorInfo {
  std::string file;      // path as the user gave it
  int line = 0;          // 1-based; 0 when the error is about the file as a whole
  std::string field;     // dotted path, e.g. "parallelism.tp"
  std::string expected;  // what would have been accepted
  std::string found;     // what was there
};

class InputError : public std::runtime_error {
 public:
  explicit InputError(InputErrorInfo info);
  const InputErrorInfo& info() const { return info_; }

 private:
  InputErrorInfo info_;
};

// "file:line: field 'f': expected E, found F"
std::string format_input_error(const InputErrorInfo& info);

// A command-line flag's value refused: an InputError of file "<command line>", field `flag`.
[[noreturn]] void flag_error(const std::string& flag, const std::string& expected, const std::string& found);

}  // namespace dtsim
