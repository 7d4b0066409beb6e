#include "strategy_view.hpp"

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>
#include <memory>
#include <thread>

#include "palette.hpp"
#include "qt_text.hpp"
#include "stacked_bar_chart.hpp"

namespace dtsim::gui {

namespace {

QString seconds(double s) { return QString::number(s, 'f', 4) + " s"; }

}  // namespace

StrategyView::StrategyView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  compare_button_ = new QPushButton("Compare strategies");
  compare_button_->setObjectName("compare_strategies");
  compare_button_->setToolTip("simulate the scenario's model and cluster with every data-parallel strategy");
  connect(compare_button_, &QPushButton::clicked, this, [this] { compare(); });
  top->addWidget(compare_button_);
  status_ = new QLabel;
  status_->setObjectName("strategy_status");
  status_->setWordWrap(true);
  top->addWidget(status_, 1);
  layout->addLayout(top);

  table_ = new QTableWidget(0, column_count);
  table_->setObjectName("strategy_table");
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setHorizontalHeaderLabels({"strategy", "iteration", "samples/s", "scaling", "compute", "exposed comm.",
                                     "other", "what limits it"});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();

  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setTitle("Where each strategy's iteration goes (mean over GPUs, seconds)");
  chart_ = new QChartView(chart);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(240);

  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(table_);
  split->addWidget(chart_);
  layout->addWidget(split, 1);
  refreshButton();
}

StrategyView::~StrategyView() {
  if (thread_) thread_->wait();
}

void StrategyView::setScenario(const std::optional<Scenario>& scenario) {
  scenario_ = scenario;
  refreshButton();
}

void StrategyView::refreshButton() {
  const bool layer_model = scenario_ && scenario_->layer_model;
  compare_button_->setEnabled(layer_model && !thread_);
  if (thread_) return;
  if (!scenario_) status_->setText("the scenario does not load: see the error under the form");
  else if (!layer_model)
    status_->setText("strategies are compared for layer-graph models (model.zoo or model.layers_file); this "
                     "scenario's model is a transformer: use the Sweep tab for its parallel layouts");
  else if (!comparison_) status_->setText("press Compare strategies to simulate every data-parallel strategy");
}

bool StrategyView::compare() {
  if (thread_ || !scenario_ || !scenario_->layer_model) return false;
  struct Outcome {
    std::optional<StrategyComparison> comparison;
    QString error;
  };
  auto outcome = std::make_shared<Outcome>();
  const int parallel = int(std::max(1u, std::thread::hardware_concurrency()));
  thread_ = QThread::create([outcome, s = *scenario_, parallel] {
    try {
      outcome->comparison = compare_strategies(s, parallel);
    } catch (const std::exception& e) {
      outcome->error = q(e.what());
    }
  });
  connect(thread_, &QThread::finished, this, [this, outcome] {
    thread_->deleteLater();
    thread_ = nullptr;
    if (outcome->comparison) show(*outcome->comparison);
    else status_->setText("not compared: " + outcome->error);
    refreshButton();
    emit finished();
  });
  status_->setText(QString("simulating %1 strategies…").arg(strategy_variants(*scenario_).size()));
  compare_button_->setEnabled(false);
  thread_->start();
  return true;
}

void StrategyView::show(const StrategyComparison& c) {
  comparison_ = c;
  status_->setText(QString("%1: %2 on %3 × %4 (%5 nodes); one GPU alone %6 %7s/s (%8)")
                       .arg(q(c.scenario), q(c.model)).arg(c.gpus).arg(q(c.gpu)).arg(c.nodes)
                       .arg(c.single_gpu_samples_per_s, 0, 'f', 1).arg(q(c.sample_unit))
                       .arg(c.single_gpu_measured ? "the scenario's reference" : "the device model"));
  table_->setHorizontalHeaderItem(throughput_column, new QTableWidgetItem(q(c.sample_unit) + "s/s"));
  table_->setRowCount(int(c.rows.size()));
  for (int row = 0; row < int(c.rows.size()); ++row) {
    const StrategyOutcome& r = c.rows[size_t(row)];
    QStringList cells(column_count);
    cells[strategy_column] = q(r.strategy);
    if (r.error.empty()) {
      cells[iteration_column] = seconds(r.iteration_s);
      cells[throughput_column] = QString::number(r.samples_per_s, 'f', 1);
      cells[scaling_column] = QString::number(100 * r.scaling_efficiency, 'f', 1) + " %";
      cells[compute_column] = seconds(r.compute_s);
      cells[exposed_column] = seconds(r.exposed_communication_s);
      cells[other_column] = seconds(r.other_s);
      cells[bottleneck_column] = q(r.bottleneck);
    } else {
      cells[bottleneck_column] = "not simulated: " + q(r.error);
    }
    for (int column = 0; column < column_count; ++column) {
      auto* item = new QTableWidgetItem(cells[column]);
      item->setToolTip(cells[column]);
      if (!r.error.empty() && column == bottleneck_column) item->setForeground(palette::failed());
      table_->setItem(row, column, item);
    }
  }
  table_->resizeColumnsToContents();
  showChart(c);
}

void StrategyView::showChart(const StrategyComparison& c) {
  struct Part {
    const char* name;
    QColor colour;
    double StrategyOutcome::*field;
  };
  const Part parts[] = {{"compute", palette::compute(), &StrategyOutcome::compute_s},
                        {"exposed communication", palette::communication(), &StrategyOutcome::exposed_communication_s},
                        {"other", palette::other(), &StrategyOutcome::other_s}};
  std::vector<const StrategyOutcome*> simulated;
  for (const StrategyOutcome& r : c.rows)
    if (r.error.empty()) simulated.push_back(&r);
  std::reverse(simulated.begin(), simulated.end());  // the scenario's own strategy at the top
  QStringList categories;
  double longest_s = 0;
  for (const StrategyOutcome* r : simulated) {
    categories << QString("%1 · %2 %3s/s").arg(q(r->strategy)).arg(r->samples_per_s, 0, 'f', 1).arg(q(c.sample_unit));
    longest_s = std::max(longest_s, r->iteration_s);
  }
  std::vector<StackedPart> bars;
  for (const Part& p : parts) {
    bars.push_back({p.name, p.colour, {}});
    for (const StrategyOutcome* r : simulated) bars.back().seconds << r->*p.field;
  }
  show_stacked_seconds(*chart_->chart(), categories, bars, longest_s, "seconds per iteration");
}

QString StrategyView::cellText(int row, int column) const {
  const QTableWidgetItem* item = table_->item(row, column);
  return item ? item->text() : QString();
}

QString StrategyView::statusText() const { return status_->text(); }

void StrategyView::renderChart(QPainter& painter, QSize size) const {
  chart_->render(&painter, QRectF(QPointF(0, 0), size));
}

}  // namespace dtsim::gui
