#pragma once
// A recorded step as the program the engine runs (program.hpp), one rank per trace: the time from
// the step's start to each NCCL kernel's start, and from its end to the next, is a compute task of
// that length (GPU work and idle time as measured, the CPU's included), and each NCCL kernel a
// collective over all the traced ranks on the communication stream, so that the engine simulates
// its transfer and the waiting for late ranks; what follows the last one until the step's end is
// a last compute task. The trace does not say which compute waited for which collective, only
// what ran when: the GPU work that ran while the kernel did (on other streams) runs beside the
// collective, as its busy time (idle time under the kernel was waiting for it), and the rank waits
// for the collective before anything after the kernel's recorded end. A step replays as recorded
// when each simulated collective takes as long as its recorded kernel; a faster fabric shortens
// only what no concurrent compute hid.
#include <string>
#include <vector>

#include "program.hpp"
#include "step_summary.hpp"

namespace dtsim {

// When the ranks' step windows overlap in time, their traces share a clock (one host, or clocks
// in step) and the ranks began the step at different moments (a rank late from its data loader
// or its previous step): each program starts with that offset as a compute task, so that the
// first collective waits for the late ranks as it did, and a rank's replayed step is its end less
// its offset. Otherwise every rank starts at its own step's start.
struct ReplayProgram {
  Workload workload;                 // rank i = ranks[i]; group 0 all of them, then kept groups' blocks
  std::vector<double> start_offset_s;  // [rank]: when its step began after the earliest rank's
  std::vector<std::string> assumed;  // what the trace did not say and the replay assumed
};

// `ranks` in rank order. Throws InputError (naming the first trace) when the ranks did not record
// the same sequence of collectives (count and kinds), which a replay needs to pair them. `scale`:
// the compute between collectives as on another GPU (sim/analysis/gpu_change): the union of the
// kernels in it runs as much longer as its kernels' classes do, weighted by their time; idle and
// host time between kernels is kept.
// `fixed_size`: per collective in start order, 0 (or absent) to run it over every rank, g to run it
// in the rank's block of g consecutive ranks (replay_groups.hpp).
ReplayProgram replay_program(const std::vector<RankStep>& ranks, const KernelTimeScale& scale = {},
                             const std::vector<int>& fixed_size = {});

}  // namespace dtsim
