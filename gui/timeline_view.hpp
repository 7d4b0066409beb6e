#pragma once
// Gantt view of one simulated iteration, in the manner of Nsight Systems and Perfetto: one row per
// GPU (with rank folding, per GPU that ran its own program, labelled "×M" with the GPUs it stands
// for), its compute stream in the main lane and its communication stream (overlapped collectives)
// in a thin lane underneath, a time ruler, a colour legend. It only draws the spans the engine
// recorded (EngineResult::spans); it computes nothing about the model.
//
// Navigation: wheel scrolls the rows; Ctrl+wheel (or W / S) zooms the time axis around the mouse;
// Shift+wheel, a horizontal wheel, left-drag (or A / D) pans in time; right-drag zooms to the
// dragged range; double-click (or F) shows the whole iteration. Up / Down scroll one row.
//
// Scale: spans are kept sorted per row and lane; a paint visits only the visible rows and, by
// binary search, the spans that intersect the time window; spans narrower than a pixel are merged
// into at most one 1-px mark per pixel column and lane, so a 1024-GPU trace of millions of spans
// paints in time proportional to the rows on screen and the widget's width.
#include <QWidget>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine.hpp"

class QScrollBar;

namespace dtsim::gui {

class TimelineView : public QWidget {
  Q_OBJECT

 public:
  // main: compute, blocking collectives, p2p transfers, bubbles. communication: overlapped
  // collectives, which run concurrently with compute on the rank's communication stream.
  enum class Lane { main, communication };

  static constexpr double zoom_step = 1.25;        // time-axis zoom factor per wheel notch or key press
  static constexpr double pan_step = 0.125;        // fraction of the window panned per key press or notch
  static constexpr int row_height_px = 18;
  static constexpr double min_window_s = 1e-9;     // deepest zoom: 1 ns across the plot

  explicit TimelineView(QWidget* parent = nullptr);
  ~TimelineView() override;

  // Copies the spans of `result` (rank count = result.ranks.size()) and shows the whole iteration.
  void setTrace(const dtsim::EngineResult& result, int gpus_per_node);
  void clear();
  // Compute spans' text instead of their phase ("recorded compute" for a replayed trace, whose
  // compute tasks have no phase); empty: the phase.
  void setComputeLabel(const QString& label);
  bool hasTrace() const;
  int rankCount() const;  // GPUs
  // Rows: one per GPU, or with rank folding one per GPU that ran its own program, standing for
  // itself and the GPUs folded into it (its multiplicity).
  int rowCount() const;
  int multiplicityOf(int rank) const;  // 1 unless `rank` ran a program for folded GPUs too
  double iterationSeconds() const;
  QString rowLabel(int rank) const;  // "node N · GPU g", then " ×M" for a multiplicity M > 1

  // The time window is kept inside [0, max(iteration, last span end)] and at least min_window_s wide.
  void setTimeWindow(double start_s, double end_s);
  double windowStart() const;
  double windowEnd() const;
  void zoomAll();
  void zoomBy(double factor, double anchor_s);  // factor > 1 zooms in; anchor_s stays at its pixel
  void panBy(double delta_s);
  void scrollToRank(int rank);                  // makes the rank's row visible (a folded rank's: its representative's)

  // Hit test and its inverse, in widget coordinates.
  std::optional<dtsim::TraceSpan> spanAt(QPoint widget_pos) const;
  QPoint pointFor(int rank, double time_s, Lane lane = Lane::main) const;  // centre of the lane
  double timeAt(double x_px) const;
  double secondsPerPixel() const;
  QRect plotArea() const;  // where spans are drawn (right of the labels, below the ruler)

  // Two lines: what the span is, then "start → end (duration)".
  QString describeSpan(const dtsim::TraceSpan& span) const;

  // Draws the current view (rows scrolled to, time window) laid out for `size`, without hover
  // or selection overlays: for PNG (QImage) and SVG (QSvgGenerator) export.
  void renderTo(QPainter& painter, QSize size) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 signals:
  void timeWindowChanged(double start_s, double end_s);

 protected:
  bool event(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  // TraceSpan without the rank (implied by the lane it is stored in), 32 bytes instead of 40.
  struct Span {
    double start_s = 0;
    double end_s = 0;
    int32_t micro_batch = -1;
    int32_t group = -1;
    dtsim::SpanKind kind = dtsim::SpanKind::compute;
    uint8_t phase = 0;
    uint8_t collective = 0;
  };
  struct SpanRef {
    int lane_key = -1;  // row * 2 + lane
    std::size_t index = 0;
    bool operator==(const SpanRef&) const = default;
  };
  struct Layout;
  enum class Drag { none, pan, select };

  Layout layoutFor(QSize size) const;
  void buildRows(const std::vector<int>& representative);
  int rowOf(int rank) const;  // -1 outside the trace
  void buildLanes(const std::vector<dtsim::TraceSpan>& spans);
  std::pair<std::size_t, std::size_t> spansIntersecting(int lane_key, double from_s, double to_s) const;
  std::optional<SpanRef> hitTest(QPoint widget_pos) const;
  dtsim::TraceSpan toTraceSpan(const SpanRef& ref) const;
  QString spanLabel(const Span& span) const;
  QString groupName(int group) const;

  void paintView(QPainter& painter, QSize size, bool overlays) const;
  void paintLegend(QPainter& painter, const Layout& layout) const;
  void paintRuler(QPainter& painter, const Layout& layout) const;
  void paintRows(QPainter& painter, const Layout& layout) const;
  void paintLane(QPainter& painter, const Layout& layout, int lane_key, int top_px, int height_px) const;
  void paintOverlays(QPainter& painter, const Layout& layout) const;

  void updateScrollBar();
  void updateHover(QPoint widget_pos, QPoint global_pos);
  double anchorForKeys() const;

  int rank_count_ = 0;
  std::vector<int> row_rank_;          // row -> the rank whose spans it shows
  std::vector<int> rank_row_;          // rank -> its row, or its representative's
  std::vector<int> row_multiplicity_;  // row -> GPUs it stands for
  int gpus_per_node_ = 1;
  double iteration_s_ = 0;
  double extent_s_ = 1;  // the window never leaves [0, extent_s_]
  std::vector<std::string> group_kinds_;
  std::vector<Span> spans_;              // sorted by (row, lane, start)
  std::vector<double> max_end_s_;        // running max of end_s within each lane, for binary search
  std::vector<std::size_t> lane_begin_;  // lane key -> first index in spans_; size lanes + 1

  QString compute_label_;
  double window_start_s_ = 0;
  double window_end_s_ = 1;
  int label_width_px_ = 100;
  int right_margin_px_ = 16;  // the scroll bar's column; also room for the last ruler label
  QScrollBar* scroll_bar_ = nullptr;

  std::optional<SpanRef> hover_;
  Drag drag_ = Drag::none;
  double drag_origin_x_px_ = 0;
  double drag_current_x_px_ = 0;
  double drag_window_start_s_ = 0;
  double drag_window_end_s_ = 0;
};

}  // namespace dtsim::gui
