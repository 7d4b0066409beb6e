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
  thread_ = QThread::create(
      [this, r = std::move(*resolved), expected_s, memory, changes] { work(r, expected_s, memory, changes); });
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
void RunController::work(ResolvedScenario resolved, double expected_s, MemoryBreakdown memory, QString changes) {
  const Scenario& scenario = resolved.scenario;
  try {
    SimulationOptions options;
    options.record_trace = true;
    options.record_link_usage = true;
    options.cancel = &cancel_;
    options.on_progress = [this, expected_s](double simulated_s) { emit progress(simulated_s, expected_s); };
    auto run = std::make_shared<RunRecord>();
    run->label = QString("run %1 · %2").arg(runs_started_).arg(QString::fromStdString(scenario.name));
    if (!changes.isEmpty()) run->label += " · " + changes;
    run->result = simulate(resolved, options);
    run->memory = memory;
    if (run->result.engine.completed) run->report = make_report(resolved, run->result);
    run->scenario = scenario;
    emit finished(run);
    if (scenario.events.empty()) return;
    ResolvedScenario healthy = resolved;
    healthy.scenario.events.clear();
    SimulationOptions healthy_options;
    healthy_options.cancel = &cancel_;
    auto with_what_if = std::make_shared<RunRecord>(*run);
    with_what_if->what_if = format_what_if(scenario, run->result, simulate(healthy, healthy_options));
    emit whatIfReady(with_what_if);
  } catch (const SimulationCancelled&) {
    emit failed("cancelled");
  } catch (const std::exception& e) {
    emit failed(QString::fromStdString(e.what()));
  }
}

}  // namespace dtsim::gui
