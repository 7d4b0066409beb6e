#include "summary_view.hpp"

#include <QChart>
#include <QChartView>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QVBoxLayout>
#include <algorithm>

#include "headline_figures.hpp"
#include "memory_model.hpp"
#include "palette.hpp"
#include "stacked_bar_chart.hpp"

namespace dtsim::gui {

namespace {

QLabel* big_label() {
  auto* l = new QLabel("–");
  QFont f = l->font();
  f.setPointSizeF(f.pointSizeF() * 1.5);
  f.setBold(true);
  l->setFont(f);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

}  // namespace

SummaryView::SummaryView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel("No run yet: edit the scenario on the left and press Run.");
  title_->setWordWrap(true);
  layout->addWidget(title_);

  auto* numbers = new QGroupBox("Headline");
  auto* grid = new QGridLayout(numbers);
  const Report empty;
  for (const HeadlineFigure& f : headline_figures(empty, {})) {
    const int i = int(figures_.size());
    names_.push_back(new QLabel(QString::fromStdString(f.label)));
    figures_.push_back(big_label());
    keys_.push_back(f.key);
    grid->addWidget(names_.back(), i / 4 * 2, i % 4);
    grid->addWidget(figures_.back(), i / 4 * 2 + 1, i % 4);
  }
  layout->addWidget(numbers);

  auto* inputs = new QHBoxLayout;
  amount_ = new QLineEdit(QString::number(usual_training_amount(unit_), 'g', 10));
  amount_->setObjectName("training_amount");
  amount_->setToolTip("how much to train on, in the run's unit (tokens, images, sequences, records), for the "
                      "time and cost to train; each unit starts at a usual run's length");
  amount_unit_ = new QLabel("tokens at $");
  price_ = new QLineEdit("2.00");
  price_->setObjectName("usd_per_gpu_hour");
  price_->setToolTip("price of one GPU-hour, US dollars");
  inputs->addWidget(new QLabel("train on"));
  inputs->addWidget(amount_);
  inputs->addWidget(amount_unit_);
  inputs->addWidget(price_);
  inputs->addWidget(new QLabel("per GPU-hour"));
  inputs->addStretch();
  layout->addLayout(inputs);
  for (QLineEdit* e : {amount_, price_})
    connect(e, &QLineEdit::textChanged, this, [this] {
      refreshFigures();
      emit costInputsChanged();
    });

  message_ = new QLabel;
  message_->setWordWrap(true);
  message_->setObjectName("message");
  message_->setStyleSheet("color: #b00020");
  message_->hide();
  layout->addWidget(message_);

  auto* chart = new QChart;
  chart->setTitle("Where the iteration goes (mean over GPUs, seconds)");
  chart_ = new QChartView(chart);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(220);
  layout->addWidget(chart_, 2);

  details_ = new QPlainTextEdit;
  details_->setReadOnly(true);
  details_->setObjectName("details");
  QFont mono("DejaVu Sans Mono");
  mono.setStyleHint(QFont::Monospace);
  details_->setFont(mono);
  layout->addWidget(details_, 1);
}

double SummaryView::trainingAmount(const std::string& unit) const {
  if (unit != unit_) {
    const auto held = amounts_.find(unit);
    return held != amounts_.end() ? held->second : usual_training_amount(unit);
  }
  bool ok = false;
  const double a = amount_->text().toDouble(&ok);
  return ok && a > 0 ? a : 0;
}

// The amount field follows the current run's unit: a number of tokens means nothing in images.
void SummaryView::showAmountIn(const std::string& unit) {
  if (unit == unit_) return;
  amounts_[unit_] = trainingAmount(unit_);
  const double amount = trainingAmount(unit);
  unit_ = unit;
  amount_unit_->setText(QString::fromStdString(unit + "s at $"));
  amount_->setText(QString::number(amount, 'g', 10));
}

double SummaryView::usdPerGpuHour() const {
  bool ok = false;
  const double p = price_->text().toDouble(&ok);
  return ok && p >= 0 ? p : 0;
}

TrainingCost SummaryView::costOf(const Report& r) const {
  return training_cost(r, trainingAmount(r.throughput_unit()), usdPerGpuHour());
}

void SummaryView::setEstimate(double analytic_iteration_s) {
  title_->setText(QString("Simulating… analytic estimate %1 s").arg(analytic_iteration_s, 0, 'f', 4));
  message_->hide();
}

void SummaryView::setMessage(const QString& text) {
  message_->setText(text);
  message_->setVisible(!text.isEmpty());
}

void SummaryView::setRun(const RunPtr& run) {
  run_ = run;
  message_->hide();
  if (run_ && run_->report) showAmountIn(run_->report->throughput_unit());
  refreshFigures();
  refreshChart();
}

void SummaryView::setKeptRuns(const std::vector<RunPtr>& kept) {
  kept_ = kept;
  refreshChart();
}

QString SummaryView::figureText(const QString& key) const {
  const auto at = std::find(keys_.begin(), keys_.end(), key.toStdString());
  return at == keys_.end() ? QString() : figures_[size_t(at - keys_.begin())]->text();
}

void SummaryView::refreshFigures() {
  if (!run_) return;
  const Scenario& s = run_->scenario;
  QString title =
      QString("%1 · %2 × %3 · ").arg(run_->label).arg(s.gpu_count()).arg(QString::fromStdString(s.cluster.gpu));
  if (s.layer_model)
    title += QString("dp %1 · %2").arg(s.parallelism.dp).arg(to_string(s.data_parallel.strategy));
  else
    title += QString("tp %1 cp %2 pp %3 dp %4 · %5")
                 .arg(s.parallelism.tp).arg(s.parallelism.cp).arg(s.parallelism.pp).arg(s.parallelism.dp)
                 .arg(to_string(s.parallelism.schedule));
  std::string details;
  if (run_->report) {
    const std::vector<HeadlineFigure> figures = headline_figures(*run_->report, costOf(*run_->report));
    for (size_t i = 0; i < figures.size() && i < figures_.size(); ++i) {
      figures_[i]->setText(QString::fromStdString(figures[i].text));
      names_[i]->setText(QString::fromStdString(figures[i].label));
      keys_[i] = figures[i].key;
    }
    // Parameter servers have no closed-form estimate (Report::analytic_iteration_s stays 0).
    if (run_->report->analytic_iteration_s > 0)
      title += QString(" · analytic %1 s").arg(run_->report->analytic_iteration_s, 0, 'f', 4);
    details = format_report_text(*run_->report);
  } else {
    for (QLabel* l : figures_) l->setText("–");
    setMessage(QString("The iteration could not complete: %1 GPUs stopped; progress stopped at %2 s.")
                   .arg(run_->result.engine.unfinished_ranks)
                   .arg(run_->result.engine.stopped_s, 0, 'f', 4));
  }
  if (!run_->what_if.empty()) details = run_->what_if + "\n" + details;
  details += "memory per GPU (pipeline stage " + std::to_string(run_->memory.stage) + ")\n" + format_memory(run_->memory);
  title_->setText(title);
  details_->setPlainText(QString::fromStdString(details));
}

void SummaryView::refreshChart() {
  std::vector<RunPtr> runs = kept_;
  if (run_ && std::find(runs.begin(), runs.end(), run_) == runs.end()) runs.push_back(run_);
  std::erase_if(runs, [](const RunPtr& r) { return !r->report; });
  if (runs.empty()) {
    clear_chart(*chart_->chart());
    return;
  }
  struct Part {
    const char* name;
    QColor colour;
    double Breakdown::*field;
  };
  const Part parts[] = {{"compute", palette::compute(), &Breakdown::compute_s},
                        {"exposed communication", palette::communication(), &Breakdown::communication_s},
                        {"pipeline bubble", palette::bubble(), &Breakdown::bubble_s},
                        {"waiting for data", palette::input_wait(), &Breakdown::input_wait_s},
                        {"other", palette::other(), &Breakdown::other_s}};
  QStringList categories;
  double longest_s = 0;
  for (const RunPtr& r : runs) {
    categories << r->label;
    longest_s = std::max(longest_s, r->report->iteration_s);
  }
  std::vector<StackedPart> bars;
  for (const Part& p : parts) {
    bars.push_back({p.name, p.colour, {}});
    for (const RunPtr& r : runs) bars.back().seconds << r->report->mean_breakdown.*p.field;
  }
  show_stacked_seconds(*chart_->chart(), categories, bars, longest_s, "seconds");
}

void SummaryView::renderBreakdown(QPainter& painter, QSize size) const {
  chart_->render(&painter, QRectF(QPointF(0, 0), size));
}

}  // namespace dtsim::gui
