#pragma once
// CLI11's own refusals (a flag given twice, a value that does not convert, an unknown argument, a
// missing one) in the form of every other input error: "<command line>: field '--x': expected E,
// found F" (issue 45, row 11).
#include <CLI/CLI.hpp>

#include "input_error.hpp"

namespace dtsim {

// `app` is the parsed application: it names the subcommands and each option's type.
InputErrorInfo command_line_error(const CLI::ParseError& error, const CLI::App& app, int argc, char** argv);

}  // namespace dtsim
