#include "run_controller.hpp"

#include <QMetaObject>

#include "analytic_model.hpp"
#include "what_if.hpp"

namespace dtsim::gui {

RunController::RunController(QObject* parent) : QObject(parent) {}

RunController::~RunController() {
  if (thread_) {
    cancel_ = true;
    thread_->wait();
  }
}

bool RunController::start(const Scenario& scenario, const QString& changes) {
  if (thread_) return false;
  const MemoryBreakdown memory = peak_memory_per_gpu(scenario);
  if (!memory.fits()) {  // as `dtsim run`: not simulated
    emit failed(QString::fromStdString(format_out_of_memory(scenario, memory)));
    return false;
  }
  double expected_s = 0;
  std::optional<ResolvedScenario> resolved;
  try {
    resolved = resolve_scenario(scenario);  // the run's one reading of the calibration file
    expected_s = estimate_iteration(*resolved).iteration_s;
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
    return false;
  }
  emit estimated(expected_s);
  cancel_ = false;
  ++runs_started_;
  SimulationOptions options;
  options.record_trace = true;
  options.record_link_usage = true;
  options.cancel = &cancel_;
  options.on_progress = [this, expected_s](double simulated_s) { emit progress(simulated_s, expected_s); };
  std::shared_ptr<StartedSimulation> run, healthy;
  try {
    // Forked here, on the UI thread, and waited for on the worker (simulation.hpp, StartedSimulation).
    const int at_once = scenario.events.empty() ? 1 : 2;
    if (at_once == 2) {
      ResolvedScenario without_events = *resolved;
      without_events.scenario.events.clear();
      SimulationOptions healthy_options;
      healthy_options.cancel = &cancel_;
      healthy = std::make_shared<StartedSimulation>(std::move(without_events), healthy_options, at_once);
    }
    run = std::make_shared<StartedSimulation>(std::move(*resolved), options, at_once);
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
    return false;
  }
  thread_ = QThread::create(
      [this, run, healthy, scenario, memory, changes] { work(run, healthy, scenario, memory, changes); });
  connect(thread_, &QThread::finished, this, &RunController::threadDone);
  thread_->start();
  return true;
}

void RunController::cancel() { cancel_ = true; }

void RunController::threadDone() {
  thread_->deleteLater();
  thread_ = nullptr;
  emit stopped();
}

// On the worker thread: signals are queued to the UI thread (the controller lives there).
void RunController::work(std::shared_ptr<StartedSimulation> started, std::shared_ptr<StartedSimulation> healthy,
                         Scenario scenario, MemoryBreakdown memory, QString changes) {
  try {
    auto run = std::make_shared<RunRecord>();
    run->label = QString("run %1 · %2").arg(runs_started_).arg(QString::fromStdString(scenario.name));
    if (!changes.isEmpty()) run->label += " · " + changes;
    run->result = started->finish();
    run->memory = memory;
    if (run->result.engine.completed) run->report = make_report(started->scenario(), run->result);
    run->scenario = scenario;
    emit finished(run);
    if (!healthy) return;
    auto with_what_if = std::make_shared<RunRecord>(*run);
    with_what_if->what_if = format_what_if(scenario, run->result, healthy->finish());
    emit whatIfReady(with_what_if);
  } catch (const SimulationCancelled&) {
    emit failed("cancelled");
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
  }
}

}  // namespace dtsim::gui
