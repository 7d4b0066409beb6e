#include "timeline_view.hpp"

#include <QCursor>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QStyle>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <climits>
#include <cmath>

#include "palette.hpp"
#include "program.hpp"

namespace dtsim::gui {

namespace {

// Vertical layout of the header and of one row (pixels from the row's top).
constexpr int legend_height_px = 20;
constexpr int ruler_height_px = 22;
constexpr int header_height_px = legend_height_px + ruler_height_px;
constexpr int main_lane_top_px = 1;
constexpr int main_lane_height_px = 11;
constexpr int comm_lane_top_px = 13;
constexpr int comm_lane_height_px = 4;
static_assert(comm_lane_top_px + comm_lane_height_px < TimelineView::row_height_px);

constexpr int min_tick_spacing_px = 90;
constexpr int min_label_span_px = 40;   // spans at least this wide carry a text label
constexpr int min_outline_span_px = 6;  // and at least this wide an outline
constexpr int min_select_px = 3;        // a shorter right-drag is a click, not a range

const QString help_text = QStringLiteral(
    "wheel: scroll rows · Ctrl+wheel, W/S: zoom · drag, Shift+wheel, A/D: pan · "
    "right-drag: zoom to range · F, double-click: whole iteration");

int laneKey(int row, TimelineView::Lane lane) { return row * 2 + (lane == TimelineView::Lane::communication ? 1 : 0); }

QColor colourOf(SpanKind kind) {
  switch (kind) {
    case SpanKind::compute: return palette::compute();
    case SpanKind::collective: return palette::communication();
    case SpanKind::p2p_transfer: return palette::p2p();
    case SpanKind::bubble: return palette::bubble();
    case SpanKind::overlapped_collective: return palette::overlapped();
    case SpanKind::stream_compute: return palette::compute();
  }
  return palette::other();
}

QColor textColourOn(const QColor& background) {
  return qGray(background.rgb()) < 140 ? QColor(Qt::white) : QColor(0x20, 0x20, 0x20);
}

// 3 decimals in the unit that suits the magnitude: "250.000 ms", "1.200 s", "12.500 µs".
QString formatSeconds(double s) {
  const double a = std::abs(s);
  if (a >= 1) return QString::number(s, 'f', 3) + QStringLiteral(" s");
  if (a >= 1e-3 || a == 0) return QString::number(s * 1e3, 'f', 3) + QStringLiteral(" ms");
  if (a >= 1e-6) return QString::number(s * 1e6, 'f', 3) + QStringLiteral(" µs");
  return QString::number(s * 1e9, 'f', 3) + QStringLiteral(" ns");
}

// Smallest of 1, 2, 5 × 10^k that is at least `raw`.
double niceStep(double raw) {
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * decade >= raw) return m * decade;
  return 10 * decade;
}

struct Tick {
  double x_px;
  QString label;
};

// Labelled ticks at least min_tick_spacing_px apart. The unit follows the magnitude of the times
// shown and the decimals the step, so that deep zooms read "500.0005 ms", not "500000.5 µs".
std::vector<Tick> ticksFor(double start_s, double end_s, double seconds_per_px, double plot_left_px) {
  const double step_s = niceStep(seconds_per_px * min_tick_spacing_px);
  const double magnitude_s = std::max(std::abs(start_s), std::abs(end_s));
  double scale = 1;
  QString unit = QStringLiteral("s");
  if (magnitude_s < 1e-6) {
    scale = 1e9, unit = QStringLiteral("ns");
  } else if (magnitude_s < 1e-3) {
    scale = 1e6, unit = QStringLiteral("µs");
  } else if (magnitude_s < 1) {
    scale = 1e3, unit = QStringLiteral("ms");
  }
  const int decimals = std::clamp(int(std::ceil(-std::log10(step_s * scale) - 1e-9)), 0, 9);
  std::vector<Tick> ticks;
  const double first = std::ceil(start_s / step_s);
  for (int k = 0; k < 1000; ++k) {
    double t = (first + k) * step_s;
    if (t > end_s) break;
    if (std::abs(t) < step_s * 1e-9) t = 0;  // no "-0.0"
    ticks.push_back({plot_left_px + (t - start_s) / seconds_per_px,
                     QString::number(t * scale, 'f', decimals) + QLatin1Char(' ') + unit});
  }
  return ticks;
}

}  // namespace

// Where everything goes for a given paint size, and the time <-> x mapping of the window.
struct TimelineView::Layout {
  QSize size;
  int plot_left_px = 0;
  int plot_right_px = 1;  // exclusive
  int scroll_px = 0;
  double window_start_s = 0;
  double window_end_s = 1;

  int plotWidth() const { return std::max(1, plot_right_px - plot_left_px); }
  double secondsPerPixel() const { return (window_end_s - window_start_s) / plotWidth(); }
  double xFor(double t_s) const { return plot_left_px + (t_s - window_start_s) / secondsPerPixel(); }
  double timeAt(double x_px) const { return window_start_s + (x_px - plot_left_px) * secondsPerPixel(); }
  int rowTop(int row) const { return header_height_px + row * row_height_px - scroll_px; }
  QRect rowsRect() const { return QRect(0, header_height_px, size.width(), size.height() - header_height_px); }
  QRect plotRect() const {
    return QRect(plot_left_px, header_height_px, plotWidth(), size.height() - header_height_px);
  }
  int firstVisibleRow() const { return std::max(0, scroll_px / row_height_px); }
  int endVisibleRow(int row_count) const {
    const int bottom = scroll_px + size.height() - header_height_px;
    return std::clamp(bottom / row_height_px + 1, 0, row_count);
  }
};

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  right_margin_px_ = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
  scroll_bar_ = new QScrollBar(Qt::Vertical, this);
  scroll_bar_->hide();
  connect(scroll_bar_, &QScrollBar::valueChanged, this, [this] {
    hover_.reset();
    update();
  });
}

TimelineView::~TimelineView() = default;

// ---- trace ----------------------------------------------------------------------------------

void TimelineView::setTrace(const EngineResult& result, int gpus_per_node) {
  gpus_per_node_ = std::max(1, gpus_per_node);
  group_kinds_ = result.group_kinds;
  iteration_s_ = result.iteration_s;
  rank_count_ = int(result.ranks.size());
  double last_end_s = 0;
  for (const TraceSpan& s : result.spans) {
    rank_count_ = std::max(rank_count_, s.rank + 1);
    last_end_s = std::max(last_end_s, s.end_s);
  }
  extent_s_ = std::max(iteration_s_, last_end_s);
  if (!(extent_s_ > 0)) extent_s_ = 1;
  buildRows(result.representative);
  buildLanes(result.spans);

  int widest_multiplicity = 1;
  for (int m : row_multiplicity_) widest_multiplicity = std::max(widest_multiplicity, m);
  QString widest =
      QStringLiteral("node %1 · GPU %2").arg(std::max(0, rank_count_ - 1) / gpus_per_node_).arg(gpus_per_node_ - 1);
  if (widest_multiplicity > 1) widest += QStringLiteral(" ×%1").arg(widest_multiplicity);
  label_width_px_ = std::max(80, fontMetrics().horizontalAdvance(widest) + 12);
  hover_.reset();
  drag_ = Drag::none;
  scroll_bar_->setValue(0);
  updateScrollBar();
  window_start_s_ = 0, window_end_s_ = 0;  // so that zoomAll reports a change
  zoomAll();
  updateGeometry();
  update();
}

// A row per rank that ran its own program: every rank, or with rank folding the representatives,
// each labelled with how many GPUs it stands for.
void TimelineView::buildRows(const std::vector<int>& representative) {
  row_rank_.clear();
  rank_row_.assign(std::size_t(rank_count_), -1);
  row_multiplicity_.clear();
  const std::vector<int> represented = ranks_represented(representative, rank_count_);
  for (int rank = 0; rank < rank_count_; ++rank) {
    if (represented[std::size_t(rank)] == 0) continue;
    rank_row_[std::size_t(rank)] = int(row_rank_.size());
    row_rank_.push_back(rank);
    row_multiplicity_.push_back(represented[std::size_t(rank)]);
  }
  for (int rank = 0; rank < rank_count_; ++rank)
    if (rank_row_[std::size_t(rank)] < 0)
      rank_row_[std::size_t(rank)] = rank_row_[std::size_t(representative[std::size_t(rank)])];
}

int TimelineView::rowOf(int rank) const {
  return rank >= 0 && rank < rank_count_ ? rank_row_[std::size_t(rank)] : -1;
}

void TimelineView::buildLanes(const std::vector<TraceSpan>& spans) {
  const int lanes = rowCount() * 2;
  lane_begin_.assign(std::size_t(lanes) + 1, 0);
  // Spans are recorded for representatives only, so each lands in its own rank's row.
  auto laneOf = [this](const TraceSpan& s) {
    const bool stream = s.kind == SpanKind::overlapped_collective || s.kind == SpanKind::stream_compute;
    return laneKey(rowOf(s.rank), stream ? Lane::communication : Lane::main);
  };
  for (const TraceSpan& s : spans)
    if (rowOf(s.rank) >= 0) ++lane_begin_[std::size_t(laneOf(s)) + 1];
  for (int k = 0; k < lanes; ++k) lane_begin_[k + 1] += lane_begin_[k];

  spans_.assign(lane_begin_.back(), Span{});
  std::vector<std::size_t> next(lane_begin_.begin(), lane_begin_.end() - 1);
  for (const TraceSpan& s : spans) {
    if (rowOf(s.rank) < 0) continue;
    spans_[next[laneOf(s)]++] = Span{s.start_s,
                                     s.end_s,
                                     int32_t(s.micro_batch),
                                     int32_t(s.group),
                                     s.kind,
                                     uint8_t(s.phase),
                                     uint8_t(s.collective)};
  }

  max_end_s_.resize(spans_.size());
  for (int k = 0; k < lanes; ++k) {
    const auto begin = spans_.begin() + lane_begin_[k], end = spans_.begin() + lane_begin_[k + 1];
    std::sort(begin, end, [](const Span& a, const Span& b) { return a.start_s < b.start_s; });
    double running_max_s = -INFINITY;
    for (std::size_t i = lane_begin_[k]; i < lane_begin_[k + 1]; ++i)
      max_end_s_[i] = running_max_s = std::max(running_max_s, spans_[i].end_s);
  }
}

void TimelineView::clear() {
  rank_count_ = 0;
  row_rank_.clear();
  rank_row_.clear();
  row_multiplicity_.clear();
  iteration_s_ = 0;
  extent_s_ = 1;
  group_kinds_.clear();
  spans_.clear();
  max_end_s_.clear();
  lane_begin_.clear();
  hover_.reset();
  drag_ = Drag::none;
  scroll_bar_->setValue(0);
  updateScrollBar();
  setTimeWindow(0, 1);
  updateGeometry();
  update();
}

void TimelineView::setComputeLabel(const QString& label) {
  compute_label_ = label;
  update();
}

bool TimelineView::hasTrace() const { return rank_count_ > 0; }
int TimelineView::rankCount() const { return rank_count_; }
int TimelineView::rowCount() const { return int(row_rank_.size()); }
double TimelineView::iterationSeconds() const { return iteration_s_; }

QString TimelineView::rowLabel(int rank) const {
  QString label = QStringLiteral("node %1 · GPU %2").arg(rank / gpus_per_node_).arg(rank % gpus_per_node_);
  const int multiplicity = multiplicityOf(rank);
  if (multiplicity > 1) label += QStringLiteral(" ×%1").arg(multiplicity);
  return label;
}

int TimelineView::multiplicityOf(int rank) const {
  const int row = rowOf(rank);
  return row >= 0 && row_rank_[std::size_t(row)] == rank ? row_multiplicity_[std::size_t(row)] : 1;
}

// Spans of the lane with end > from_s and start < to_s lie in the returned index range (which may
// also hold a few that end before from_s, behind a longer one; callers skip those). Spans are
// sorted by start and max_end_s_ is monotonic, so both ends are binary searches.
std::pair<std::size_t, std::size_t> TimelineView::spansIntersecting(int lane_key, double from_s, double to_s) const {
  if (lane_key < 0 || std::size_t(lane_key) + 1 >= lane_begin_.size()) return {0, 0};
  const std::size_t begin = lane_begin_[lane_key], end = lane_begin_[lane_key + 1];
  const auto first = std::partition_point(max_end_s_.begin() + begin, max_end_s_.begin() + end,
                                          [&](double max_end_s) { return max_end_s <= from_s; });
  const std::size_t first_index = std::size_t(first - max_end_s_.begin());
  const auto last = std::partition_point(spans_.begin() + first_index, spans_.begin() + end,
                                         [&](const Span& s) { return s.start_s < to_s; });
  return {first_index, std::size_t(last - spans_.begin())};
}

// ---- time window ----------------------------------------------------------------------------

void TimelineView::setTimeWindow(double start_s, double end_s) {
  if (!std::isfinite(start_s) || !std::isfinite(end_s)) return;
  if (end_s < start_s) std::swap(start_s, end_s);
  if (end_s - start_s < min_window_s) {
    const double mid_s = (start_s + end_s) / 2;
    start_s = mid_s - min_window_s / 2, end_s = mid_s + min_window_s / 2;
  }
  if (end_s - start_s >= extent_s_) {
    start_s = 0, end_s = extent_s_;
  } else if (start_s < 0) {
    end_s -= start_s, start_s = 0;
  } else if (end_s > extent_s_) {
    start_s -= end_s - extent_s_, end_s = extent_s_;
  }
  if (start_s == window_start_s_ && end_s == window_end_s_) return;
  window_start_s_ = start_s, window_end_s_ = end_s;
  hover_.reset();
  update();
  emit timeWindowChanged(start_s, end_s);
}

double TimelineView::windowStart() const { return window_start_s_; }
double TimelineView::windowEnd() const { return window_end_s_; }

void TimelineView::zoomAll() { setTimeWindow(0, iteration_s_ > 0 ? iteration_s_ : extent_s_); }

void TimelineView::zoomBy(double factor, double anchor_s) {
  if (!(factor > 0)) return;
  anchor_s = std::clamp(anchor_s, window_start_s_, window_end_s_);
  setTimeWindow(anchor_s - (anchor_s - window_start_s_) / factor, anchor_s + (window_end_s_ - anchor_s) / factor);
}

void TimelineView::panBy(double delta_s) { setTimeWindow(window_start_s_ + delta_s, window_end_s_ + delta_s); }

void TimelineView::scrollToRank(int rank) {
  const int row = rowOf(rank);
  if (row < 0) return;
  const int top_px = row * row_height_px;
  const int visible_px = std::max(0, height() - header_height_px);
  if (top_px < scroll_bar_->value())
    scroll_bar_->setValue(top_px);
  else if (top_px + row_height_px > scroll_bar_->value() + visible_px)
    scroll_bar_->setValue(top_px + row_height_px - visible_px);
}

// ---- mapping and hit testing ----------------------------------------------------------------

TimelineView::Layout TimelineView::layoutFor(QSize size) const {
  Layout layout;
  layout.size = size;
  layout.plot_left_px = label_width_px_;
  layout.plot_right_px = std::max(label_width_px_ + 1, size.width() - right_margin_px_);
  layout.scroll_px = scroll_bar_->value();
  layout.window_start_s = window_start_s_;
  layout.window_end_s = window_end_s_;
  return layout;
}

QRect TimelineView::plotArea() const { return layoutFor(size()).plotRect(); }
double TimelineView::secondsPerPixel() const { return layoutFor(size()).secondsPerPixel(); }
double TimelineView::timeAt(double x_px) const { return layoutFor(size()).timeAt(x_px); }

QPoint TimelineView::pointFor(int rank, double time_s, Lane lane) const {
  const Layout layout = layoutFor(size());
  const int lane_centre_px = lane == Lane::main ? main_lane_top_px + main_lane_height_px / 2
                                                : comm_lane_top_px + comm_lane_height_px / 2;
  return QPoint(int(std::lround(layout.xFor(time_s))), layout.rowTop(std::max(0, rowOf(rank))) + lane_centre_px);
}

std::optional<TimelineView::SpanRef> TimelineView::hitTest(QPoint pos) const {
  if (!hasTrace()) return std::nullopt;
  const Layout layout = layoutFor(size());
  if (!layout.plotRect().contains(pos)) return std::nullopt;
  const int y_in_rows_px = pos.y() - header_height_px + layout.scroll_px;
  const int row = y_in_rows_px / row_height_px;
  if (row >= rowCount()) return std::nullopt;
  const Lane lane = y_in_rows_px % row_height_px < comm_lane_top_px ? Lane::main : Lane::communication;
  const int key = laneKey(row, lane);

  // The pixel column covers [column_s, column_s + 1 px). A span covering its start wins (the
  // latest-starting one); otherwise the one with the most time inside the column, which is
  // the one whose colour the merged 1-px mark shows.
  const double column_s = layout.timeAt(pos.x());
  const double column_end_s = column_s + layout.secondsPerPixel();
  const auto [first, last] = spansIntersecting(key, column_s, column_end_s);
  std::optional<std::size_t> covering, widest;
  double widest_s = -1;
  for (std::size_t i = first; i < last; ++i) {
    const Span& s = spans_[i];
    if (s.end_s <= column_s) continue;
    if (s.start_s <= column_s) covering = i;
    const double inside_s = std::min(s.end_s, column_end_s) - std::max(s.start_s, column_s);
    if (inside_s > widest_s) widest_s = inside_s, widest = i;
  }
  const std::optional<std::size_t> hit = covering ? covering : widest;
  if (!hit) return std::nullopt;
  return SpanRef{key, *hit};
}

std::optional<TraceSpan> TimelineView::spanAt(QPoint widget_pos) const {
  const std::optional<SpanRef> ref = hitTest(widget_pos);
  if (!ref) return std::nullopt;
  return toTraceSpan(*ref);
}

TraceSpan TimelineView::toTraceSpan(const SpanRef& ref) const {
  const Span& s = spans_[ref.index];
  TraceSpan span;
  span.rank = row_rank_[std::size_t(ref.lane_key / 2)];
  span.kind = s.kind;
  span.phase = Phase(s.phase);
  span.micro_batch = s.micro_batch;
  span.start_s = s.start_s;
  span.end_s = s.end_s;
  span.group = s.group;
  span.collective = CollectiveKind(s.collective);
  return span;
}

// ---- text -----------------------------------------------------------------------------------

QString TimelineView::groupName(int group) const {
  if (group >= 0 && std::size_t(group) < group_kinds_.size()) return QString::fromStdString(group_kinds_[group]);
  return QStringLiteral("group %1").arg(group);
}

QString TimelineView::describeSpan(const TraceSpan& span) const {
  QString what;
  switch (span.kind) {
    case SpanKind::compute: what = compute_label_.isEmpty() ? QStringLiteral("compute") : compute_label_; break;
    case SpanKind::collective:
      what = span.group >= 0 ? groupName(span.group) + QLatin1Char(' ') + to_string(span.collective)
                             : QStringLiteral("waiting for the communication stream");
      break;
    case SpanKind::p2p_transfer: what = QStringLiteral("pipeline p2p transfer"); break;
    case SpanKind::bubble: what = QStringLiteral("pipeline bubble (waiting for a neighbour)"); break;
    case SpanKind::overlapped_collective:
      what = groupName(span.group) + QLatin1Char(' ') + to_string(span.collective) +
             QStringLiteral(" on the communication stream (overlapped with compute)");
      break;
    case SpanKind::stream_compute:
      what = QStringLiteral("decoding compressed gradients on the communication stream");
      break;
  }
  QString text = QStringLiteral("GPU %1 (node %2) · ").arg(span.rank).arg(span.rank / gpus_per_node_) + what;
  if (span.kind != SpanKind::compute || compute_label_.isEmpty())
    text += QStringLiteral(" · ") + to_string(span.phase);
  if (span.micro_batch >= 0) text += QStringLiteral(" · micro-batch %1").arg(span.micro_batch);
  const int multiplicity = multiplicityOf(span.rank);
  if (multiplicity > 1) text += QStringLiteral(" · also for %1 folded GPUs").arg(multiplicity - 1);
  text += QStringLiteral("\n%1 → %2 (%3)")
              .arg(formatSeconds(span.start_s), formatSeconds(span.end_s), formatSeconds(span.end_s - span.start_s));
  return text;
}

// Short text drawn inside wide spans.
QString TimelineView::spanLabel(const Span& span) const {
  QString text;
  switch (span.kind) {
    case SpanKind::compute: text = compute_label_.isEmpty() ? to_string(Phase(span.phase)) : compute_label_; break;
    case SpanKind::collective:
    case SpanKind::overlapped_collective:
      text = span.group >= 0 ? groupName(span.group) + QLatin1Char(' ') + to_string(CollectiveKind(span.collective))
                             : QStringLiteral("wait comm");
      break;
    case SpanKind::p2p_transfer: text = QStringLiteral("p2p"); break;
    case SpanKind::bubble: return QStringLiteral("bubble");
    case SpanKind::stream_compute: return QStringLiteral("decode");
  }
  if (span.micro_batch >= 0) text += QStringLiteral(" mb %1").arg(span.micro_batch);
  return text;
}

// ---- painting -------------------------------------------------------------------------------

void TimelineView::renderTo(QPainter& painter, QSize size) const { paintView(painter, size, false); }

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  paintView(painter, size(), true);
}

void TimelineView::paintView(QPainter& painter, QSize size, bool overlays) const {
  painter.save();
  painter.setFont(font());
  painter.setRenderHint(QPainter::Antialiasing, false);
  painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  if (!hasTrace()) {
    painter.setPen(QColor(0x70, 0x70, 0x70));
    painter.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter, QStringLiteral("No trace yet: run a simulation"));
    painter.restore();
    return;
  }
  const Layout layout = layoutFor(size);
  paintRows(painter, layout);
  paintRuler(painter, layout);
  paintLegend(painter, layout);
  if (overlays) paintOverlays(painter, layout);
  painter.restore();
}

void TimelineView::paintLegend(QPainter& painter, const Layout& layout) const {
  const QRect band(0, 0, layout.size.width(), legend_height_px);
  painter.fillRect(band, Qt::white);
  const QFontMetrics metrics(painter.font());
  const std::pair<QColor, QString> items[] = {
      {palette::compute(), QStringLiteral("compute")},
      {palette::communication(), QStringLiteral("collective")},
      {palette::p2p(), QStringLiteral("pipeline p2p")},
      {palette::overlapped(), QStringLiteral("overlapped collective (comm stream)")},
      {palette::bubble(), QStringLiteral("bubble")},
  };
  int x_px = 6;
  const int swatch_px = 10;
  const int swatch_top_px = (legend_height_px - swatch_px) / 2;
  for (const auto& [colour, name] : items) {
    painter.fillRect(x_px, swatch_top_px, swatch_px, swatch_px, colour);
    x_px += swatch_px + 4;
    painter.setPen(Qt::black);
    painter.drawText(QRect(x_px, 0, metrics.horizontalAdvance(name) + 1, legend_height_px), Qt::AlignVCenter, name);
    x_px += metrics.horizontalAdvance(name) + 14;
  }
  const int help_width_px = band.width() - x_px - 6;
  if (help_width_px > 40) {
    painter.setPen(QColor(0x80, 0x80, 0x80));
    painter.drawText(QRect(x_px, 0, help_width_px, legend_height_px), Qt::AlignVCenter | Qt::AlignRight,
                     metrics.elidedText(help_text, Qt::ElideRight, help_width_px));
  }
}

void TimelineView::paintRuler(QPainter& painter, const Layout& layout) const {
  const QRect band(0, legend_height_px, layout.size.width(), ruler_height_px);
  painter.fillRect(band, QColor(0xF2, 0xF2, 0xF2));
  painter.setPen(QColor(0xB0, 0xB0, 0xB0));
  painter.drawLine(band.bottomLeft(), band.bottomRight());

  // Over the label column: how much time the window spans.
  painter.setPen(QColor(0x50, 0x50, 0x50));
  painter.drawText(QRect(6, band.top(), layout.plot_left_px - 10, band.height()), Qt::AlignVCenter,
                   QStringLiteral("↔ ") + formatSeconds(layout.window_end_s - layout.window_start_s));

  painter.save();
  painter.setClipRect(QRect(layout.plot_left_px, band.top(), layout.size.width() - layout.plot_left_px, band.height()));
  const std::vector<Tick> ticks =
      ticksFor(layout.window_start_s, layout.window_end_s, layout.secondsPerPixel(), layout.plot_left_px);
  const QFontMetrics metrics(painter.font());
  for (const Tick& tick : ticks) {
    const int x_px = int(std::lround(tick.x_px));
    painter.setPen(QColor(0x60, 0x60, 0x60));
    painter.drawLine(x_px, band.bottom() - 6, x_px, band.bottom());
    const int label_width_px = metrics.horizontalAdvance(tick.label) + 1;
    if (x_px + 3 + label_width_px > layout.size.width()) continue;  // no half labels at the right edge
    painter.setPen(Qt::black);
    painter.drawText(QRect(x_px + 3, band.top(), label_width_px, band.height() - 4), Qt::AlignVCenter, tick.label);
  }
  painter.restore();
}

void TimelineView::paintRows(QPainter& painter, const Layout& layout) const {
  const QRect rows = layout.rowsRect();
  const QRect plot = layout.plotRect();
  const int first = layout.firstVisibleRow(), end = layout.endVisibleRow(rowCount());

  painter.save();
  painter.setClipRect(rows);
  for (int row = first; row < end; ++row) {
    const int rank = row_rank_[std::size_t(row)];
    const int top_px = layout.rowTop(row);
    const bool odd_node = (rank / gpus_per_node_) % 2 == 1;
    painter.fillRect(QRect(0, top_px, layout.size.width(), row_height_px),
                     odd_node ? QColor(0xF4, 0xF5, 0xF7) : QColor(Qt::white));
    if (row > 0 && rank / gpus_per_node_ != row_rank_[std::size_t(row - 1)] / gpus_per_node_) {
      painter.setPen(QColor(0xC8, 0xC8, 0xC8));
      painter.drawLine(0, top_px, layout.size.width(), top_px);
    }
    painter.setPen(QColor(0x30, 0x30, 0x30));
    painter.drawText(QRect(6, top_px, layout.plot_left_px - 10, row_height_px), Qt::AlignVCenter, rowLabel(rank));
  }
  painter.setPen(QColor(0xC0, 0xC0, 0xC0));
  painter.drawLine(layout.plot_left_px - 1, rows.top(), layout.plot_left_px - 1, rows.bottom());

  painter.setClipRect(plot);
  painter.setPen(QColor(0xE6, 0xE6, 0xE6));
  for (const Tick& tick : ticksFor(layout.window_start_s, layout.window_end_s, layout.secondsPerPixel(),
                                   layout.plot_left_px)) {
    const int x_px = int(std::lround(tick.x_px));
    painter.drawLine(x_px, plot.top(), x_px, plot.bottom());
  }
  QFont span_font = painter.font();
  span_font.setPixelSize(main_lane_height_px - 2);
  painter.setFont(span_font);
  for (int row = first; row < end; ++row) {
    const int top_px = layout.rowTop(row);
    paintLane(painter, layout, laneKey(row, Lane::main), top_px + main_lane_top_px, main_lane_height_px);
    paintLane(painter, layout, laneKey(row, Lane::communication), top_px + comm_lane_top_px, comm_lane_height_px);
  }
  painter.restore();
}

// Spans at least a pixel wide are drawn as rectangles; narrower ones are merged per pixel column
// into one 1-px mark in the colour of the span with the most time in that column, and adjacent
// marks of one colour into one rectangle, so a paint costs at most one rectangle per pixel column
// whatever the number of spans.
void TimelineView::paintLane(QPainter& painter, const Layout& layout, int lane_key, int top_px, int height_px) const {
  const auto [first, last] = spansIntersecting(lane_key, layout.window_start_s, layout.window_end_s);
  const double seconds_per_px = layout.secondsPerPixel();
  const double plot_width_px = layout.plotWidth();
  const bool main_lane = lane_key % 2 == 0;
  const QFontMetrics metrics(painter.font());

  int covered_to_px = INT_MIN;  // plot columns left of this are painted
  int run_begin_px = 0, run_end_px = 0;  // pending run of merged marks [begin, end), one colour
  SpanKind run_kind = SpanKind::compute;
  auto flushRun = [&] {
    if (run_end_px > run_begin_px)
      painter.fillRect(layout.plot_left_px + run_begin_px, top_px, run_end_px - run_begin_px, height_px,
                       colourOf(run_kind));
    run_begin_px = run_end_px = 0;
  };
  int mark_column = INT_MIN;  // pending column of sub-pixel spans
  SpanKind mark_kind = SpanKind::compute;
  double mark_duration_s = -1;
  auto flushMark = [&] {
    if (mark_column != INT_MIN && mark_column >= covered_to_px) {
      if (mark_column != run_end_px || mark_kind != run_kind || run_end_px == run_begin_px) {
        flushRun();
        run_begin_px = mark_column, run_kind = mark_kind;
      }
      run_end_px = covered_to_px = mark_column + 1;
    }
    mark_column = INT_MIN;
    mark_duration_s = -1;
  };

  for (std::size_t i = first; i < last; ++i) {
    const Span& s = spans_[i];
    if (s.end_s <= layout.window_start_s) continue;
    // Clamped so that far-off ends of long spans stay in int range.
    const double x0_px = std::max(-2.0, (s.start_s - layout.window_start_s) / seconds_per_px);
    const double x1_px = std::min(plot_width_px + 2, (s.end_s - layout.window_start_s) / seconds_per_px);
    if (x1_px - x0_px < 1.0) {
      const int column = int(std::floor(x0_px));
      if (column < covered_to_px) continue;
      if (column != mark_column) flushMark(), mark_column = column;
      if (s.end_s - s.start_s > mark_duration_s) mark_duration_s = s.end_s - s.start_s, mark_kind = s.kind;
      continue;
    }
    flushMark();
    flushRun();
    const int left_px = int(std::lround(x0_px)), right_px = int(std::lround(x1_px));
    const QRect rect(layout.plot_left_px + left_px, top_px, std::max(1, right_px - left_px), height_px);
    const QColor colour = colourOf(s.kind);
    painter.fillRect(rect, colour);
    if (main_lane && rect.width() >= min_outline_span_px) {
      painter.setPen(colour.darker(135));
      painter.drawRect(rect.adjusted(0, 0, -1, -1));
    }
    if (main_lane && rect.width() >= min_label_span_px) {
      const QRect text_rect = rect.adjusted(3, 0, -3, 0).intersected(layout.plotRect().adjusted(3, 0, -3, 0));
      painter.setPen(textColourOn(colour));
      painter.drawText(text_rect, Qt::AlignVCenter | Qt::AlignLeft,
                       metrics.elidedText(spanLabel(s), Qt::ElideRight, text_rect.width()));
    }
    covered_to_px = std::max(covered_to_px, right_px);
  }
  flushMark();
  flushRun();
}

void TimelineView::paintOverlays(QPainter& painter, const Layout& layout) const {
  painter.save();
  painter.setClipRect(layout.plotRect());
  if (hover_) {
    const Span& s = spans_[hover_->index];
    const int row = hover_->lane_key / 2;
    const bool main_lane = hover_->lane_key % 2 == 0;
    const int top_px = layout.rowTop(row) + (main_lane ? main_lane_top_px : comm_lane_top_px);
    const int height_px = main_lane ? main_lane_height_px : comm_lane_height_px;
    const int left_px = int(std::floor(std::max(layout.xFor(s.start_s), layout.plot_left_px - 2.0)));
    const int right_px = int(std::ceil(std::min(layout.xFor(s.end_s), layout.plot_right_px + 2.0)));
    painter.setPen(QPen(Qt::black, 1));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(QRect(left_px - 1, top_px - 1, std::max(1, right_px - left_px) + 1, height_px + 1));
  }
  if (drag_ == Drag::select) {
    const double left_px = std::min(drag_origin_x_px_, drag_current_x_px_);
    const double right_px = std::max(drag_origin_x_px_, drag_current_x_px_);
    const QRectF band(left_px, layout.plotRect().top(), right_px - left_px, layout.plotRect().height());
    painter.fillRect(band, QColor(0x30, 0x70, 0xD0, 50));
    painter.setPen(QColor(0x30, 0x70, 0xD0));
    painter.drawLine(QPointF(left_px, band.top()), QPointF(left_px, band.bottom()));
    painter.drawLine(QPointF(right_px, band.top()), QPointF(right_px, band.bottom()));
    painter.drawText(band.adjusted(4, 4, 0, 0), Qt::AlignLeft | Qt::AlignTop,
                     formatSeconds(layout.timeAt(right_px) - layout.timeAt(left_px)));
  }
  painter.restore();
}

// ---- scrolling, sizes -----------------------------------------------------------------------

void TimelineView::updateScrollBar() {
  const int visible_px = std::max(0, height() - header_height_px);
  const int max_scroll_px = std::max(0, rowCount() * row_height_px - visible_px);
  scroll_bar_->setRange(0, max_scroll_px);
  scroll_bar_->setPageStep(std::max(row_height_px, visible_px));
  scroll_bar_->setSingleStep(row_height_px);
  scroll_bar_->setGeometry(width() - right_margin_px_, header_height_px, right_margin_px_, visible_px);
  scroll_bar_->setVisible(max_scroll_px > 0);
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  updateScrollBar();
}

QSize TimelineView::sizeHint() const {
  const int rows = std::clamp(rowCount(), 8, 32);
  return QSize(900, header_height_px + rows * row_height_px);
}

QSize TimelineView::minimumSizeHint() const { return QSize(label_width_px_ + 120, header_height_px + 3 * row_height_px); }

// ---- input ----------------------------------------------------------------------------------

bool TimelineView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(event);
    const std::optional<TraceSpan> span = spanAt(help->pos());
    QToolTip::showText(help->globalPos(), span ? describeSpan(*span) : help_text, this);
    return true;
  }
  return QWidget::event(event);
}

// Ctrl+wheel zooms around the mouse; Shift+wheel or a horizontal wheel pans; a plain wheel
// scrolls the rows (as in Nsight Systems; Perfetto's W/S/A/D are on the keyboard).
void TimelineView::wheelEvent(QWheelEvent* event) {
  const QPoint delta = event->angleDelta();
  const double window_s = window_end_s_ - window_start_s_;
  if (event->modifiers() & Qt::ControlModifier) {
    zoomBy(std::pow(zoom_step, delta.y() / 120.0), timeAt(event->position().x()));
  } else if ((event->modifiers() & Qt::ShiftModifier) || (delta.y() == 0 && delta.x() != 0)) {
    const int notch_delta = delta.y() != 0 ? delta.y() : delta.x();
    panBy(-notch_delta / 120.0 * pan_step * window_s);
  } else {
    scroll_bar_->setValue(scroll_bar_->value() - int(std::lround(delta.y() / 120.0 * 3 * row_height_px)));
  }
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  const double x_px = event->position().x();
  if (event->button() == Qt::LeftButton) {
    drag_ = Drag::pan;
    setCursor(Qt::ClosedHandCursor);
  } else if (event->button() == Qt::RightButton && plotArea().contains(event->position().toPoint())) {
    drag_ = Drag::select;
  } else {
    QWidget::mousePressEvent(event);
    return;
  }
  drag_origin_x_px_ = drag_current_x_px_ = x_px;
  drag_window_start_s_ = window_start_s_, drag_window_end_s_ = window_end_s_;
  QToolTip::hideText();
  event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  drag_current_x_px_ = event->position().x();
  if (drag_ == Drag::pan) {
    const double seconds_per_px = (drag_window_end_s_ - drag_window_start_s_) / plotArea().width();
    const double shift_s = -(drag_current_x_px_ - drag_origin_x_px_) * seconds_per_px;
    setTimeWindow(drag_window_start_s_ + shift_s, drag_window_end_s_ + shift_s);
  } else if (drag_ == Drag::select) {
    update();
  } else {
    updateHover(event->position().toPoint(), event->globalPosition().toPoint());
  }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  const Drag finished = drag_;
  drag_ = Drag::none;
  unsetCursor();
  if (finished == Drag::select && std::abs(drag_current_x_px_ - drag_origin_x_px_) >= min_select_px) {
    const double a_s = timeAt(drag_origin_x_px_), b_s = timeAt(drag_current_x_px_);
    setTimeWindow(std::min(a_s, b_s), std::max(a_s, b_s));
  }
  update();
  event->accept();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) {
    QWidget::mouseDoubleClickEvent(event);
    return;
  }
  drag_ = Drag::none;
  zoomAll();
  event->accept();
}

double TimelineView::anchorForKeys() const {
  const QPoint local = mapFromGlobal(QCursor::pos());
  if (underMouse() && plotArea().contains(local)) return timeAt(local.x());
  return (window_start_s_ + window_end_s_) / 2;
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  const double window_s = window_end_s_ - window_start_s_;
  switch (event->key()) {
    case Qt::Key_W: zoomBy(zoom_step, anchorForKeys()); break;
    case Qt::Key_S: zoomBy(1 / zoom_step, anchorForKeys()); break;
    case Qt::Key_A: panBy(-pan_step * window_s); break;
    case Qt::Key_D: panBy(pan_step * window_s); break;
    case Qt::Key_F: zoomAll(); break;
    case Qt::Key_Up: scroll_bar_->triggerAction(QAbstractSlider::SliderSingleStepSub); break;
    case Qt::Key_Down: scroll_bar_->triggerAction(QAbstractSlider::SliderSingleStepAdd); break;
    case Qt::Key_PageUp: scroll_bar_->triggerAction(QAbstractSlider::SliderPageStepSub); break;
    case Qt::Key_PageDown: scroll_bar_->triggerAction(QAbstractSlider::SliderPageStepAdd); break;
    default: QWidget::keyPressEvent(event); return;
  }
  event->accept();
}

void TimelineView::updateHover(QPoint widget_pos, QPoint global_pos) {
  const std::optional<SpanRef> hit = hitTest(widget_pos);
  if (hit != hover_) {
    hover_ = hit;
    update();
  }
  if (hit)
    QToolTip::showText(global_pos, describeSpan(toTraceSpan(*hit)), this);
  else
    QToolTip::hideText();
}

void TimelineView::leaveEvent(QEvent* event) {
  if (hover_) {
    hover_.reset();
    update();
  }
  QWidget::leaveEvent(event);
}

}  // namespace dtsim::gui
