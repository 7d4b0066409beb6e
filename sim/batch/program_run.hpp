#pragma once
// Running another program (sbatch, squeue, scancel) with its arguments as given, no shell
// between, and what it printed.
#include <string>
#include <vector>

namespace dtsim {

struct ProgramRun {
  int exit_code = -1;  // -1: it could not be started, or died of a signal
  std::string output;  // standard output and error together
};

// Runs `argv` (argv[0] looked up on PATH) to its end.
ProgramRun run_program(const std::vector<std::string>& argv);

}  // namespace dtsim
