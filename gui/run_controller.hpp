#pragma once
// Runs one simulation off the UI thread (the library forks a child per simulation; this thread
// waits for it), reports the child's simulated clock as progress, and can cancel it.
// Signals arrive on the UI thread, in this order: estimated, progress..., finished or failed,
// then whatIfReady for a scenario with events (its event-free twin is simulated second).
#include <QObject>
#include <QThread>
#include <atomic>

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
  // `memory`: the peak per GPU start() computed to check that the run fits. The simulations were
  // forked by start() on the UI thread (StartedSimulation); `healthy`: the scenario without its
  // events, for the what-if comparison.
  void work(std::shared_ptr<StartedSimulation> run, std::shared_ptr<StartedSimulation> healthy, Scenario scenario,
            MemoryBreakdown memory, QString changes);
  void threadDone();

  QThread* thread_ = nullptr;
  std::atomic<bool> cancel_{false};
  int runs_started_ = 0;
};

}  // namespace dtsim::gui
