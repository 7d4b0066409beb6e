#include "main_window.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include "chart_export.hpp"
#include "chrome_trace.hpp"
#include "compare_view.hpp"
#include "headline_figures.hpp"
#include "goodput_view.hpp"
#include "plan_view.hpp"
#include "run_controller.hpp"
#include "scenario_panel.hpp"
#include "strategy_view.hpp"
#include "summary_view.hpp"
#include "sweep_panel.hpp"
#include "timeline_view.hpp"
#include "topology_view.hpp"
#include "trace_panel.hpp"

namespace dtsim::gui {

MainWindow::MainWindow(const QString& source_dir, QWidget* parent) : QMainWindow(parent), source_dir_(source_dir) {
  panel_ = new ScenarioPanel(document_, source_dir + "/topologies");
  auto* scroll = new QScrollArea;
  scroll->setWidget(panel_);
  scroll->setWidgetResizable(true);
  scroll->setMinimumWidth(400);

  auto* left = new QWidget;
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(0, 0, 0, 0);
  left_layout->addWidget(scroll);
  auto* run_row = new QHBoxLayout;
  run_button_ = new QPushButton("Run");
  run_button_->setObjectName("run");
  run_button_->setToolTip("simulate one iteration (Ctrl+R)");
  cancel_button_ = new QPushButton("Cancel");
  cancel_button_->setObjectName("cancel");
  cancel_button_->setEnabled(false);
  progress_ = new QProgressBar;
  progress_->setRange(0, 100);
  progress_->setValue(0);
  run_row->addWidget(run_button_);
  run_row->addWidget(cancel_button_);
  run_row->addWidget(progress_, 1);
  left_layout->addLayout(run_row);
  // Why Run is greyed out, under it: the form's error may be scrolled out of sight.
  scenario_error_ = new QLabel;
  scenario_error_->setObjectName("scenario_error");
  scenario_error_->setStyleSheet("color: #b00020");
  scenario_error_->setWordWrap(true);
  scenario_error_->hide();
  left_layout->addWidget(scenario_error_);
  run_status_ = new QLabel;
  run_status_->setWordWrap(true);
  left_layout->addWidget(run_status_);

  summary_ = new SummaryView;
  timeline_ = new TimelineView;
  topology_ = new TopologyView;
  sweep_ = new SweepPanel;
  strategies_ = new StrategyView;
  plans_ = new PlanView;
  goodput_ = new GoodputView;
  compare_ = new CompareView;
  traces_ = new TracePanel(source_dir + "/topologies");
  compare_->setCostFunction([this](const Report& r) { return summary_->costOf(r); });
  tabs_ = new QTabWidget;
  tabs_->addTab(summary_, "Summary");
  tabs_->addTab(timeline_, "Timeline");
  tabs_->addTab(topology_, "Topology");
  tabs_->addTab(sweep_, "Sweep");
  tabs_->addTab(plans_, "Plan");
  tabs_->addTab(goodput_, "Goodput");
  tabs_->addTab(strategies_, "Strategies");
  tabs_->addTab(compare_, "Compare");
  tabs_->addTab(traces_, "Trace");

  auto* splitter = new QSplitter;
  splitter->addWidget(left);
  splitter->addWidget(tabs_);
  splitter->setStretchFactor(1, 1);
  setCentralWidget(splitter);
  resize(1500, 950);

  connect(plans_, &PlanView::layoutChosen, panel_, &ScenarioPanel::setFields);
  controller_ = new RunController(this);
  connect(run_button_, &QPushButton::clicked, this, [this] { run(); });
  connect(cancel_button_, &QPushButton::clicked, this, &MainWindow::cancel);
  connect(controller_, &RunController::estimated, summary_, &SummaryView::setEstimate);
  connect(controller_, &RunController::progress, this, [this](double simulated_s, double expected_s) {
    progress_->setValue(expected_s > 0 ? std::min(99, int(100 * simulated_s / expected_s)) : 0);
    run_status_->setText(QString("simulated %1 s of about %2 s").arg(simulated_s, 0, 'f', 3).arg(expected_s, 0, 'f', 3));
  });
  connect(controller_, &RunController::finished, this, [this](const RunPtr& run) {
    progress_->setValue(100);
    showRun(run);
    run_status_->setText(run->scenario.events.empty() ? "done" : "done; simulating the same run without events…");
  });
  connect(controller_, &RunController::whatIfReady, this, [this](const RunPtr& run) {
    showRun(run);
    run_status_->setText("done");
  });
  connect(controller_, &RunController::failed, this, [this](const QString& message) {
    summary_->setMessage(message);
    run_status_->setText(message == "cancelled" ? "cancelled" : "failed: see the Summary tab");
  });
  connect(controller_, &RunController::stopped, this, &MainWindow::runStopped);
  connect(panel_, &ScenarioPanel::checked, this, &MainWindow::scenarioChecked);
  connect(topology_, &TopologyView::eventRequested, panel_, &ScenarioPanel::addEvent);
  const auto share_price = [this] {
    goodput_->setCostInputs(CostInputs{.usd_per_gpu_hour = summary_->usdPerGpuHour(), .pue = kDefaultPue});
  };
  share_price();
  connect(summary_, &SummaryView::costInputsChanged, this, [this, share_price] {
    compare_->setRuns(kept_);
    share_price();
  });
  connect(compare_, &CompareView::removeRequested, this, [this](int i) {
    if (i < 0 || size_t(i) >= kept_.size()) return;
    kept_.erase(kept_.begin() + i);
    compare_->setRuns(kept_);
    summary_->setKeptRuns(kept_);
  });
  connect(compare_, &CompareView::showRequested, this, [this](int i) {
    if (i >= 0 && size_t(i) < kept_.size()) showRun(kept_[size_t(i)]);
  });
  buildMenus();
  updateTitle();
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open scenario…", QKeySequence::Open, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, "Open scenario", source_dir_ + "/scenarios", "Scenario (*.yaml *.yml)");
    if (!f.isEmpty()) openScenario(f);
  });
  file->addAction("&Save scenario as…", QKeySequence::SaveAs, this, [this] {
    const QString f = QFileDialog::getSaveFileName(this, "Save scenario", document_.file().parent_path().c_str(), "Scenario (*.yaml)");
    if (f.isEmpty()) return;
    if (const QString error = saveScenarioAs(f); !error.isEmpty()) QMessageBox::warning(this, "Save failed", error);
  });
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

  QMenu* run_menu = menuBar()->addMenu("&Run");
  run_menu->addAction("&Run", QKeySequence("Ctrl+R"), this, [this] { run(); });
  run_menu->addAction("&Cancel", QKeySequence("Ctrl+."), this, &MainWindow::cancel);
  run_menu->addAction("&Keep run for comparison", QKeySequence("Ctrl+K"), this, &MainWindow::keepCurrentRun);

  QMenu* exports = menuBar()->addMenu("&Export");
  exports->addAction("Report as &JSON…", this, [this] {
    exportWithDialog("report", "JSON (*.json)", [this](const QString& f) { return exportReportJson(f); });
  });
  exports->addAction("Report as &CSV…", this, [this] {
    exportWithDialog("report", "CSV (*.csv)", [this](const QString& f) { return exportReportCsv(f); });
  });
  exports->addAction("Chrome &trace (Perfetto)…", this, [this] {
    exportWithDialog("trace", "Chrome trace (*.json)", [this](const QString& f) { return exportTrace(f); });
  });
  exports->addAction("Current view as &PNG or SVG…", this, [this] {
    exportWithDialog("view", "PNG (*.png);;SVG (*.svg)", [this](const QString& f) { return exportCurrentView(f); });
  });
}

void MainWindow::exportWithDialog(const QString& what, const QString& filter,
                                  const std::function<QString(const QString&)>& save) {
  const QString f = QFileDialog::getSaveFileName(this, "Export " + what, QString(), filter);
  if (f.isEmpty()) return;
  const QString error = save(f);
  if (error.isEmpty()) statusBar()->showMessage("wrote " + f, 5000);
  else QMessageBox::warning(this, "Export failed", error);
}

void MainWindow::openScenario(const QString& file) {
  document_.open(file.toStdString());
  panel_->reload();
  updateTitle();
}

QString MainWindow::saveScenarioAs(const QString& file) {
  try {
    document_.saveAs(file.toStdString());
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  panel_->reload();
  updateTitle();
  return {};
}

void MainWindow::updateTitle() {
  const QString name = document_.isOpen() ? QFileInfo(QString::fromStdString(document_.file().string())).fileName() : "no scenario";
  setWindowTitle(QString("dtsim — %1%2").arg(name, document_.modified() ? " (edited)" : ""));
}

void MainWindow::scenarioChecked() {
  updateTitle();
  const ScenarioCheck& c = panel_->lastCheck();
  run_button_->setEnabled(c.scenario.has_value() && !controller_->isRunning());
  scenario_error_->setText(c.scenario ? QString() : panel_->errorText());
  scenario_error_->setVisible(!c.scenario.has_value());
  strategies_->setScenario(c.scenario);
  plans_->setScenario(c.scenario);
  goodput_->setScenario(c.scenario);
  // Strategies are compared for layer-graph models only: the tab is not offered for a transformer.
  tabs_->setTabVisible(tabs_->indexOf(strategies_), !c.scenario || c.scenario->layer_model.has_value());
  if (!c.scenario) return;
  const Scenario& s = *c.scenario;
  topology_->setCluster(s.cluster.topology, s.cluster.nodes);
  topology_->setEvents(s.events);
  if (current_ && current_->scenario.cluster.nodes == s.cluster.nodes &&
      current_->scenario.cluster.topology_file == s.cluster.topology_file)
    topology_->setUsage(current_->result.links, current_->result.engine.iteration_s);
  sweep_->setBase(document_.file(), document_.overrides(), s.events);
}

// The edits of the opened file in words, for the run's label: "training.micro_batch=2,
// parallelism.tp=4" (events said as such; at most three, then how many more).
QString MainWindow::describeEdits(const std::vector<FieldOverride>& edits) {
  QStringList parts;
  for (const FieldOverride& o : edits) {
    const QString path = QString::fromStdString(o.path);
    parts << (path == "events" ? QString("events edited") : path + "=" + QString::fromStdString(o.value));
  }
  if (parts.size() > 3) {
    const qsizetype more = parts.size() - 3;
    parts = parts.mid(0, 3);
    parts << QString("%1 more").arg(more);
  }
  return parts.join(", ");
}

bool MainWindow::run() {
  const ScenarioCheck& c = panel_->lastCheck();
  if (!c.scenario || controller_->isRunning()) return false;
  progress_->setValue(0);
  run_status_->setText("starting…");
  if (!controller_->start(*c.scenario, describeEdits(document_.overrides()))) {
    run_status_->setText("not simulated: see the Summary tab");
    return false;
  }
  run_button_->setEnabled(false);
  cancel_button_->setEnabled(true);
  return true;
}

void MainWindow::cancel() { controller_->cancel(); }

bool MainWindow::isRunning() const { return controller_->isRunning(); }

void MainWindow::runStopped() {
  cancel_button_->setEnabled(false);
  run_button_->setEnabled(panel_->lastCheck().scenario.has_value());
  emit runFinished();
}

void MainWindow::showRun(const RunPtr& run) {
  current_ = run;
  summary_->setRun(run);
  const Scenario& s = run->scenario;
  timeline_->setTrace(run->result.engine, s.cluster.topology.node.gpus);
  topology_->setCluster(s.cluster.topology, s.cluster.nodes);
  topology_->setEvents(s.events);
  topology_->setUsage(run->result.links, run->result.engine.iteration_s);
}

void MainWindow::keepCurrentRun() {
  if (!current_) return;
  for (RunPtr& kept : kept_)
    if (kept->label == current_->label) {  // its what-if twin arrived after it was kept
      kept = current_;
      compare_->setRuns(kept_);
      return;
    }
  kept_.push_back(current_);
  compare_->setRuns(kept_);
  summary_->setKeptRuns(kept_);
  statusBar()->showMessage(current_->label + " kept for comparison (Compare tab)", 5000);
}

QString MainWindow::progressText() const { return run_status_->text(); }

QString MainWindow::exportReportJson(const QString& file) const {
  if (!current_ || !current_->report) return "no completed run to export";
  return saveText(file, QString::fromStdString(report_to_json(*current_->report).dump(2) + "\n"));
}

QString MainWindow::exportReportCsv(const QString& file) const {
  if (!current_ || !current_->report) return "no completed run to export";
  const std::string csv = headline_csv({current_->label.toStdString()},
                                       {headline_figures(*current_->report, summary_->costOf(*current_->report))});
  return saveText(file, QString::fromStdString(csv));
}

QString MainWindow::exportTrace(const QString& file) const {
  if (!current_) return "no run to export";
  const Scenario& s = current_->scenario;
  return saveText(file, QString::fromStdString(
                            chrome_trace_json(current_->result.engine, s.parallelism, s.cluster.topology.node.gpus)));
}

QString MainWindow::exportCurrentView(const QString& file) const {
  QWidget* tab = tabs_->currentWidget();
  const QSize size = tab->size().expandedTo(QSize(800, 500));
  RenderFunction render;
  if (tab == summary_) render = [this](QPainter& p, QSize s) { summary_->renderBreakdown(p, s); };
  else if (tab == timeline_) render = [this](QPainter& p, QSize s) { timeline_->renderTo(p, s); };
  else if (tab == sweep_) render = [this](QPainter& p, QSize s) { sweep_->renderChart(p, s); };
  else if (tab == strategies_) render = [this](QPainter& p, QSize s) { strategies_->renderChart(p, s); };
  else if (tab == compare_) render = [this](QPainter& p, QSize) { compare_->render(&p); };
  else if (tab == traces_) render = [this](QPainter& p, QSize s) { traces_->timeline().renderTo(p, s); };
  else render = [this](QPainter& p, QSize s) { topology_->renderTo(p, s); };
  return saveDrawing(file, size, render, "dtsim " + tabs_->tabText(tabs_->currentIndex()));
}

}  // namespace dtsim::gui
