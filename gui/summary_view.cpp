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

const char* const kFigureKeys[] = {"iteration_s", "tokens_per_s", "model_tflops_per_gpu", "mfu_percent",
                                   "memory_gb_per_gpu", "time_to_train_days", "gpu_hours", "cost_usd"};

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
  const std::vector<HeadlineFigure> names = headline_figures(empty, {});
  for (size_t i = 0; i < names.size(); ++i) {
    auto* name = new QLabel(QString::fromStdString(names[i].label));
    name->setObjectName(QString("label_") + kFigureKeys[i]);
    names_[kFigureKeys[i]] = name;
    QLabel* value = big_label();
    value->setObjectName(QString("figure_") + kFigureKeys[i]);
    figures_[kFigureKeys[i]] = value;
    grid->addWidget(name, int(i / 4) * 2, int(i % 4));
    grid->addWidget(value, int(i / 4) * 2 + 1, int(i % 4));
  }
  layout->addWidget(numbers);

  auto* inputs = new QHBoxLayout;
  tokens_ = new QLineEdit("300e9");
  tokens_->setObjectName("tokens");
  tokens_->setToolTip("tokens to train on, for the time and cost to train");
  price_ = new QLineEdit("2.00");
  price_->setObjectName("usd_per_gpu_hour");
  price_->setToolTip("price of one GPU-hour, US dollars");
  inputs->addWidget(new QLabel("train on"));
  inputs->addWidget(tokens_);
  inputs->addWidget(new QLabel("tokens at $"));
  inputs->addWidget(price_);
  inputs->addWidget(new QLabel("per GPU-hour"));
  inputs->addStretch();
  layout->addLayout(inputs);
  for (QLineEdit* e : {tokens_, price_})
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

double SummaryView::tokens() const {
  bool ok = false;
  const double t = tokens_->text().toDouble(&ok);
  return ok && t > 0 ? t : 0;
}

double SummaryView::usdPerGpuHour() const {
  bool ok = false;
  const double p = price_->text().toDouble(&ok);
  return ok && p >= 0 ? p : 0;
}

TrainingCost SummaryView::costOf(const Report& r) const { return training_cost(r, tokens(), usdPerGpuHour()); }

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
  refreshFigures();
  refreshChart();
}

void SummaryView::setKeptRuns(const std::vector<RunPtr>& kept) {
  kept_ = kept;
  refreshChart();
}

QString SummaryView::figureText(const QString& key) const {
  const QLabel* l = figures_.value(key);
  return l ? l->text() : QString();
}

void SummaryView::refreshFigures() {
  if (!run_) return;
  const Scenario& s = run_->scenario;
  QString title = QString("%1 · %2 × %3 · tp %4 cp %5 pp %6 dp %7 · %8")
                      .arg(run_->label)
                      .arg(s.gpu_count())
                      .arg(QString::fromStdString(s.cluster.gpu))
                      .arg(s.parallelism.tp).arg(s.parallelism.cp).arg(s.parallelism.pp).arg(s.parallelism.dp)
                      .arg(to_string(s.parallelism.schedule));
  std::string details;
  if (run_->report) {
    const std::vector<HeadlineFigure> figures = headline_figures(*run_->report, costOf(*run_->report));
    for (const HeadlineFigure& f : figures) {
      const QString key = QString::fromStdString(f.key);
      if (QLabel* l = figures_.value(key)) l->setText(QString::fromStdString(f.text));
      if (QLabel* l = names_.value(key)) l->setText(QString::fromStdString(f.label));
    }
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
