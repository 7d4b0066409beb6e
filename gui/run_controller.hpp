#pragma once
// Runs one simulation off the UI thread, reports the child's simulated clock as progress, and can
// cancel it. The UI thread forks each simulation's child (StartedSimulation: a child forked by
// another thread could find a C library lock held forever) and a worker thread waits for it.
// Signals arrive on the UI thread, in this order: estimated, progress..., finished or failed,
// then whatIfReady for a scenario with events (its event-free twin is forked once the run is done,
// with the whole memory budget).
#include <QObject>
#include <QThread>
#include <atomic>
#include <functional>
#include <optional>

#include "run_record.hpp"

namespace dtsim::gui {

class RunController : public QObject {
  Q_OBJECT
 public:
  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  // Starts a run unless one is going; false when one is (or the scenario does not fit in memory:
  // then failed() has said why). `changes` (the edits of the scenario's file, in words) ends the
  // run's label, so that runs of one scenario tell apart in every chart.
  bool start(const Scenario& scenario, const QString& changes = {});
  void cancel();
  bool isRunning() const { return thread_ != nullptr; }

 signals:
  void estimated(double analytic_iteration_s);
  void progress(double simulated_s, double expected_s);
  void finished(dtsim::gui::RunPtr run);
  void whatIfReady(dtsim::gui::RunPtr run);
  void failed(const QString& message);
  void stopped();  // after finished/failed/whatIfReady, or cancel: the controller is idle again

 private:
  // On the worker: waits for the run forked by start(). `memory`: the peak per GPU start()
  // computed to check that the run fits.
  void work(std::shared_ptr<StartedSimulation> run, Scenario scenario, MemoryBreakdown memory, QString changes);
  // On the worker: waits for the event-free twin and compares `run` with it.
  void compare(std::shared_ptr<StartedSimulation> healthy, RunPtr run);
  // On the UI thread, after a worker: forks the twin if one is due, else says the controller is idle.
  void threadDone();
  void wait(const std::function<void()>& on_worker);

  QThread* thread_ = nullptr;
  std::optional<ResolvedScenario> twin_;  // the scenario without its events, to fork after the run
  RunPtr twin_of_;                        // the run it is compared with (set by work, read after it)
  std::atomic<bool> cancel_{false};
  int runs_started_ = 0;
};

}  // namespace dtsim::gui
