#pragma once
// What a killed `dtsim` leaves behind: nothing. On SIGTERM, SIGINT or SIGHUP the temporary file
// of an output being written is deleted and a Slurm job array being waited for is cancelled
// (slurm_array.hpp) before the process dies of the signal as it would have; simulation children
// die with their parent (simulation.cpp).
namespace dtsim {

void install_termination_cleanup();

}  // namespace dtsim
