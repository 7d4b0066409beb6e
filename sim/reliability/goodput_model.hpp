#pragma once
// Failures over a whole training run, in closed form: the cluster's failure rate by component
// class, the expected wall-clock time of a run that checkpoints every `interval_s` of training,
// goodput, and the checkpoint intervals of Young (1974) and Daly (2006).
//
// The model (goodput_monte_carlo.cpp simulates exactly this one, so the two agree to sampling
// error when every failure is a plain restart):
//  - failures arrive as a Poisson process in wall-clock time at the constant rate λ = Σ units /
//    MTBF over the classes, whatever the job is doing (computing, writing a checkpoint,
//    restarting, waiting);
//  - the training is W seconds of failure-free compute, cut into segments of `interval_s` (the
//    last one shorter), each followed by a checkpoint that stops the job for δ seconds (the write
//    of a blocking checkpoint; the copy to host memory of an asynchronous one) and is safe P
//    seconds after that (P = 0 when blocking: the write is the stall; else the write to storage
//    or to a peer's memory, while the next segment computes); work is kept once its checkpoint is
//    safe: a failure loses everything since the last safe checkpoint;
//  - an asynchronous checkpoint's write must end before the next one's copy starts (the host
//    buffer is reused): with τ < P the job waits P − τ before each copy;
//  - after a failure the job recovers in R seconds (restart + reload of the last checkpoint); a
//    failure during recovery starts the recovery again (Daly 2006's "complete" model).
#include <limits>
#include <string>
#include <vector>

namespace dtsim {

// What the job does when a failure takes a node out (goodput_monte_carlo.hpp says how each is simulated).
enum class RecoveryStrategy { wait_for_repair, spare_nodes, elastic };
inline constexpr RecoveryStrategy kRecoveryStrategies[] = {RecoveryStrategy::wait_for_repair,
                                                          RecoveryStrategy::spare_nodes, RecoveryStrategy::elastic};
const char* to_string(RecoveryStrategy s);

constexpr double kNeverFails = std::numeric_limits<double>::infinity();  // an MTBF

// One kind of component whose failure interrupts the job.
struct FailureClass {
  std::string name;                // "gpu", "hbm", "nic", "switch", "host", "software"
  double units = 0;                // how many the job's cluster has
  double mtbf_hours = kNeverFails; // per unit
  // true: the failed node leaves the job until repaired (recovery strategies apply);
  // false: the job restarts on the same nodes (software, fabric re-routes around a switch).
  bool takes_node_out = false;
  double rate_per_s() const;       // units / MTBF; 0 when it never fails
  bool operator==(const FailureClass&) const = default;
};

// What a whole training run is, as far as failures are concerned.
struct GoodputProblem {
  double work_s = 0;                // W: failure-free compute time of the whole training
  double checkpoint_stall_s = 0;    // δ: the job stops this long for each checkpoint
  double checkpoint_persist_s = 0;  // P: the checkpoint is safe this much later, the job running (0: blocking)
  double recovery_s = 0;            // R: restart (detection, requeue, NCCL init) + reload of the checkpoint
  std::vector<FailureClass> failures;
  double failure_rate_per_s() const;  // λ
  double node_failure_rate_per_s() const;  // the classes that take a node out
  bool operator==(const GoodputProblem&) const = default;
};

// Expected wall-clock time to get `length_s` of uninterrupted time (a segment and its checkpoint)
// when failures come at `rate_per_s` and each costs a recovery of `recovery_s` that failures may
// also interrupt:
//   E[T] = (e^{λL} − 1) (1/λ + (e^{λR} − 1)/λ) = e^{λR} (e^{λL} − 1) / λ.
// Failed attempts before the first success are geometric with mean e^{λL} − 1, and a failed one
// lasts 1/λ − L/(e^{λL} − 1) on average, so all attempts (the successful one's L included) take
// (e^{λL} − 1)/λ; each failure adds a recovery, (e^{λR} − 1)/λ on average when failures restart it.
// Without failures during recovery it would be (1/λ + R)(e^{λL} − 1). L when λ = 0.
double expected_segment_s(double rate_per_s, double length_s, double recovery_s);

// Segments of a run: floor(W / τ) of τ and one of the remainder (if any). Checkpoints: one per segment,
// the last one included (the trained model is saved).
long checkpoint_count(double work_s, double interval_s);
// E[wall], infinity when it overflows. Between one safe checkpoint and the next, segment k of τ_k
// needs an uninterrupted window of
//   F_k = τ_k + δ + P          after a restart (or at the start): compute, copy, write;
//   S_k = max(τ_k, P) + δ      otherwise: the previous write overlapped this segment's compute.
// A failure always leads to an F window next, so with E_F = expected_segment_s(λ, F, R) and
// ρ = (e^{λR} − 1)/λ (a recovery, failures during it included):
//   E[wall] = E_F(F_1) + Σ_{k≥2} [ (1 − e^{−λS_k})/λ + (1 − e^{−λS_k})(ρ + E_F(F_k)) ].
// Blocking (P = 0): F = S = τ + δ and each term is expected_segment_s(λ, τ + δ, R).
double closed_form_wall_s(const GoodputProblem& p, double interval_s);
// Where the expected wall-clock time goes. Checkpoints: the time of the windows that were kept
// beyond their compute (stalls, waits for a write, and the writes nothing overlapped: the first,
// the last and each after a restart); failures that hit a window: e^{λF} − 1 for an F window,
// (1 − e^{−λS}) e^{λF} for an S one; recovering: ρ per such failure; lost work: the time since
// the last safe checkpoint at each failure. compute + checkpoints + lost + recovering = E[wall].
struct ClosedFormRun {
  double wall_s = 0, compute_s = 0, checkpoint_s = 0, lost_s = 0, recovery_s = 0;
};
ClosedFormRun closed_form_run(const GoodputProblem& p, double interval_s);
// The windows F_k and S_k above for a segment of `segment_s` of compute.
double fresh_window_s(const GoodputProblem& p, double segment_s);
double streaming_window_s(const GoodputProblem& p, double segment_s);
// W / E[wall]: the fraction of wall-clock time that is useful training.
double closed_form_goodput(const GoodputProblem& p, double interval_s);

// Young (1974): τ = sqrt(2 δ / λ). Daly (2006) first-order refinement: sqrt(2 δ M) − δ, M = 1/λ,
// for δ < 2M, and M otherwise (as Daly prescribes). Infinity when λ = 0.
double young_interval_s(double checkpoint_stall_s, double rate_per_s);
double daly_interval_s(double checkpoint_stall_s, double rate_per_s);
// The τ that minimises the overhead per unit of work of the model above, (e^{λ(τ+δ)} − 1)/τ
// (the run-length remainder aside): x = λτ solves (1 − x) e^x = e^{−λδ}, i.e.
// τ = (1 + W0(−e^{−1−λδ})) / λ with W0 Lambert's function; found by bisection. It does not depend
// on R, which only scales the overhead. Young's formula is its first-order expansion in λδ;
// the next order gives sqrt(2δ/λ) − 2δ/3.
double optimal_interval_s(double checkpoint_stall_s, double rate_per_s);
// The τ that minimises the model's steady-state overhead per unit of work for `p` (its stall,
// persist time, recovery and failure rate): the formula above when P = 0; else the minimum of
// [S-window term of closed_form_wall_s] / τ, found numerically (it then depends on R).
double optimal_interval_s(const GoodputProblem& p);

}  // namespace dtsim
