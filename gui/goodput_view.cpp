#include "goodput_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <filesystem>
#include <memory>

#include "memory_model.hpp"
#include "qt_text.hpp"
#include "reliability_config.hpp"
#include "simulation.hpp"
#include "wheel_guard.hpp"

namespace dtsim::gui {

namespace {

const QStringList kHeaders = {"recovery",     "days, mean", "days, p90", "goodput %", "lost work h",
                              "restarting h", "waiting h",  "GPU-hours", "cost $",    "energy MWh"};
constexpr double kDay_s = 86400, kHour_s = 3600;

QString fixed(double v, int decimals) { return QString::number(v, 'f', decimals); }

}  // namespace

GoodputView::GoodputView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel("checkpoints"));
  mode_ = new QComboBox;
  mode_->setObjectName("goodput_checkpoint_mode");
  for (CheckpointMode m : kCheckpointModes) mode_->addItem(q(to_string(m)));
  mode_->setToolTip("blocking: the job stops while the checkpoint is written; async: only while it is copied to "
                    "host memory; in_memory: the same, then kept in a peer node's memory");
  ignore_wheel_unless_focused(mode_);
  top->addWidget(mode_);
  top->addWidget(new QLabel("training"));
  amount_ = new QLineEdit;
  amount_->setObjectName("goodput_amount");
  amount_->setPlaceholderText("the scenario's, else 20 tokens per parameter");
  amount_->setToolTip("tokens (a transformer) or samples (a layer-graph model) to train on, e.g. 1.5e13");
  top->addWidget(amount_, 1);
  top->addWidget(new QLabel("runs"));
  runs_ = new QSpinBox;
  runs_->setObjectName("goodput_runs");
  runs_->setRange(1, 100000);
  runs_->setValue(200);
  ignore_wheel_unless_focused(runs_);
  top->addWidget(runs_);
  button_ = new QPushButton("Estimate goodput");
  button_->setObjectName("estimate_goodput");
  button_->setToolTip("simulate one iteration, then the whole training run with failures (dtsim goodput)");
  connect(button_, &QPushButton::clicked, this, [this] { estimate(); });
  top->addWidget(button_);
  layout->addLayout(top);
  status_ = new QLabel;
  status_->setObjectName("goodput_status");
  status_->setWordWrap(true);
  layout->addWidget(status_);
  table_ = new QTableWidget(0, int(kHeaders.size()));
  table_->setObjectName("goodput_table");
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setHorizontalHeaderLabels(kHeaders);
  table_->verticalHeader()->hide();
  layout->addWidget(table_, 1);
  setScenario(std::nullopt);
}

GoodputView::~GoodputView() {
  if (thread_) thread_->wait();
}

void GoodputView::setScenario(const std::optional<Scenario>& scenario) {
  scenario_ = scenario;
  button_->setEnabled(scenario_ && !thread_);
  if (thread_) return;
  if (!scenario_) status_->setText("the scenario does not load: see the error under the form");
  else if (!result_) status_->setText("press Estimate goodput for the whole training run with failures");
}

void GoodputView::setCheckpointMode(CheckpointMode mode) { mode_->setCurrentText(q(to_string(mode))); }
void GoodputView::setTrainingAmount(const QString& amount) { amount_->setText(amount); }
void GoodputView::setRuns(int runs) { runs_->setValue(runs); }

bool GoodputView::estimate() {
  if (thread_ || !scenario_) return false;
  ReliabilityConfig config;
  try {
    if (!scenario_->source_file.empty() && std::filesystem::is_regular_file(scenario_->source_file))
      config = load_reliability_config(scenario_->source_file);
  } catch (const std::exception& e) {
    status_->setText(q(e.what()));
    return false;
  }
  config.checkpoint.mode = kCheckpointModes[std::max(0, mode_->currentIndex())];
  if (!amount_->text().trimmed().isEmpty()) {
    bool ok = false;
    const double amount = amount_->text().trimmed().toDouble(&ok);
    if (!ok || !(amount > 0) || amount > 1e30) {
      status_->setText("training: expected a number of tokens or samples > 0 (at most 1e30), found '" +
                       amount_->text() + "'");
      return false;
    }
    config.training = TrainingLength{};
    (scenario_->layer_model ? config.training.samples : config.training.tokens) = amount;
  }
  const Scenario scenario = *scenario_;
  const int runs = runs_->value();
  const CostInputs inputs = cost_inputs_;
  struct Outcome {
    std::optional<Result> result;
    QString error;
  };
  auto outcome = std::make_shared<Outcome>();
  thread_ = QThread::create([outcome, scenario, config, runs, inputs] {
    try {
      const MemoryBreakdown memory = peak_memory_per_gpu(scenario);
      if (!memory.fits()) {
        outcome->error = q(format_out_of_memory(scenario, memory));
        return;
      }
      const SimulationResult simulated = simulate(scenario);
      if (!simulated.engine.completed) {
        outcome->error = "an event of the scenario stops the iteration: goodput needs its time";
        return;
      }
      Result r;
      r.setup = make_goodput_setup(scenario, config, simulated.engine.iteration_s);
      r.strategies = monte_carlo_by_strategy(
          r.setup, {std::begin(kRecoveryStrategies), std::end(kRecoveryStrategies)}, runs, kSeed);
      r.closed_form = closed_form_run(r.setup.problem, r.setup.interval_s);
      r.cost = wall_clock_cost(scenario, inputs);
      outcome->result = r;
    } catch (const std::exception& e) {
      outcome->error = q(e.what());
    }
  });
  connect(thread_, &QThread::finished, this, [this, outcome] {
    thread_->deleteLater();
    thread_ = nullptr;
    result_ = outcome->result;
    if (result_) show(*result_);
    else status_->setText("not estimated: " + outcome->error);
    button_->setEnabled(scenario_.has_value());
    emit finished();
  });
  status_->setText("simulating one iteration, then the training run…");
  button_->setEnabled(false);
  thread_->start();
  return true;
}

void GoodputView::show(const Result& r) {
  const auto days = [](double s) { return std::isfinite(s) ? fixed(s / kDay_s, 2) : QString("inf"); };
  const auto hours = [](double s) { return fixed(s / kHour_s, 1); };
  const auto money = [&](double wall_s) {
    return QStringList{q(with_thousands(r.cost.gpu_hours(wall_s))), q(with_thousands(r.cost.cost_usd(wall_s))),
                       fixed(r.cost.energy_mwh(wall_s), 0)};
  };
  table_->setRowCount(int(r.strategies.size()) + 1);
  auto put = [&](int row, const QStringList& cells) {
    for (int column = 0; column < int(cells.size()); ++column)
      table_->setItem(row, column, new QTableWidgetItem(cells[column]));
  };
  for (int row = 0; row < int(r.strategies.size()); ++row) {
    const MonteCarloResult& m = r.strategies[size_t(row)].mc;
    const QString bound = m.unfinished > 0 ? ">" : "";  // stopped runs: lower bounds
    put(row, QStringList{q(to_string(r.strategies[size_t(row)].strategy)), bound + days(m.mean_wall_s),
                         bound + days(m.p90_wall_s), (m.unfinished > 0 ? "<" : "") + fixed(100 * m.goodput, 2),
                         hours(m.mean_lost_s), hours(m.mean_restart_s), hours(m.mean_wait_s)} +
                 money(m.mean_wall_s));
  }
  const ClosedFormRun& c = r.closed_form;
  const double goodput = std::isfinite(c.wall_s) && c.wall_s > 0 ? c.compute_s / c.wall_s : 0;
  put(int(r.strategies.size()), QStringList{"closed form", days(c.wall_s), "", fixed(100 * goodput, 2),
                                            hours(c.lost_s), hours(c.recovery_s), hours(0)} +
                                    money(c.wall_s));
  table_->resizeColumnsToContents();
  const GoodputSetup& g = r.setup;
  const double rate = g.problem.failure_rate_per_s();
  status_->setText(
      QString("iteration %1 s, %2 iterations (%3), %4 days of compute; a failure every %5 h; checkpoints %6: "
              "the job stops %7 s each, safe %8 s later, every %9 s; restart %10 s; %11 Monte Carlo runs, seed %12; "
              "the cluster held and powered the whole time at $%13/GPU-h, PUE %14")
          .arg(fixed(g.iteration_s, 3), q(with_thousands(g.iterations)), q(g.training_source),
               fixed(g.problem.work_s / kDay_s, 2), rate > 0 ? fixed(1 / rate / kHour_s, 1) : QString("never"),
               q(to_string(g.mode)), fixed(g.problem.checkpoint_stall_s, 2), fixed(g.problem.checkpoint_persist_s, 2),
               fixed(g.interval_s, 0), fixed(g.problem.recovery_s, 0))
          .arg(r.strategies.empty() ? 0 : r.strategies.front().mc.runs)
          .arg(kSeed)
          .arg(fixed(r.cost.inputs.usd_per_gpu_hour, 2))
          .arg(r.cost.inputs.pue));
}

int GoodputView::rowCount() const { return table_->rowCount(); }

QString GoodputView::cellText(int row, int column) const {
  const QTableWidgetItem* item = table_->item(row, column);
  return item ? item->text() : QString();
}

QString GoodputView::statusText() const { return status_->text(); }

}  // namespace dtsim::gui
