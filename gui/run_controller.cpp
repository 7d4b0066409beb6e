#include "run_controller.hpp"

#include <QMetaObject>
#include <utility>

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
  twin_.reset();
  twin_of_ = nullptr;
  if (!scenario.events.empty()) {
    twin_ = *resolved;
    twin_->scenario.events.clear();
  }
  std::shared_ptr<StartedSimulation> run;
  try {
    run = std::make_shared<StartedSimulation>(std::move(*resolved), options);
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
    return false;
  }
  wait([this, run, scenario, memory, changes] { work(run, scenario, memory, changes); });
  return true;
}

void RunController::wait(const std::function<void()>& on_worker) {
  thread_ = QThread::create(on_worker);
  connect(thread_, &QThread::finished, this, &RunController::threadDone);
  thread_->start();
}

void RunController::cancel() { cancel_ = true; }

void RunController::threadDone() {
  thread_->deleteLater();
  thread_ = nullptr;
  std::optional<ResolvedScenario> twin = std::exchange(twin_, std::nullopt);  // forked at most once
  if (twin && twin_of_ && !cancel_) {
    SimulationOptions options;
    options.cancel = &cancel_;
    std::shared_ptr<StartedSimulation> healthy;
    try {
      healthy = std::make_shared<StartedSimulation>(std::move(*twin), options);
    } catch (const std::exception& e) {
      emit failed(QString::fromStdString(e.what()));
    }
    if (healthy) return wait([this, healthy, run = twin_of_] { compare(healthy, run); });
  }
  emit stopped();
}

// On the worker thread: signals are queued to the UI thread (the controller lives there).
void RunController::work(std::shared_ptr<StartedSimulation> started, Scenario scenario, MemoryBreakdown memory,
                         QString changes) {
  try {
    auto run = std::make_shared<RunRecord>();
    run->label = QString("run %1 · %2").arg(runs_started_).arg(QString::fromStdString(scenario.name));
    if (!changes.isEmpty()) run->label += " · " + changes;
    run->result = started->finish();
    run->memory = memory;
    if (run->result.engine.completed) run->report = make_report(started->scenario(), run->result);
    run->scenario = scenario;
    emit finished(run);
    twin_of_ = run;  // read by threadDone once this thread has finished
  } catch (const SimulationCancelled&) {
    emit failed("cancelled");
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
  }
}

void RunController::compare(std::shared_ptr<StartedSimulation> healthy, RunPtr run) {
  try {
    auto with_what_if = std::make_shared<RunRecord>(*run);
    with_what_if->what_if = format_what_if(run->scenario, run->result, healthy->finish());
    emit whatIfReady(with_what_if);
  } catch (const SimulationCancelled&) {
    emit failed("cancelled");
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
  }
}

}  // namespace dtsim::gui
