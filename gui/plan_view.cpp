#include "plan_view.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <memory>

#include "input_error.hpp"
#include "qt_text.hpp"
#include "training_cost.hpp"  // with_thousands

namespace dtsim::gui {

namespace {

const QStringList kHeaders = {"GPUs", "rank", "tp", "cp", "pp", "v", "dp", "ep", "micro-batch", "schedule",
                              "recompute", "ZeRO", "memory GB", "s/iter", "from", "tokens/s", "MFU %"};

}  // namespace

PlanView::PlanView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel("GPUs"));
  counts_ = new QLineEdit;
  counts_->setObjectName("plan_gpus");
  counts_->setToolTip("GPU counts to plan for: 1024, a list 512,1024, or a range 256-2048 (its powers of two)");
  top->addWidget(counts_);
  plan_button_ = new QPushButton("Plan layouts");
  plan_button_->setObjectName("plan");
  plan_button_->setToolTip("rank the parallel layouts of the scenario's model on these GPU counts (dtsim plan)");
  connect(plan_button_, &QPushButton::clicked, this, [this] { plan(); });
  top->addWidget(plan_button_);
  status_ = new QLabel;
  status_->setObjectName("plan_status");
  status_->setWordWrap(true);
  top->addWidget(status_, 1);
  layout->addLayout(top);
  table_ = new QTableWidget(0, int(kHeaders.size()));
  table_->setObjectName("plan_table");
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setHorizontalHeaderLabels(kHeaders);
  table_->verticalHeader()->hide();
  table_->setToolTip("double-click a layout to put it into the scenario");
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { choose(row); });
  layout->addWidget(table_, 1);
  setScenario(std::nullopt);
}

PlanView::~PlanView() {
  if (thread_) thread_->wait();
}

void PlanView::setScenario(const std::optional<Scenario>& scenario) {
  const bool gpus_were_the_scenarios = !scenario_ || counts_->text() == QString::number(scenario_->gpu_count());
  scenario_ = scenario;
  if (scenario_ && gpus_were_the_scenarios) counts_->setText(QString::number(scenario_->gpu_count()));
  const bool plannable = scenario_ && !scenario_->layer_model;
  plan_button_->setEnabled(plannable && !thread_);
  if (thread_) return;
  if (!scenario_) status_->setText("the scenario does not load: see the error under the form");
  else if (!plannable) status_->setText("layouts are planned for transformer models; this scenario's is a layer graph");
  else if (!result_) status_->setText("press Plan layouts to rank the layouts of the scenario's model");
}

bool PlanView::plan() {
  if (thread_ || !scenario_ || scenario_->layer_model) return false;
  PlanRequest request;
  request.model = scenario_->model;
  request.gpu = scenario_->cluster.gpu;
  request.topology_file = scenario_->cluster.topology_file;
  request.global_batch = scenario_->training.global_batch;
  request.precision = scenario_->training.precision;
  try {
    request.gpu_counts = parse_gpu_counts("GPUs", counts_->text().toStdString(), scenario_->cluster.topology.node.gpus);
  } catch (const InputError& e) {
    status_->setText(q(e.what()));
    return false;
  }
  struct Outcome {
    std::optional<PlanResult> result;
    QString error;
  };
  auto outcome = std::make_shared<Outcome>();
  thread_ = QThread::create([outcome, request] {
    try {
      outcome->result = plan_layouts(request);
    } catch (const std::exception& e) {
      outcome->error = q(e.what());
    }
  });
  connect(thread_, &QThread::finished, this, [this, outcome] {
    thread_->deleteLater();
    thread_ = nullptr;
    if (outcome->result) show(*outcome->result);
    else status_->setText("not planned: " + outcome->error);
    setScenario(scenario_);
    emit finished();
  });
  status_->setText("planning…");
  plan_button_->setEnabled(false);
  thread_->start();
  return true;
}

void PlanView::show(const PlanResult& r) {
  result_ = r;
  shown_.clear();
  for (size_t i = 0; i < r.rows.size(); ++i)
    if (r.rank_in_count(i) <= kRowsPerCount) shown_.push_back(i);
  table_->setRowCount(int(shown_.size()));
  for (int row = 0; row < int(shown_.size()); ++row) {
    const PlanRow& p = r.rows[shown_[size_t(row)]];
    const ParallelismConfig& l = p.parallelism;
    const double t = p.simulated_s.value_or(p.analytic_s);
    const QStringList cells = {QString::number(p.gpus), QString::number(r.rank_in_count(shown_[size_t(row)])),
                               QString::number(l.tp), QString::number(l.cp), QString::number(l.pp),
                               QString::number(l.virtual_stages), QString::number(l.dp), QString::number(l.ep),
                               QString::number(p.training.micro_batch), q(to_string(l.schedule)),
                               q(to_string(p.training.recompute)), QString::number(l.zero_stage),
                               QString::number(p.memory_bytes / 1e9, 'f', 1), QString::number(t, 'f', 3),
                               p.simulated_s ? "simulated" : "estimate", q(with_thousands(p.tokens_per_s)),
                               QString::number(100 * p.mfu, 'f', 1)};
    for (int column = 0; column < int(cells.size()); ++column)
      table_->setItem(row, column, new QTableWidgetItem(cells[column]));
  }
  table_->resizeColumnsToContents();
  status_->setText(QString("%1 layouts searched: %2 invalid, %3 out of memory, %4 estimated, %5 simulated; "
                           "double-click a row to use it")
                       .arg(r.enumerated).arg(r.invalid).arg(r.out_of_memory).arg(r.estimated).arg(r.simulated));
}

int PlanView::rowCount() const { return table_->rowCount(); }

QString PlanView::cellText(int row, int column) const {
  const QTableWidgetItem* item = table_->item(row, column);
  return item ? item->text() : QString();
}

QString PlanView::statusText() const { return status_->text(); }

bool PlanView::choose(int row) {
  if (!result_ || row < 0 || row >= int(shown_.size())) return false;
  // The layout as `plan --write-scenario` writes it: every parallelism field, the micro-batch, the
  // recompute and the node count.
  QList<QPair<QString, QString>> fields;
  for (const FieldOverride& o : layout_overrides(result_->scenario_of(result_->rows[shown_[size_t(row)]])))
    fields.append({q(o.path), q(o.value)});
  emit layoutChosen(fields);
  return true;
}

}  // namespace dtsim::gui
