#pragma once
// What dtsim answers, as "your question -> the command" (`dtsim` with no arguments prints it, the
// README opens with it), and the examples that end each command's --help. Every command here is
// run by the docs test from the source folder.
#include <string>
#include <vector>

namespace dtsim {

struct QuestionCommand {
  const char* question;
  const char* command;  // without the leading "dtsim "
};
const std::vector<QuestionCommand>& questions();
// The table `dtsim` prints with no arguments.
std::string question_table();
// "Examples:" and two or three commands of `command` ("run", "plan", ...; "" for dtsim itself),
// for the end of its --help.
std::string examples_footer(const std::string& command);

}  // namespace dtsim
