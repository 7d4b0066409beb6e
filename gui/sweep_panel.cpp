#include "sweep_panel.hpp"

#include <fmt/format.h>

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFormLayout>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "input_error.hpp"
#include "palette.hpp"
#include "scenario_writer.hpp"
#include "simulation.hpp"
#include "training_cost.hpp"
#include "wheel_guard.hpp"

namespace dtsim::gui {

namespace {

const QStringList& field_choices() {
  static const QStringList choices = {
      SweepPanel::gpu_count_choice, "parallelism.tp",        "parallelism.pp",
      "parallelism.dp",             "parallelism.cp",        "training.micro_batch",
      "training.global_batch",      "cluster.oversubscription", SweepPanel::straggler_choice,
      SweepPanel::other_field_choice,
  };
  return choices;
}

const QStringList& metric_names() {
  static const QStringList names = {
      "iteration time (s)", "throughput", "model TFLOP/s per GPU", "MFU (%)", "scaling efficiency (%)",
      "time to train (days)", "memory per GPU (GB)",
  };
  return names;
}

const QStringList& column_headers() {
  static const QStringList headers = {
      "value", "status", "GPUs", "TP/CP/PP/DP", "memory GB", "s/iter", "throughput", "TFLOP/s/GPU",
      "MFU %", "scaling %", "train days", "error",
  };
  return headers;
}

// What the values of a choice must be before they go to the library.
enum class ValueKind { positive_integer, number, any };

ValueKind value_kind(const QString& choice) {
  if (choice == SweepPanel::straggler_choice || choice == "cluster.oversubscription") return ValueKind::number;
  if (choice == SweepPanel::other_field_choice) return ValueKind::any;
  return ValueKind::positive_integer;
}

[[noreturn]] void throw_values_error(const std::string& expected, const std::string& found) {
  throw InputError({"values", 0, "", expected, found});
}

bool is_positive_integer(const QString& text) {
  bool ok = false;
  const int n = text.toInt(&ok);
  return ok && n > 0 && std::all_of(text.begin(), text.end(), [](QChar c) { return c.isDigit(); });
}

bool is_number(const QString& text) {
  bool ok = false;
  const double x = text.toDouble(&ok);
  return ok && std::isfinite(x);
}

QString error_style() { return QString("color: %1").arg(palette::failed().name()); }

bool is_power_of_two(long long n) { return n > 0 && (n & (n - 1)) == 0; }

// "8-64" when `low` is a power of two (parse_sweep_values' range), else the list of doublings.
QString doublings_text(long long low, int count) {
  if (is_power_of_two(low)) return QString("%1-%2").arg(low).arg(low << (count - 1));
  QStringList items;
  for (int i = 0; i < count; ++i) items << QString::number(low << i);
  return items.join(',');
}

QString fixed(double x, int decimals) { return QString::fromStdString(fmt::format("{:.{}f}", x, decimals)); }

bool is_cancelled(const SweepPoint& p) {
  return p.status == SweepStatus::failed && p.error == SimulationCancelled().what();
}

QString status_text(const SweepPoint& p) { return is_cancelled(p) ? "cancelled" : to_string(p.status); }

QString summary_text(const SweepResult& r) {
  const auto count = [&](auto predicate) { return std::count_if(r.points.begin(), r.points.end(), predicate); };
  return QString::fromStdString(fmt::format(
      "{} simulated, {} invalid, {} out of memory, {} failed, {} cancelled; {:.2f} s wall", r.simulated_count(),
      count([](const SweepPoint& p) { return p.status == SweepStatus::invalid; }),
      count([](const SweepPoint& p) { return p.status == SweepStatus::out_of_memory; }),
      count([](const SweepPoint& p) { return p.status == SweepStatus::failed && !is_cancelled(p); }),
      count(is_cancelled), r.wall_s));
}

std::optional<double> metric_value(const SweepPoint& p, bool final, int metric) {
  if (!p.simulated()) return std::nullopt;
  switch (metric) {
    case SweepPanel::iteration_time_s: return p.iteration_s;
    case SweepPanel::throughput_per_s: return p.throughput_per_s;
    case SweepPanel::model_tflops_per_gpu: return p.model_tflops_per_gpu;
    case SweepPanel::mfu_percent: return 100 * p.mfu;
    case SweepPanel::scaling_efficiency_percent:
      if (!final) return std::nullopt;  // known only once the whole sweep is in
      return 100 * p.scaling_efficiency;
    case SweepPanel::time_to_train_days:
      if (!p.has_time_to_train()) return std::nullopt;  // counted in another unit than the amount
      return p.time_to_train_s / 86400;
    case SweepPanel::memory_per_gpu_gb: return p.memory_bytes / 1e9;
  }
  return std::nullopt;
}

QColor kept_colour(size_t i) {
  const QColor colours[] = {palette::communication(), palette::overlapped(), palette::p2p(), palette::other(),
                            palette::bubble(), palette::slowed()};
  return colours[i % std::size(colours)];
}

// Min and max padded so that the points do not sit on the plot's edge; equal values (to
// rounding) get a range around them.
std::pair<double, double> padded_range(double low, double high) {
  const double magnitude = std::max(std::abs(low), std::abs(high));
  const double span = high - low;
  const double pad = span > 1e-9 * magnitude ? 0.05 * span : std::max(0.1 * magnitude, 1e-9);
  double padded_low = low - pad;
  if (low >= 0 && padded_low < 0) padded_low = 0;
  return {padded_low, high + pad};
}

// A linear axis labelled at the swept values themselves (a category axis with numeric positions),
// since a handful of values such as 1, 2, 4, 8 read better than evenly spaced ticks.
QAbstractAxis* numeric_x_axis(const QList<QPointF>& points) {
  std::vector<double> xs;
  for (const QPointF& p : points) xs.push_back(p.x());
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  const auto [low, high] = padded_range(xs.front(), xs.back());
  auto* axis = new QCategoryAxis;
  axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  axis->setStartValue(low);
  for (double x : xs) axis->append(QString::number(x, 'g', 6), x);
  axis->setRange(low, high);
  return axis;
}

}  // namespace

SweepPanel::SweepPanel(QWidget* parent) : QWidget(parent) {
  buildControls();
  buildChart();
  buildTable();

  auto* splitter = new QSplitter(Qt::Vertical, this);
  auto* chart_box = new QWidget(splitter);
  auto* chart_layout = new QVBoxLayout(chart_box);
  chart_layout->setContentsMargins(0, 0, 0, 0);
  auto* chart_bar = new QHBoxLayout;
  chart_bar->addWidget(new QLabel("Metric", chart_box));
  chart_bar->addWidget(metric_combo_);
  chart_bar->addStretch();
  chart_bar->addWidget(keep_button_);
  chart_bar->addWidget(clear_kept_button_);
  chart_layout->addLayout(chart_bar);
  chart_layout->addWidget(chart_view_);
  splitter->addWidget(chart_box);
  splitter->addWidget(table_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);

  auto* inputs = new QFormLayout;
  auto* field_row = new QHBoxLayout;
  field_row->addWidget(field_combo_);
  field_row->addWidget(other_field_edit_, 1);
  field_row->addWidget(straggler_gpu_spin_);
  inputs->addRow("Sweep", field_row);
  auto* values_box = new QVBoxLayout;
  values_box->addWidget(values_edit_);
  values_box->addWidget(values_error_label_);
  inputs->addRow("Values", values_box);
  auto* amount_row = new QHBoxLayout;
  amount_row->addWidget(amount_edit_);
  amount_row->addWidget(amount_label_, 1);
  inputs->addRow(amount_name_, amount_row);

  auto* run_row = new QHBoxLayout;
  run_row->addWidget(run_button_);
  run_row->addWidget(cancel_button_);
  run_row->addWidget(progress_bar_, 1);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(inputs);
  layout->addLayout(run_row);
  layout->addWidget(status_label_);
  layout->addWidget(splitter, 1);

  showUnit("token");
  onChoiceChanged();
  redrawChart();
}

SweepPanel::~SweepPanel() {
  cancel_ = true;
  joinWorker();
}

void SweepPanel::buildControls() {
  field_combo_ = new QComboBox(this);
  ignore_wheel_unless_focused(field_combo_);
  field_combo_->addItems(field_choices());
  connect(field_combo_, &QComboBox::currentIndexChanged, this, [this] { onChoiceChanged(); });

  other_field_edit_ = new QLineEdit(this);
  other_field_edit_->setPlaceholderText("dotted path, e.g. model.layers");
  connect(other_field_edit_, &QLineEdit::textChanged, this, [this] { refreshInputState(); });

  straggler_gpu_spin_ = new QSpinBox(this);
  ignore_wheel_unless_focused(straggler_gpu_spin_);
  straggler_gpu_spin_->setPrefix("GPU ");
  straggler_gpu_spin_->setRange(0, 0);

  values_edit_ = new QLineEdit(this);
  values_edit_->setPlaceholderText("1,2,4,8 or a range of powers of two: 8-64");
  connect(values_edit_, &QLineEdit::textEdited, this, [this] { values_edited_ = true; });
  connect(values_edit_, &QLineEdit::textChanged, this, [this] { refreshInputState(); });
  values_error_label_ = new QLabel(this);
  values_error_label_->setWordWrap(true);
  values_error_label_->setStyleSheet(error_style());

  amount_name_ = new QLabel(this);
  amount_edit_ = new QLineEdit("300e9", this);
  amount_edit_->setToolTip("how much to train on, in the model's unit, for the time to train");
  connect(amount_edit_, &QLineEdit::textChanged, this, [this] { refreshInputState(); });
  amount_label_ = new QLabel(this);

  metric_combo_ = new QComboBox(this);
  ignore_wheel_unless_focused(metric_combo_);
  metric_combo_->addItems(metric_names());
  connect(metric_combo_, &QComboBox::currentIndexChanged, this, [this] { redrawChart(); });

  run_button_ = new QPushButton("Run", this);
  connect(run_button_, &QPushButton::clicked, this, &SweepPanel::runSweep);
  cancel_button_ = new QPushButton("Cancel", this);
  connect(cancel_button_, &QPushButton::clicked, this, &SweepPanel::cancelSweep);
  keep_button_ = new QPushButton("Keep curve", this);
  connect(keep_button_, &QPushButton::clicked, this, &SweepPanel::keepCurve);
  clear_kept_button_ = new QPushButton("Clear kept", this);
  connect(clear_kept_button_, &QPushButton::clicked, this, &SweepPanel::clearKept);

  progress_bar_ = new QProgressBar(this);
  progress_bar_->setRange(0, 1);
  progress_bar_->setValue(0);
  progress_bar_->setFormat("%v / %m points");
  status_label_ = new QLabel(this);
  status_label_->setWordWrap(true);
}

void SweepPanel::buildChart() {
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart_view_ = new QChartView(chart, this);
  chart_view_->setRenderHint(QPainter::Antialiasing);
  chart_view_->setMinimumHeight(220);
}

void SweepPanel::buildTable() {
  table_ = new QTableWidget(0, column_count, this);
  table_->setHorizontalHeaderLabels(column_headers());
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
}

// ---- Base scenario and inputs ----

void SweepPanel::setBase(const std::filesystem::path& scenario_file, const std::vector<FieldOverride>& overrides,
                         const std::vector<Event>& events) {
  scenario_file_ = scenario_file;
  base_overrides_ = overrides;
  base_events_ = events;
  base_.reset();
  base_error_.clear();
  try {
    base_ = load_scenario(scenario_file, overrides);
  } catch (const std::exception& e) {
    base_error_ = QString::fromStdString(e.what());
  }
  straggler_gpu_spin_->setRange(0, base_ ? std::max(0, base_->gpu_count() - 1) : 0);
  if (base_) showUnit(base_->throughput_unit());
  if (!values_edited_) values_edit_->setText(defaultValuesText());
  refreshInputState();
}

QString SweepPanel::baseError() const { return base_error_; }

void SweepPanel::setSweptField(const QString& name) {
  int index = field_combo_->findText(name);
  if (index < 0) {
    index = field_combo_->findText(other_field_choice);
    other_field_edit_->setText(name);
  }
  {
    const QSignalBlocker block(field_combo_);
    field_combo_->setCurrentIndex(index);
  }
  onChoiceChanged();
}

QString SweepPanel::sweptField() const {
  const QString choice = field_combo_->currentText();
  return choice == other_field_choice ? other_field_edit_->text().trimmed() : choice;
}

void SweepPanel::setValuesText(const QString& text) {
  values_edited_ = true;
  values_edit_->setText(text);
}

QString SweepPanel::valuesText() const { return values_edit_->text(); }

QString SweepPanel::valuesError() const {
  try {
    parseValues();
    return {};
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
}

void SweepPanel::setStragglerGpu(int rank) { straggler_gpu_spin_->setValue(rank); }

void SweepPanel::setAmountText(const QString& text) { amount_edit_->setText(text); }

std::string SweepPanel::unit() const { return unit_; }

// A number of tokens means nothing in images: the field follows the base's unit.
void SweepPanel::showUnit(const std::string& unit) {
  const QString units = QString::fromStdString(unit + "s");
  const QString capitalised = units.left(1).toUpper() + units.mid(1);
  amount_name_->setText(capitalised + " to train");
  metric_combo_->setItemText(throughput_per_s, units + "/s");
  table_->horizontalHeaderItem(throughput_column)->setText(units + "/s");
  if (unit == unit_ && !amount_edit_->text().isEmpty()) return;
  amounts_[unit_] = amount_edit_->text().toStdString();
  const auto held = amounts_.find(unit);
  unit_ = unit;
  amount_edit_->setText(held != amounts_.end() && !held->second.empty()
                            ? QString::fromStdString(held->second)
                            : QString::number(usual_training_amount(unit), 'g', 10));
}

QString SweepPanel::amountError() const {
  try {
    parseAmount();
    return {};
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
}

bool SweepPanel::canRun() const {
  return !running_ && !scenario_file_.empty() && base_error_.isEmpty() && !sweptField().isEmpty() &&
         valuesError().isEmpty() && amountError().isEmpty();
}

void SweepPanel::onChoiceChanged() {
  const QString choice = field_combo_->currentText();
  other_field_edit_->setVisible(choice == other_field_choice);
  straggler_gpu_spin_->setVisible(choice == straggler_choice);
  values_edited_ = false;
  values_edit_->setText(defaultValuesText());
  refreshInputState();
}

QString SweepPanel::defaultValuesText() const {
  const QString choice = field_combo_->currentText();
  if (choice == gpu_count_choice) {
    const long long low = base_ ? std::max(base_->gpu_count(), base_->cluster.topology.node.gpus) : 8;
    return doublings_text(low, 4);
  }
  if (choice == "training.global_batch") return doublings_text(base_ ? base_->training.global_batch : 256, 4);
  if (choice == "parallelism.cp") return "1,2,4";
  if (choice == "cluster.oversubscription") return "1,2,3,4";
  if (choice == straggler_choice) return "1,1.25,1.5,2";
  if (choice == other_field_choice) return {};
  return "1,2,4,8";
}

void SweepPanel::refreshInputState() {
  QStringList errors;
  if (!base_error_.isEmpty()) errors << base_error_;
  if (sweptField().isEmpty()) errors << "field: enter a dotted scenario path, e.g. model.layers";
  if (const QString e = valuesError(); !e.isEmpty()) errors << e;
  values_error_label_->setText(errors.join('\n'));
  values_error_label_->setVisible(!errors.isEmpty());

  const QString amount_error = amountError();
  amount_label_->setStyleSheet(amount_error.isEmpty() ? QString() : error_style());
  amount_label_->setText(amount_error.isEmpty() ? QString::fromStdString(fmt::format(
                                                      "= {} {}s", format_count(parseAmount()), unit_))
                                                : amount_error);

  run_button_->setEnabled(canRun());
  cancel_button_->setEnabled(running_);
  keep_button_->setEnabled(!running_ && current_.final && !curvePoints().isEmpty());
  clear_kept_button_->setEnabled(!kept_.empty());
}

SweepPanel::ParsedValues SweepPanel::parseValues() const {
  std::vector<std::string> items;
  try {
    items = parse_sweep_values("values", values_edit_->text().toStdString());
  } catch (const InputError& e) {
    InputErrorInfo info = e.info();
    info.file = "values";
    info.field.clear();
    throw InputError(info);
  }
  const QString choice = field_combo_->currentText();
  const ValueKind kind = value_kind(choice);
  const std::string what = choice == straggler_choice ? "slowdown factors" : sweptField().toStdString();
  ParsedValues parsed;
  for (const std::string& item : items) {
    const QString text = QString::fromStdString(item);
    if (kind == ValueKind::positive_integer && !is_positive_integer(text))
      throw_values_error("positive integers for " + what, "'" + item + "'");
    if (kind == ValueKind::number && !is_number(text)) throw_values_error("numbers for " + what, "'" + item + "'");
    parsed.display_values << text;
  }
  if (choice == straggler_choice) {
    for (const QString& v : parsed.display_values) {
      std::vector<Event> events = base_events_;
      events.push_back(StragglerEvent{.gpu = straggler_gpu_spin_->value(), .slowdown = v.toDouble()});
      parsed.request_values.push_back(events_to_yaml(events));
    }
  } else {
    parsed.request_values = items;
  }
  return parsed;
}

double SweepPanel::parseAmount() const {
  bool ok = false;
  const double amount = amount_edit_->text().trimmed().toDouble(&ok);
  if (!ok || !(amount > 0) || !std::isfinite(amount))
    throw InputError({unit_ + "s", 0, "", fmt::format("a number of {}s > 0 (e.g. {:g})", unit_,
                                                      usual_training_amount(unit_)),
                      "'" + amount_edit_->text().toStdString() + "'"});
  return amount;
}

SweepRequest SweepPanel::currentRequest() const {
  SweepRequest request;
  request.scenario_file = scenario_file_;
  request.base_overrides = base_overrides_;
  request.amount = parseAmount();
  const ParsedValues parsed = parseValues();
  const QString choice = field_combo_->currentText();
  if (choice == gpu_count_choice) {
    for (const QString& v : parsed.display_values) request.gpu_counts.push_back(v.toInt());
  } else {
    request.field = choice == straggler_choice ? "events" : sweptField().toStdString();
    request.values = parsed.request_values;
  }
  return request;
}

QStringList SweepPanel::currentDisplayValues() const { return parseValues().display_values; }

// ---- Running ----

void SweepPanel::runSweep() {
  if (!canRun()) return;
  SweepRequest request;
  Curve curve;
  try {
    request = currentRequest();
    curve.x_labels = currentDisplayValues();
  } catch (const InputError& e) {
    showStatus(QString::fromStdString(e.what()), true);
    return;
  }
  curve.name = curveName();
  curve.gpu_sweep = !request.gpu_counts.empty();
  curve.points.resize(curve.x_labels.size());
  curve.known.assign(curve.x_labels.size(), false);
  current_ = std::move(curve);
  points_done_ = 0;
  running_ = true;

  table_->setRowCount(int(current_.points.size()));
  for (int row = 0; row < table_->rowCount(); ++row) fillRow(row);
  progress_bar_->setRange(0, int(current_.points.size()));
  progress_bar_->setValue(0);
  showStatus(QString("running %1 points…").arg(current_.points.size()), false);
  refreshInputState();
  redrawChart();
  emit sweepStarted();
  startWorker(std::move(request));
}

void SweepPanel::cancelSweep() {
  if (running_) cancel_ = true;
}

bool SweepPanel::isRunning() const { return running_; }

void SweepPanel::startWorker(SweepRequest request) {
  joinWorker();
  cancel_ = false;
  // Events posted to `this` are discarded if the panel is destroyed first (~QObject), and the
  // destructor joins this thread before then, so `this` outlives every use here.
  worker_ = std::thread([this, request = std::move(request)] {
    SweepProgress progress;
    progress.cancel = &cancel_;
    progress.on_point = [this](size_t index, const SweepPoint& point) {
      QMetaObject::invokeMethod(this, [this, index, point] { onPoint(index, point); }, Qt::QueuedConnection);
    };
    std::shared_ptr<SweepResult> result;
    QString error;
    try {
      result = std::make_shared<SweepResult>(run_sweep(request, progress));
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    } catch (...) {
      error = "the sweep failed";
    }
    QMetaObject::invokeMethod(this, [this, result, error] { onFinished(result, error); }, Qt::QueuedConnection);
  });
}

void SweepPanel::joinWorker() {
  if (worker_.joinable()) worker_.join();
}

void SweepPanel::onPoint(size_t index, const SweepPoint& point) {
  if (index >= current_.points.size()) return;
  current_.points[index] = point;
  current_.known[index] = true;
  progress_bar_->setValue(++points_done_);
  fillRow(int(index));
  redrawChart();
  emit pointReady(int(index));
}

void SweepPanel::onFinished(std::shared_ptr<SweepResult> result, const QString& error) {
  joinWorker();
  running_ = false;
  if (result) {
    current_.points = result->points;
    current_.known.assign(current_.points.size(), true);
    current_.final = true;
    showStatus(summary_text(*result), false);
    last_result_ = std::move(*result);
    progress_bar_->setValue(progress_bar_->maximum());
  } else {
    showStatus(error, true);
  }
  table_->setRowCount(int(current_.points.size()));
  for (int row = 0; row < table_->rowCount(); ++row) fillRow(row);
  table_->resizeColumnsToContents();
  refreshInputState();
  redrawChart();
  emit sweepFinished();
}

// ---- Table ----

void SweepPanel::fillRow(int row) {
  const size_t i = size_t(row);
  const bool known = current_.known[i];
  const SweepPoint& p = current_.points[i];
  const bool layout = known && p.tp > 0, memory = known && p.memory_capacity_bytes > 0;
  const bool simulated = known && p.simulated();
  auto dash = [](bool have, const QString& text) { return have ? text : QString("-"); };
  QStringList cells(column_count);
  cells[value_column] = current_.x_labels.value(row);
  cells[status_column] = known ? status_text(p) : (running_ ? "pending" : "");
  if (known) {
    cells[gpus_column] = dash(p.gpus > 0, QString::number(p.gpus));
    cells[layout_column] = dash(layout, QString("%1/%2/%3/%4").arg(p.tp).arg(p.cp).arg(p.pp).arg(p.dp));
    cells[memory_column] =
        dash(memory, fixed(p.memory_bytes / 1e9, 1) + " / " + fixed(p.memory_capacity_bytes / 1e9, 1));
    cells[iteration_column] = dash(simulated, fixed(p.iteration_s, 4));
    cells[throughput_column] = dash(simulated, fixed(p.throughput_per_s, p.unit == "token" ? 0 : 1));
    cells[tflops_column] = dash(simulated, fixed(p.model_tflops_per_gpu, 1));
    cells[mfu_column] = dash(simulated, fixed(100 * p.mfu, 1));
    cells[scaling_column] = dash(p.has_scaling() && current_.final, fixed(100 * p.scaling_efficiency, 1));
    cells[train_days_column] = dash(p.has_time_to_train(), fixed(p.time_to_train_s / 86400, 2));
    cells[error_column] = QString::fromStdString(p.error);
  }
  for (int column = 0; column < column_count; ++column) {
    auto* item = new QTableWidgetItem(cells[column]);
    if (column != error_column && column != value_column && column != status_column)
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (column == error_column) item->setToolTip(cells[column]);
    if (column == status_column && known && !p.simulated()) item->setForeground(palette::failed());
    table_->setItem(row, column, item);
  }
}

int SweepPanel::rowCount() const { return table_->rowCount(); }

QString SweepPanel::cellText(int row, int column) const {
  const QTableWidgetItem* item = table_->item(row, column);
  return item ? item->text() : QString();
}

QString SweepPanel::statusMessage() const { return status_message_; }

void SweepPanel::showStatus(const QString& message, bool is_error) {
  status_message_ = message;
  status_label_->setText(message);
  status_label_->setStyleSheet(is_error ? error_style() : QString());
}

// ---- Chart ----

void SweepPanel::setMetric(int metric) { metric_combo_->setCurrentIndex(metric); }

int SweepPanel::metric() const { return metric_combo_->currentIndex(); }

QString SweepPanel::curveName() const {
  const QString choice = field_combo_->currentText();
  QString field = choice == straggler_choice ? QString("straggler slowdown of GPU %1").arg(straggler_gpu_spin_->value())
                                             : sweptField();
  const std::string scenario = base_ ? base_->name : scenario_file_.stem().string();
  return field + " · " + QString::fromStdString(scenario);
}

void SweepPanel::keepCurve() {
  if (running_ || !current_.final) return;
  Curve kept = current_;
  int same_name = 0;
  for (const Curve& c : kept_) same_name += c.name.startsWith(current_.name);
  if (same_name > 0) kept.name += QString(" (%1)").arg(same_name + 1);
  kept_.push_back(std::move(kept));
  refreshInputState();
  redrawChart();
}

void SweepPanel::clearKept() {
  kept_.clear();
  refreshInputState();
  redrawChart();
}

int SweepPanel::keptCount() const { return int(kept_.size()); }

QStringList SweepPanel::seriesNames() const {
  QStringList names;
  for (const Curve& c : kept_) names << c.name;
  if (!current_.points.empty()) names << current_.name;
  return names;
}

std::vector<const SweepPanel::Curve*> SweepPanel::curvesOnChart() const {
  std::vector<const Curve*> curves;
  for (const Curve& c : kept_) curves.push_back(&c);
  if (!current_.points.empty()) curves.push_back(&current_);
  return curves;
}

SweepPanel::XAxisPlan SweepPanel::planXAxis() const {
  XAxisPlan plan;
  for (const Curve* c : curvesOnChart()) {
    plan.log2 = plan.log2 && c->gpu_sweep;
    for (const QString& x : c->x_labels) {
      plan.numeric = plan.numeric && is_number(x);
      if (!plan.categories.contains(x)) plan.categories << x;
    }
  }
  if (!plan.numeric) plan.log2 = false;
  return plan;
}

QList<QPointF> SweepPanel::seriesPoints(const Curve& curve, const XAxisPlan& plan) const {
  QList<QPointF> points;
  for (size_t i = 0; i < curve.points.size(); ++i) {
    if (!curve.known[i]) continue;
    const std::optional<double> y = metric_value(curve.points[i], curve.final, metric());
    if (!y) continue;
    const QString& label = curve.x_labels[int(i)];
    points << QPointF(plan.numeric ? label.toDouble() : plan.categories.indexOf(label), *y);
  }
  return points;
}

QList<QPointF> SweepPanel::curvePoints() const { return seriesPoints(current_, planXAxis()); }

QStringList SweepPanel::curveXLabels() const {
  QStringList labels;
  for (size_t i = 0; i < current_.points.size(); ++i)
    if (current_.known[i] && metric_value(current_.points[i], current_.final, metric()))
      labels << current_.x_labels[int(i)];
  return labels;
}

void SweepPanel::redrawChart() const { populateChart(*chart_view_->chart()); }

void SweepPanel::populateChart(QChart& chart) const {
  chart.removeAllSeries();
  for (QAbstractAxis* axis : chart.axes()) {
    chart.removeAxis(axis);
    delete axis;
  }
  const XAxisPlan plan = planXAxis();
  QList<QPointF> all_points;
  std::vector<QLineSeries*> series;
  size_t kept_index = 0;
  for (const Curve* curve : curvesOnChart()) {
    auto* line = new QLineSeries;
    line->setName(curve->name);
    line->setPointsVisible(true);
    const bool current = curve == &current_;
    QPen pen(current ? palette::compute() : kept_colour(kept_index++));
    pen.setWidthF(current ? 2.5 : 2.0);
    line->setPen(pen);
    const QList<QPointF> points = seriesPoints(*curve, plan);
    line->append(points);
    all_points << points;
    chart.addSeries(line);
    series.push_back(line);
  }
  chart.setTitle(all_points.isEmpty() ? "no simulated points yet" : QString());
  chart.legend()->setVisible(series.size() > 1);
  if (all_points.isEmpty()) return;
  addXAxis(chart, plan, all_points);
  addYAxis(chart, all_points);
  for (QLineSeries* line : series)
    for (QAbstractAxis* axis : chart.axes()) line->attachAxis(axis);
}

void SweepPanel::addXAxis(QChart& chart, const XAxisPlan& plan, const QList<QPointF>& all_points) const {
  const QString title = current_.points.empty() ? QString() : current_.name.section(" · ", 0, 0);
  QAbstractAxis* axis = nullptr;
  if (plan.numeric) {
    const auto [min_x, max_x] = std::minmax_element(all_points.begin(), all_points.end(),
                                                    [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
    if (plan.log2) {
      auto* log_axis = new QLogValueAxis;
      log_axis->setBase(2);
      log_axis->setLabelFormat("%g");
      log_axis->setMinorTickCount(-1);
      log_axis->setRange(min_x->x() / std::sqrt(2.0), max_x->x() * std::sqrt(2.0));
      axis = log_axis;
    } else {
      axis = numeric_x_axis(all_points);
    }
  } else {
    auto* category_axis = new QCategoryAxis;
    category_axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    category_axis->setStartValue(-0.5);
    for (int i = 0; i < plan.categories.size(); ++i) category_axis->append(plan.categories[i], i);
    category_axis->setRange(-0.5, plan.categories.size() - 0.5);
    axis = category_axis;
  }
  axis->setTitleText(title);
  chart.addAxis(axis, Qt::AlignBottom);
}

void SweepPanel::addYAxis(QChart& chart, const QList<QPointF>& all_points) const {
  const auto [min_y, max_y] = std::minmax_element(all_points.begin(), all_points.end(),
                                                  [](const QPointF& a, const QPointF& b) { return a.y() < b.y(); });
  auto* axis = new QValueAxis;
  const auto [low, high] = padded_range(min_y->y(), max_y->y());
  axis->setRange(low, high);
  axis->applyNiceNumbers();
  axis->setLabelFormat("%g");
  axis->setTitleText(metric_combo_->currentText());
  chart.addAxis(axis, Qt::AlignLeft);
}

void SweepPanel::renderChart(QPainter& painter, QSize size) const {
  // A chart of its own at the export size, so that the one on screen keeps its layout.
  QGraphicsScene scene;
  auto* chart = new QChart;  // owned by the scene
  scene.addItem(chart);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setBackgroundRoundness(0);
  populateChart(*chart);
  chart->resize(size);
  chart->layout()->activate();
  scene.render(&painter, QRectF(QPointF(0, 0), size), QRectF(QPointF(0, 0), size));
}

// ---- Export ----

QString SweepPanel::csv() const {
  return last_result_ ? QString::fromStdString(sweep_to_csv(*last_result_)) : QString();
}

QString SweepPanel::json() const {
  return last_result_ ? QString::fromStdString(sweep_to_json(*last_result_).dump(2)) : QString();
}

const SweepResult* SweepPanel::lastResult() const { return last_result_ ? &*last_result_ : nullptr; }

}  // namespace dtsim::gui
