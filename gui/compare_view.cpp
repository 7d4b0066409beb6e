#include "compare_view.hpp"

#include <QHeaderView>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <fmt/format.h>

#include "headline_figures.hpp"
#include "planner.hpp"
#include "what_if.hpp"

namespace dtsim::gui {

namespace {

std::string events_of(const Scenario& s) {
  std::string text;
  for (const Event& e : s.events) text += (text.empty() ? "" : "; ") + describe_event(e);
  return text.empty() ? "none" : text;
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel("Kept runs, side by side. The first column is the baseline; the others say how "
                               "they differ from it. Double-click a column to show that run."));
  table_ = new QTableWidget;
  table_->setObjectName("compare_table");
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectColumns);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  layout->addWidget(table_);
  auto* buttons = new QHBoxLayout;
  auto* remove = new QPushButton("Remove selected run");
  buttons->addWidget(remove);
  buttons->addStretch();
  layout->addLayout(buttons);
  connect(remove, &QPushButton::clicked, this, [this] {
    if (table_->currentColumn() >= 0) emit removeRequested(table_->currentColumn());
  });
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int, int column) { emit showRequested(column); });
}

void CompareView::setCostFunction(std::function<TrainingCost(const Report&)> cost) {
  cost_ = std::move(cost);
  refresh();
}

void CompareView::setRuns(const std::vector<RunPtr>& runs) {
  runs_ = runs;
  refresh();
}

void CompareView::refresh() {
  const QStringList settings = {"scenario", "gpus", "layout", "events"};
  // Rows named after the first completed run's figures (a layer model's throughput is in images,
  // sequences or records), after a transformer's when none completed.
  Report first;
  for (const RunPtr& r : runs_)
    if (r->report) {
      first = *r->report;
      break;
    }
  const std::vector<HeadlineFigure> names = headline_figures(first, cost_ ? cost_(first) : TrainingCost{});
  row_keys_ = settings;
  QStringList row_labels = {"scenario", "GPUs", "layout", "events"};
  for (const HeadlineFigure& f : names) {
    row_keys_ << QString::fromStdString(f.key);
    row_labels << QString::fromStdString(f.label);
  }
  table_->clear();
  table_->setRowCount(int(row_keys_.size()));
  table_->setColumnCount(int(runs_.size()));
  table_->setVerticalHeaderLabels(row_labels);
  std::vector<HeadlineFigure> baseline;
  for (size_t c = 0; c < runs_.size(); ++c) {
    const RunRecord& run = *runs_[c];
    table_->setHorizontalHeaderItem(int(c), new QTableWidgetItem(run.label));
    const Scenario& s = run.scenario;
    // A layer model is data-parallel only: its layout is dp, the micro-batch and how it synchronises.
    const std::string layout = s.layer_model ? fmt::format("dp{} mb{} {}", s.parallelism.dp, s.training.micro_batch,
                                                           to_string(s.data_parallel.strategy))
                                             : layout_label(s.parallelism, s.training);
    const std::string cells[] = {s.name, std::to_string(s.gpu_count()) + " × " + s.cluster.gpu, layout, events_of(s)};
    for (int r = 0; r < settings.size(); ++r) table_->setItem(r, int(c), new QTableWidgetItem(QString::fromStdString(cells[r])));
    if (!run.report) {
      table_->setItem(int(settings.size()), int(c), new QTableWidgetItem("did not complete"));
      continue;
    }
    const std::vector<HeadlineFigure> figures = headline_figures(*run.report, cost_ ? cost_(*run.report) : TrainingCost{});
    if (baseline.empty()) baseline = figures;
    for (size_t i = 0; i < figures.size(); ++i) {
      QString text = QString::fromStdString(figures[i].text);
      auto* item = new QTableWidgetItem;
      // No change in % between runs counted in different units (tokens against images).
      if (c > 0 && baseline[i].value != 0 && baseline[i].key == figures[i].key) {
        const double change = figures[i].value / baseline[i].value - 1;
        text += QString("  (%1%2 %)").arg(change >= 0 ? "+" : "").arg(100 * change, 0, 'f', 1);
        const bool better = figures[i].higher_is_better ? change > 0 : change < 0;
        if (std::abs(change) > 1e-3) item->setForeground(better ? QColor(0x1B, 0x7F, 0x3B) : QColor(0xB0, 0x00, 0x20));
      }
      item->setText(text);
      table_->setItem(int(settings.size() + i), int(c), item);
    }
  }
}

QString CompareView::cellText(int row, int column) const {
  const QTableWidgetItem* item = table_->item(row, column);
  return item ? item->text() : QString();
}

int CompareView::rowOf(const QString& key) const { return int(row_keys_.indexOf(key)); }

QString CompareView::csv() const {
  std::vector<std::string> labels;
  std::vector<std::vector<HeadlineFigure>> figures;
  for (const RunPtr& r : runs_)
    if (r->report) {
      labels.push_back(r->label.toStdString());
      figures.push_back(headline_figures(*r->report, cost_ ? cost_(*r->report) : TrainingCost{}));
    }
  return QString::fromStdString(headline_csv(labels, figures));
}

}  // namespace dtsim::gui
