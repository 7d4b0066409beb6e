#include "command_line_errors.hpp"

#include <fmt/format.h>

#include <regex>
#include <string>

namespace dtsim {

namespace {

// The option named `name` ("--gpus", "-g") in any subcommand, or nullptr.
const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  for (const CLI::App* command : app.get_subcommands({})) {
    for (const CLI::Option* option : command->get_options())
      if (option->check_name(name)) return option;
  }
  return nullptr;
}

std::string value_kind(const CLI::App& app, const std::string& name) {
  const CLI::Option* option = find_option(app, name);
  const std::string type = option ? option->get_type_name() : "";
  if (type == "INT" || type == "UINT") return "an integer";
  if (type == "FLOAT") return "a number";
  return "a value of its kind (see --help)";
}

std::string subcommand_names(const CLI::App& app) {
  std::string names;
  for (const CLI::App* command : app.get_subcommands({}))
    if (!command->get_group().empty())  // hidden ones (dtsim slurm-task) are not for people
      names += (names.empty() ? "" : ", ") + command->get_name();
  return names;
}

std::string quoted(const std::string& text) { return "'" + text + "'"; }

}  // namespace

InputErrorInfo command_line_error(const CLI::ParseError& error, const CLI::App& app, int argc, char** argv) {
  const std::string message = error.what();
  const auto info = [](const std::string& field, const std::string& expected, const std::string& found) {
    return InputErrorInfo{"<command line>", 0, field, expected, found};
  };
  std::smatch m;
  // The forms of CLI11 2.1 (Debian's), each with what it says.
  if (std::regex_match(message, m, std::regex("Could not convert: (\\S+) = (.*)")))
    return info(m[1], value_kind(app, m[1]), quoted(m[2]));
  if (std::regex_match(message, m, std::regex("(\\S+): At Most (\\d+) required but received (\\d+)")))
    return info(m[1], m[2] == "1" ? "the flag once" : "the flag at most " + m[2].str() + " times",
                "it " + m[3].str() + " times");
  if (std::regex_match(message, m, std::regex("(\\S+): (\\d+) required (\\S+) missing")))
    return info(m[1], "a value after it", "none");
  if (std::regex_match(message, m, std::regex("(\\S+) is required")))
    return info(m[1], "a value (see --help)", "none");
  if (std::regex_match(message, m, std::regex("The following arguments? (?:was|were) not expected: (.*)")))
    return info("arguments", "the command's flags and arguments (see --help)", quoted(m[1]));
  if (std::regex_match(message, m, std::regex("(\\S+): (.*) not in \\{(.*)\\}")))
    return info(m[1], "one of " + std::regex_replace(m[3].str(), std::regex(","), ", "), quoted(m[2]));
  if (message == "A subcommand is required")
    return info("command", "one of " + subcommand_names(app), argc > 1 ? quoted(argv[1]) : "none");
  return info("", "a command line dtsim reads (see dtsim --help)", message);
}

}  // namespace dtsim
