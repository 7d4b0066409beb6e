// Qt Test of the timeline (Gantt) view: hit testing, zoom and pan arithmetic, span text, pixel
// colours of the export, and the cost bound on traces far wider than the screen.
#include <QBuffer>
#include <QElapsedTimer>
#include <QImage>
#include <QPaintEngine>
#include <QPainter>
#include <QSignalSpy>
#include <QSvgGenerator>
#include <QTest>
#include <QToolTip>
#include <climits>
#include <cmath>

#include "palette.hpp"
#include "timeline_view.hpp"

using dtsim::CollectiveKind;
using dtsim::EngineResult;
using dtsim::Phase;
using dtsim::SpanKind;
using dtsim::TraceSpan;
using dtsim::gui::TimelineView;
namespace palette = dtsim::gui::palette;

namespace {

TraceSpan makeSpan(int rank, SpanKind kind, Phase phase, int micro_batch, double start_s, double end_s,
                   int group = -1, CollectiveKind collective = CollectiveKind::all_reduce) {
  TraceSpan s;
  s.rank = rank;
  s.kind = kind;
  s.phase = phase;
  s.micro_batch = micro_batch;
  s.start_s = start_s;
  s.end_s = end_s;
  s.group = group;
  s.collective = collective;
  return s;
}

// Three GPUs, two per node, one 1-second iteration. Listed out of time order on purpose.
//   rank 0: compute [0, .25)  p2p [.25, .30)  gap  bubble [.40, .50)  compute [.50, .70)
//           dp all_reduce [.70, .95)  gap;  comm stream: dp all_reduce [.55, .68)
//   rank 1: compute [0, .5)  tp all_gather [.5, .6)  compute [.6, 1)
//   rank 2: gap  compute [.2, .8)  gap
EngineResult smallTrace() {
  EngineResult r;
  r.iteration_s = 1.0;
  r.ranks.resize(3);
  r.group_kinds = {"tp", "dp"};
  r.spans = {
      makeSpan(0, SpanKind::collective, Phase::gradient_sync, -1, 0.70, 0.95, 1, CollectiveKind::all_reduce),
      makeSpan(0, SpanKind::compute, Phase::backward, 0, 0.50, 0.70),
      makeSpan(0, SpanKind::overlapped_collective, Phase::backward, 0, 0.55, 0.68, 1, CollectiveKind::all_reduce),
      makeSpan(0, SpanKind::bubble, Phase::backward, -1, 0.40, 0.50),
      makeSpan(0, SpanKind::p2p_transfer, Phase::forward, 0, 0.25, 0.30),
      makeSpan(0, SpanKind::compute, Phase::forward, 0, 0.00, 0.25),
      makeSpan(1, SpanKind::compute, Phase::backward, 0, 0.60, 1.00),
      makeSpan(1, SpanKind::collective, Phase::forward, 0, 0.50, 0.60, 0, CollectiveKind::all_gather),
      makeSpan(1, SpanKind::compute, Phase::forward, 0, 0.00, 0.50),
      makeSpan(2, SpanKind::compute, Phase::forward, 1, 0.20, 0.80),
  };
  return r;
}

// `ranks` GPUs, each with `per_rank` back-to-back spans over [0, 1) cycling through compute,
// blocking collective, compute, and (on the communication lane) overlapped collectives.
EngineResult syntheticTrace(int ranks, int per_rank) {
  EngineResult r;
  r.iteration_s = 1.0;
  r.ranks.resize(ranks);
  r.group_kinds = {"tp", "dp"};
  r.spans.reserve(std::size_t(ranks) * per_rank);
  const double width_s = 1.0 / per_rank;
  for (int rank = 0; rank < ranks; ++rank)
    for (int i = per_rank - 1; i >= 0; --i) {  // reversed: the view must sort
      const SpanKind kind = i % 4 == 1 ? SpanKind::collective
                            : i % 4 == 3 ? SpanKind::overlapped_collective
                                         : SpanKind::compute;
      r.spans.push_back(makeSpan(rank, kind, Phase::forward, i % 8, i * width_s, (i + 1) * width_s,
                                 kind == SpanKind::compute ? -1 : 1));
    }
  return r;
}

bool nearlyEqual(double a, double b, double relative = 1e-9) {
  return std::abs(a - b) <= relative * std::max({1.0, std::abs(a), std::abs(b)});
}

void sendWheel(TimelineView& view, QPoint pos, int angle_delta_y, Qt::KeyboardModifiers modifiers) {
  QWheelEvent wheel(QPointF(pos), QPointF(view.mapToGlobal(pos)), QPoint(), QPoint(0, angle_delta_y),
                    Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
  QApplication::sendEvent(&view, &wheel);
}

void sendMouse(TimelineView& view, QEvent::Type type, QPoint pos, Qt::MouseButton button, Qt::MouseButtons buttons) {
  QMouseEvent mouse(type, QPointF(pos), QPointF(view.mapToGlobal(pos)), button, buttons, Qt::NoModifier);
  QApplication::sendEvent(&view, &mouse);
}

void drag(TimelineView& view, Qt::MouseButton button, QPoint from, QPoint to) {
  sendMouse(view, QEvent::MouseButtonPress, from, button, button);
  sendMouse(view, QEvent::MouseMove, to, Qt::NoButton, button);
  sendMouse(view, QEvent::MouseButtonRelease, to, button, Qt::NoButton);
}

// A paint device that records nothing but the number of rectangles filled or drawn.
class RectCountingEngine : public QPaintEngine {
 public:
  RectCountingEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}
  bool begin(QPaintDevice*) override { return true; }
  bool end() override { return true; }
  void updateState(const QPaintEngineState&) override {}
  void drawRects(const QRect*, int count) override { rects += count; }
  void drawRects(const QRectF*, int count) override { rects += count; }
  void drawPath(const QPainterPath&) override {}
  void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
  void drawLines(const QLine*, int) override {}
  void drawLines(const QLineF*, int) override {}
  void drawTextItem(const QPointF&, const QTextItem&) override {}
  void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
  Type type() const override { return QPaintEngine::User; }
  long rects = 0;
};

class RectCountingDevice : public QPaintDevice {
 public:
  explicit RectCountingDevice(QSize size) : size_(size) {}
  QPaintEngine* paintEngine() const override { return &engine; }
  mutable RectCountingEngine engine;

 protected:
  int metric(PaintDeviceMetric metric) const override {
    switch (metric) {
      case PdmWidth: return size_.width();
      case PdmHeight: return size_.height();
      case PdmWidthMM: return size_.width() * 254 / 960;
      case PdmHeightMM: return size_.height() * 254 / 960;
      case PdmNumColors: return INT_MAX;
      case PdmDepth: return 32;
      case PdmDpiX:
      case PdmDpiY:
      case PdmPhysicalDpiX:
      case PdmPhysicalDpiY: return 96;
      case PdmDevicePixelRatio: return 1;
      case PdmDevicePixelRatioScaled: return int(QPaintDevice::devicePixelRatioFScale());
      default: return QPaintDevice::metric(metric);
    }
  }

 private:
  QSize size_;
};

}  // namespace

class TestTimelineView : public QObject {
  Q_OBJECT

 private:
  // The small trace in an 800 × 200 widget: three rows fit, no scrolling.
  void showSmall(TimelineView& view) {
    view.setTrace(smallTrace(), 2);
    view.resize(800, 200);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
  }

 private slots:
  void emptyStateSaysSo() {
    TimelineView view;
    view.resize(400, 200);
    QVERIFY(!view.hasTrace());
    QVERIFY(!view.spanAt(QPoint(200, 100)));
    QImage image(view.size(), QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    view.renderTo(painter, image.size());
    painter.end();
    int dark_pixels = 0;  // the message in the middle
    for (int x = 0; x < image.width(); ++x)
      if (qGray(image.pixel(x, image.height() / 2)) < 160) ++dark_pixels;
    QVERIFY(dark_pixels > 0);
  }

  void rowsAreLabelledByNodeAndGpu() {
    TimelineView view;
    view.setTrace(smallTrace(), 2);
    QCOMPARE(view.rankCount(), 3);
    QCOMPARE(view.rowLabel(0), QStringLiteral("node 0 · GPU 0"));
    QCOMPARE(view.rowLabel(1), QStringLiteral("node 0 · GPU 1"));
    QCOMPARE(view.rowLabel(2), QStringLiteral("node 1 · GPU 0"));
  }

  void foldedRanksShareTheirRepresentativesRow() {
    // Ranks 2 and 3 repeat ranks 0 and 1 (rank folding): two rows, each standing for two GPUs.
    EngineResult folded = smallTrace();
    folded.ranks.resize(4);
    folded.representative = {0, 1, 0, 1};
    folded.spans.pop_back();  // rank 2's span: a folded rank records none
    TimelineView view;
    view.resize(800, 300);
    view.setTrace(folded, 2);
    QCOMPARE(view.rankCount(), 4);
    QCOMPARE(view.rowCount(), 2);
    QCOMPARE(view.rowLabel(0), QStringLiteral("node 0 · GPU 0 ×2"));
    QCOMPARE(view.multiplicityOf(3), 1);
    QCOMPARE(view.pointFor(3, 0.5).y(), view.pointFor(1, 0.5).y());
    const std::optional<TraceSpan> span = view.spanAt(view.pointFor(1, 0.3));
    QVERIFY(span);
    QCOMPARE(span->rank, 1);
    QVERIFY(view.describeSpan(*span).contains(QStringLiteral("also for 1 folded GPUs")));
  }

  void zoomAllShowsTheWholeIteration() {
    TimelineView view;
    showSmall(view);
    QCOMPARE(view.windowStart(), 0.0);
    QCOMPARE(view.windowEnd(), 1.0);
    QSignalSpy changed(&view, &TimelineView::timeWindowChanged);
    view.setTimeWindow(0.2, 0.3);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).toDouble(), 0.2);
    QCOMPARE(changed.at(0).at(1).toDouble(), 0.3);
    view.zoomAll();
    QCOMPARE(view.windowStart(), 0.0);
    QCOMPARE(view.windowEnd(), 1.0);
    QCOMPARE(changed.count(), 2);
    // The window stays inside the trace: [-0.5, 0] slides to [0, 0.5], [0.8, 1.4] to [0.4, 1].
    view.setTimeWindow(-0.5, 0.0);
    QCOMPARE(view.windowStart(), 0.0);
    QCOMPARE(view.windowEnd(), 0.5);
    view.setTimeWindow(0.8, 1.4);
    QVERIFY(nearlyEqual(view.windowStart(), 0.4));
    QCOMPARE(view.windowEnd(), 1.0);
  }

  void spanAtFindsEachKindAndNothingInGaps() {
    TimelineView view;
    showSmall(view);
    using Lane = TimelineView::Lane;
    struct Probe {
      int rank;
      double t_s;
      Lane lane;
      bool hit;
      SpanKind kind;
      double start_s;
    };
    const Probe probes[] = {
        {0, 0.10, Lane::main, true, SpanKind::compute, 0.00},
        {0, 0.275, Lane::main, true, SpanKind::p2p_transfer, 0.25},
        {0, 0.35, Lane::main, false, {}, 0},
        {0, 0.45, Lane::main, true, SpanKind::bubble, 0.40},
        {0, 0.60, Lane::main, true, SpanKind::compute, 0.50},
        {0, 0.60, Lane::communication, true, SpanKind::overlapped_collective, 0.55},
        {0, 0.52, Lane::communication, false, {}, 0},
        {0, 0.80, Lane::main, true, SpanKind::collective, 0.70},
        {0, 0.975, Lane::main, false, {}, 0},
        {1, 0.55, Lane::main, true, SpanKind::collective, 0.50},
        {1, 0.90, Lane::main, true, SpanKind::compute, 0.60},
        {2, 0.10, Lane::main, false, {}, 0},
        {2, 0.50, Lane::main, true, SpanKind::compute, 0.20},
    };
    for (const Probe& probe : probes) {
      const QPoint pos = view.pointFor(probe.rank, probe.t_s, probe.lane);
      const std::optional<TraceSpan> span = view.spanAt(pos);
      const QByteArray where = QByteArray("rank ") + QByteArray::number(probe.rank) + " t " +
                               QByteArray::number(probe.t_s) +
                               (probe.lane == Lane::main ? " main lane" : " comm lane");
      QVERIFY2(span.has_value() == probe.hit, where.constData());
      if (!probe.hit) continue;
      QVERIFY2(span->rank == probe.rank, where.constData());
      QVERIFY2(span->kind == probe.kind, where.constData());
      QVERIFY2(span->start_s == probe.start_s, where.constData());
    }
    const std::optional<TraceSpan> collective = view.spanAt(view.pointFor(0, 0.8));
    QCOMPARE(collective->group, 1);
    QVERIFY(collective->collective == CollectiveKind::all_reduce);
    QCOMPARE(collective->end_s, 0.95);

    // Outside the plot: the label column, the ruler, below the last row.
    QVERIFY(!view.spanAt(QPoint(5, view.pointFor(0, 0.1).y())));
    QVERIFY(!view.spanAt(QPoint(view.pointFor(0, 0.1).x(), 25)));
    QVERIFY(!view.spanAt(view.pointFor(0, 0.1) + QPoint(0, 3 * TimelineView::row_height_px)));
  }

  void describeSpanNamesGroupCollectiveAndDuration() {
    TimelineView view;
    view.setTrace(smallTrace(), 2);
    view.resize(800, 200);
    const auto at = [&](int rank, double t_s, TimelineView::Lane lane = TimelineView::Lane::main) {
      return view.describeSpan(*view.spanAt(view.pointFor(rank, t_s, lane)));
    };
    QCOMPARE(at(0, 0.8), QStringLiteral("GPU 0 (node 0) · dp all_reduce · gradient_sync\n"
                                        "700.000 ms → 950.000 ms (250.000 ms)"));
    QCOMPARE(at(2, 0.5), QStringLiteral("GPU 2 (node 1) · compute · forward · micro-batch 1\n"
                                        "200.000 ms → 800.000 ms (600.000 ms)"));
    QCOMPARE(at(1, 0.55), QStringLiteral("GPU 1 (node 0) · tp all_gather · forward · micro-batch 0\n"
                                         "500.000 ms → 600.000 ms (100.000 ms)"));
    QVERIFY(at(0, 0.45).contains(QStringLiteral("pipeline bubble (waiting for a neighbour)")));
    QVERIFY(at(0, 0.6, TimelineView::Lane::communication)
                .contains(QStringLiteral("dp all_reduce on the communication stream")));
    QVERIFY(at(0, 0.275).contains(QStringLiteral("p2p")));
    // Units follow the magnitude: seconds, microseconds.
    const TraceSpan tiny = makeSpan(3, SpanKind::compute, Phase::optimizer, -1, 1.5, 1.5000125);
    QCOMPARE(view.describeSpan(tiny), QStringLiteral("GPU 3 (node 1) · compute · optimizer\n"
                                                     "1.500 s → 1.500 s (12.500 µs)"));
  }

  void ctrlWheelZoomsAroundTheMouse() {
    TimelineView view;
    showSmall(view);
    const QPoint pos = view.pointFor(1, 0.5);
    const double anchor_s = view.timeAt(pos.x());
    QVERIFY(std::abs(anchor_s - 0.5) <= view.secondsPerPixel());

    sendWheel(view, pos, 120, Qt::ControlModifier);
    // One notch: the window shrinks by 1.25 and the time under the mouse stays there.
    QVERIFY(nearlyEqual(view.windowEnd() - view.windowStart(), 1.0 / 1.25));
    QVERIFY(nearlyEqual(view.windowStart(), anchor_s - anchor_s / 1.25));
    QVERIFY(nearlyEqual(view.windowEnd(), anchor_s + (1.0 - anchor_s) / 1.25));
    QVERIFY(nearlyEqual(view.timeAt(pos.x()), anchor_s));

    sendWheel(view, pos, 2 * 120, Qt::ControlModifier);  // two notches: 1.25²
    QVERIFY(nearlyEqual(view.windowEnd() - view.windowStart(), 1.0 / (1.25 * 1.25 * 1.25)));
    QVERIFY(nearlyEqual(view.timeAt(pos.x()), anchor_s));

    sendWheel(view, pos, -3 * 120, Qt::ControlModifier);  // back out
    QVERIFY(nearlyEqual(view.windowStart(), 0.0));
    QVERIFY(nearlyEqual(view.windowEnd(), 1.0));

    // A plain wheel scrolls rows, not time (and three rows fit: nothing moves).
    view.setTimeWindow(0.2, 0.4);
    sendWheel(view, pos, -120, Qt::NoModifier);
    QCOMPARE(view.windowStart(), 0.2);
    QCOMPARE(view.windowEnd(), 0.4);
    QCOMPARE(view.pointFor(1, 0.3).y(), pos.y());
    // Shift+wheel pans by an eighth of the window per notch: wheel down (negative) moves later.
    sendWheel(view, pos, -120, Qt::ShiftModifier);
    QVERIFY(nearlyEqual(view.windowStart(), 0.2 + 0.2 / 8));
    QVERIFY(nearlyEqual(view.windowEnd(), 0.4 + 0.2 / 8));
  }

  void leftDragPansByPixelsTimesSecondsPerPixel() {
    TimelineView view;
    showSmall(view);
    view.setTimeWindow(0.25, 0.75);
    const double seconds_per_px = view.secondsPerPixel();
    QVERIFY(nearlyEqual(seconds_per_px, 0.5 / view.plotArea().width()));
    const QPoint from = view.pointFor(0, 0.5);

    drag(view, Qt::LeftButton, from, from - QPoint(100, 0));  // content moves left: later times
    QVERIFY(nearlyEqual(view.windowStart(), 0.25 + 100 * seconds_per_px));
    QVERIFY(nearlyEqual(view.windowEnd(), 0.75 + 100 * seconds_per_px));

    drag(view, Qt::LeftButton, from, from + QPoint(40, 7));  // vertical motion is ignored
    QVERIFY(nearlyEqual(view.windowStart(), 0.25 + 60 * seconds_per_px));
    QVERIFY(nearlyEqual(view.windowEnd(), 0.75 + 60 * seconds_per_px));

    drag(view, Qt::LeftButton, from, from + QPoint(5000, 0));  // stops at the start of the trace
    QCOMPARE(view.windowStart(), 0.0);
    QVERIFY(nearlyEqual(view.windowEnd(), 0.5));
  }

  void rightDragZoomsToTheRange() {
    TimelineView view;
    showSmall(view);
    const double seconds_per_px = view.secondsPerPixel();
    drag(view, Qt::RightButton, view.pointFor(0, 0.75), view.pointFor(0, 0.25));
    QVERIFY(std::abs(view.windowStart() - 0.25) <= seconds_per_px);
    QVERIFY(std::abs(view.windowEnd() - 0.75) <= seconds_per_px);
    sendMouse(view, QEvent::MouseButtonDblClick, view.pointFor(0, 0.5), Qt::LeftButton, Qt::LeftButton);
    QCOMPARE(view.windowStart(), 0.0);
    QCOMPARE(view.windowEnd(), 1.0);
  }

  void keysZoomAndPanLikePerfetto() {
    TimelineView view;
    showSmall(view);
    QTest::keyClick(&view, Qt::Key_W);  // around the centre when the mouse is elsewhere
    QVERIFY(nearlyEqual(view.windowStart(), 0.5 - 0.5 / 1.25));
    QVERIFY(nearlyEqual(view.windowEnd(), 0.5 + 0.5 / 1.25));
    QTest::keyClick(&view, Qt::Key_D);  // an eighth of the 0.8 s window
    QVERIFY(nearlyEqual(view.windowStart(), 0.2));
    QVERIFY(nearlyEqual(view.windowEnd(), 1.0));
    QTest::keyClick(&view, Qt::Key_D);  // already at the end
    QVERIFY(nearlyEqual(view.windowStart(), 0.2));
    QTest::keyClick(&view, Qt::Key_A);
    QVERIFY(nearlyEqual(view.windowStart(), 0.1));
    QVERIFY(nearlyEqual(view.windowEnd(), 0.9));
    QTest::keyClick(&view, Qt::Key_S);
    QVERIFY(nearlyEqual(view.windowStart(), 0.0));
    QVERIFY(nearlyEqual(view.windowEnd(), 1.0));
    view.setTimeWindow(0.3, 0.31);
    QTest::keyClick(&view, Qt::Key_F);
    QCOMPARE(view.windowStart(), 0.0);
    QCOMPARE(view.windowEnd(), 1.0);
  }

  void hoverShowsTheSpanInATooltip() {
    TimelineView view;
    showSmall(view);
    const QPoint pos = view.pointFor(0, 0.8);
    sendMouse(view, QEvent::MouseMove, pos, Qt::NoButton, Qt::NoButton);
    QCOMPARE(QToolTip::text(), view.describeSpan(*view.spanAt(pos)));
  }

  void renderToPaintsSpansInThePaletteColours() {
    TimelineView view;
    showSmall(view);
    QImage image(view.size(), QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    view.renderTo(painter, image.size());
    painter.end();
    using Lane = TimelineView::Lane;
    // Points late in each span, clear of the text label drawn at a wide span's left end.
    const auto colourAt = [&](int rank, double t_s, Lane lane = Lane::main) {
      return QColor(image.pixel(view.pointFor(rank, t_s, lane)));
    };
    QCOMPARE(colourAt(1, 0.45), palette::compute());
    QCOMPARE(colourAt(2, 0.75), palette::compute());
    QCOMPARE(colourAt(0, 0.92), palette::communication());
    QCOMPARE(colourAt(0, 0.29), palette::p2p());
    QCOMPARE(colourAt(0, 0.48), palette::bubble());
    QCOMPARE(colourAt(0, 0.65, Lane::communication), palette::overlapped());
    const QColor gap = colourAt(0, 0.35);
    for (const QColor& c : {palette::compute(), palette::communication(), palette::p2p(), palette::bubble(),
                            palette::overlapped()})
      QVERIFY(gap != c);
    // Zoomed in on [0.5, 0.6], t = 0.58 of rank 1's collective is still in place.
    view.setTimeWindow(0.5, 0.6);
    image.fill(Qt::white);
    painter.begin(&image);
    view.renderTo(painter, image.size());
    painter.end();
    QCOMPARE(colourAt(1, 0.58), palette::communication());
    QCOMPARE(colourAt(0, 0.59), palette::compute());
  }

  void renderToWritesSvg() {
    TimelineView view;
    showSmall(view);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(view.size());
    svg.setViewBox(QRect(QPoint(0, 0), view.size()));
    QPainter painter(&svg);
    view.renderTo(painter, view.size());
    painter.end();
    const QByteArray text = buffer.data();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains(palette::compute().name().toLatin1()));
    QVERIFY(text.contains(palette::overlapped().name().toLatin1()));
  }

  // 40,000 spans of 25 µs per rank on a ~700-px plot: sub-pixel spans merge into at most one
  // mark per pixel column and lane (runs of one colour into one rectangle), so the rectangles
  // painted are bounded by the width, not by the span count; and no column is left blank.
  void subPixelSpansCostOneMarkPerPixelColumn() {
    TimelineView view;
    view.setTrace(syntheticTrace(2, 40000), 8);
    view.resize(800, 200);
    RectCountingDevice device(view.size());
    QPainter painter(&device);
    view.renderTo(painter, view.size());
    painter.end();
    const long lanes = 2 * 2;
    const long fixed_rects = 16;  // background, legend swatches, ruler, row backgrounds
    QVERIFY2(device.engine.rects <= lanes * (view.plotArea().width() + 3) + fixed_rects,
             QByteArray::number(qlonglong(device.engine.rects)).constData());

    QImage image(view.size(), QImage::Format_RGB32);
    image.fill(Qt::white);
    painter.begin(&image);
    view.renderTo(painter, image.size());
    painter.end();
    using Lane = TimelineView::Lane;
    const QRect plot = view.plotArea();
    for (int rank = 0; rank < 2; ++rank) {
      const int main_y = view.pointFor(rank, 0, Lane::main).y();
      const int comm_y = view.pointFor(rank, 0, Lane::communication).y();
      for (int x = plot.left(); x <= plot.right(); ++x) {
        const QColor main(image.pixel(x, main_y)), comm(image.pixel(x, comm_y));
        QVERIFY2(main == palette::compute() || main == palette::communication(), QByteArray::number(x).constData());
        QVERIFY2(comm == palette::overlapped(), QByteArray::number(x).constData());
      }
    }
  }

  void bigTracePaintsAndScrolls() {
    TimelineView view;
    view.setTrace(syntheticTrace(64, 3000), 8);
    view.resize(1000, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.rankCount(), 64);
    QVERIFY(!view.grab().isNull());

    // Zoomed out, a pixel column holds several spans; the hit is one of them.
    const QPoint pos = view.pointFor(0, 0.5);
    const std::optional<TraceSpan> merged = view.spanAt(pos);
    QVERIFY(merged);
    const double column_s = view.timeAt(pos.x());
    QVERIFY(merged->end_s > column_s && merged->start_s < column_s + view.secondsPerPixel());

    // Zoomed in, the exact span: t = 0.5003 lies in span 1500 = [0.5, 0.5 + 1/3000).
    view.setTimeWindow(0.5, 0.501);
    const std::optional<TraceSpan> exact = view.spanAt(view.pointFor(0, 0.5003));
    QVERIFY(exact);
    QVERIFY(nearlyEqual(exact->start_s, 1500.0 / 3000, 1e-12));
    QVERIFY(exact->kind == SpanKind::compute);

    // Only (300 - header) / 18 rows fit: rank 63 is off screen until scrolled to.
    QVERIFY(view.pointFor(63, 0.5003).y() > view.height());
    QVERIFY(!view.spanAt(view.pointFor(63, 0.5003)));
    view.scrollToRank(63);
    QVERIFY(view.pointFor(63, 0.5003).y() < view.height());
    const std::optional<TraceSpan> last = view.spanAt(view.pointFor(63, 0.5003));
    QVERIFY(last);
    QCOMPARE(last->rank, 63);
    QVERIFY(!view.grab().isNull());

    // A wheel notch down scrolls three rows.
    view.scrollToRank(0);
    const int row0_y = view.pointFor(0, 0.5).y();
    sendWheel(view, view.pointFor(0, 0.5), -120, Qt::NoModifier);
    QCOMPARE(view.pointFor(3, 0.5).y(), row0_y);
  }

  // 1024 GPUs × 3,500 spans, the scale the view is built for; slow to set up, so on request only.
  void fullScaleTiming() {
    if (!qEnvironmentVariableIsSet("DTSIM_TIMELINE_FULL_SCALE"))
      QSKIP("set DTSIM_TIMELINE_FULL_SCALE=1 to time 1024 ranks x 3500 spans");
    const EngineResult trace = syntheticTrace(1024, 3500);
    TimelineView view;
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QElapsedTimer timer;
    timer.start();
    view.setTrace(trace, 8);
    const qint64 set_ms = timer.elapsed();
    QImage image(view.size(), QImage::Format_RGB32);
    const auto paintMs = [&] {  // the mean of a few paints, after a warm-up one
      view.render(&image);
      QElapsedTimer paint_timer;
      paint_timer.start();
      const int paints = 5;
      for (int i = 0; i < paints; ++i) view.render(&image);
      return double(paint_timer.nsecsElapsed()) / paints / 1e6;
    };
    const double zoomed_out_ms = paintMs();
    view.setTimeWindow(0.4, 0.41);
    view.scrollToRank(700);
    const double zoomed_in_ms = paintMs();
    qInfo("3.584 M spans: setTrace %lld ms, paint whole iteration %.1f ms, paint 10 ms window %.1f ms",
          set_ms, zoomed_out_ms, zoomed_in_ms);
  }

  void clearForgetsTheTrace() {
    TimelineView view;
    showSmall(view);
    view.clear();
    QVERIFY(!view.hasTrace());
    QCOMPARE(view.rankCount(), 0);
    QVERIFY(!view.spanAt(view.pointFor(0, 0.1)));
    QVERIFY(!view.grab().isNull());
  }
};

QTEST_MAIN(TestTimelineView)
#include "test_timeline_view.moc"
