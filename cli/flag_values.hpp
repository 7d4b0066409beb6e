#pragma once
// Values of command-line flags, read strictly: every flag a subcommand takes as text is checked
// here against its range, and every mistake is an InputError naming the flag (flag_error, exit
// code 2).
#include <string>

#include "input_error.hpp"
#include "training_cost.hpp"

namespace dtsim {

// Decimal digits only, in [minimum, maximum]; `expected` replaces "an integer from min to max".
long long integer_flag(const std::string& flag, const std::string& text, long long minimum, long long maximum,
                       const std::string& expected = "");
// A finite decimal number (1e9, 0.5; not nan, inf or 0x10) in [minimum, maximum]; `expected` replaces "a number in [min, max]".
double number_flag(const std::string& flag, const std::string& text, double minimum, double maximum,
                   const std::string& expected = "");

// A training length given as --tokens or --samples must be in the unit the scenario's model counts
// (Scenario::throughput_unit): tokens for a transformer, samples for a layer-graph model.
void check_length_flag_unit(bool tokens_given, bool samples_given, const std::string& unit);

// An output file the command will write: its folder must exist, the path must not be a folder
// and not an input of the command (declare_output: one read later is refused too). Checked before
// the work, so that a long run does not end in a failed write. `-` is standard output, for one
// output of a command; the command's text then goes to standard error.
void check_output_path(const std::string& flag, const std::string& file);
// Writes `content` whole (write_file_atomically; `-` to standard output) or throws naming the flag.
void write_output_file(const std::string& flag, const std::string& file, const std::string& content);
// The same, then "<flag without dashes> written to FILE" on stdout.
void write_announced_output(const std::string& flag, const std::string& file, const std::string& content);
// --png and --svg of a command that draws a chart: an error naming the flag when given to a build
// without charts (Qt 6 not found), and each path checked (check_output_path) before the work.
void check_chart_flags(const std::string& png_file, const std::string& svg_file, bool charts_available);

// --usd-per-gpu-hour and --pue as written (empty: the defaults of training_cost.hpp), checked.
CostInputs cost_input_flags(const std::string& usd_per_gpu_hour, const std::string& pue);

}  // namespace dtsim
