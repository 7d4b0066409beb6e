#include "termination_cleanup.hpp"

#include <csignal>

#include "atomic_file.hpp"
#include "slurm_array.hpp"

namespace dtsim {

namespace {
void on_termination(int signal_number) {
  remove_unfinished_output();
  cancel_waited_slurm_jobs();  // a Slurm batch being waited for goes with dtsim
  std::signal(signal_number, SIG_DFL);  // then die of it, so the exit status says which signal
  std::raise(signal_number);
}
}  // namespace

void install_termination_cleanup() {
  struct sigaction action {};
  action.sa_handler = on_termination;
  sigemptyset(&action.sa_mask);
  for (int signal_number : {SIGTERM, SIGINT, SIGHUP}) sigaction(signal_number, &action, nullptr);
}

}  // namespace dtsim
