#include "line_chart.hpp"

#include <QBuffer>
#include <QByteArray>
#include <QFont>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace dtsim::plot {

namespace {

// Layout, in pixels (the same in the PNG and the SVG: fonts are sized in pixels, not points).
constexpr double kTitleHeight = 44;
constexpr double kXLabelHeight = 36;
constexpr double kLeftMargin = 100;   // y tick labels and the rotated y label
constexpr double kRightMargin = 28;
constexpr double kPanelTitleHeight = 30;
constexpr double kTickLabelHeight = 34;
constexpr double kXPaddingFraction = 0.06;  // space between the axis and the first/last point
constexpr int kYIntervals = 5;              // about this many y grid intervals
const QColor kSeriesColors[] = {QColor("#1f77b4"), QColor("#d62728"), QColor("#2ca02c"), QColor("#9467bd")};

QtMessageHandler previous_message_handler = nullptr;

// Without a login session (servers, containers) XDG_RUNTIME_DIR is unset and Qt warns that it
// uses /tmp/runtime-<user> instead; nothing is wrong for drawing charts, so that one is dropped.
void message_handler(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (type == QtWarningMsg && message.startsWith("QStandardPaths: XDG_RUNTIME_DIR")) return;
  if (previous_message_handler) {
    previous_message_handler(type, context, message);
  } else {
    std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
  }
}

// Text needs a QGuiApplication (fonts). A command-line program has none: make one on the
// offscreen platform (no display needed). It is never destroyed: Qt's own statics outlive main.
void ensure_gui_application() {
  if (QCoreApplication::instance()) return;
  previous_message_handler = qInstallMessageHandler(message_handler);
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  static int argc = 1;
  static char name[] = "dtsim";
  static char* argv[] = {name, nullptr};
  new QGuiApplication(argc, argv);
}

void check(const LineChart& c) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("line chart: " + what); };
  if (c.width_px < 100 || c.width_px > 10000 || c.height_px < 100 || c.height_px > 10000)
    fail("size must be 100 to 10000 pixels each way");
  if (c.panels.empty()) fail("no panel");
  const size_t n = c.x_labels.size();
  if (c.x_scale != XScale::categorical && c.x.size() != n) fail("x and x_labels differ in length");
  if (!c.x_notes.empty() && c.x_notes.size() != n) fail("x_notes and x_labels differ in length");
  for (const Panel& p : c.panels) {
    if (p.y.size() != n) fail("panel '" + p.title + "' has a y count different from the x count");
    if (!p.reference.empty() && p.reference.size() != n)
      fail("panel '" + p.title + "' has a reference count different from the x count");
  }
  if (c.x_scale == XScale::log2)
    for (double x : c.x)
      if (!(x > 0)) fail("x must be positive on a log2 scale");
}

QFont font(int pixels, bool bold = false) {
  QFont f("DejaVu Sans");
  f.setStyleHint(QFont::SansSerif);
  f.setPixelSize(pixels);
  f.setBold(bold);
  return f;
}

QString text(const std::string& s) { return QString::fromStdString(s); }

// 1, 2, 2.5 or 5 x 10^k: the smallest giving at most `intervals` intervals up to `max` (> 0).
double nice_step(double max, int intervals) {
  const double raw = max / intervals;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (m * magnitude >= raw) return m * magnitude;
  return 10 * magnitude;
}

// 1.5M, 250k, 5M (not 5000k), 0.25, 40: an SI prefix from a thousand up, four significant digits.
QString tick_text(double v) {
  const double a = std::abs(v);
  if (a >= 1e12) return QString::number(v / 1e12, 'g', 4) + "T";
  if (a >= 1e9) return QString::number(v / 1e9, 'g', 4) + "G";
  if (a >= 1e6) return QString::number(v / 1e6, 'g', 4) + "M";
  if (a >= 1e3) return QString::number(v / 1e3, 'g', 4) + "k";
  return QString::number(v, 'g', 4);
}

// The panel's y axis: where a value goes, and the values to mark.
struct YAxis {
  bool log = false;
  double low = 0, high = 1;  // linear: the range; log: log10 of it
  std::vector<double> ticks;
  double fraction(double y) const { return log ? (std::log10(y) - low) / (high - low) : (y - low) / (high - low); }
};

YAxis y_axis(const Panel& panel) {
  YAxis a;
  a.log = panel.log_y;
  std::vector<double> values = panel.y;
  values.insert(values.end(), panel.reference.begin(), panel.reference.end());
  if (a.log) {
    double lo = 0, hi = 0;
    for (double y : values)
      if (std::isfinite(y) && y > 0) {
        lo = lo > 0 ? std::min(lo, y) : y;
        hi = std::max(hi, y);
      }
    if (!(lo > 0)) lo = 1, hi = 10;
    a.low = std::floor(std::log10(lo));
    a.high = std::max(a.low + 1, std::ceil(std::log10(hi)));
    for (double decade = a.low; decade <= a.high; ++decade)
      for (double m : {1.0, 2.0, 5.0})
        if (decade + std::log10(m) <= a.high + 1e-9) a.ticks.push_back(m * std::pow(10.0, decade));
    return a;
  }
  double y_max = 0;
  for (double y : values)
    if (std::isfinite(y)) y_max = std::max(y_max, y);
  if (!(y_max > 0)) y_max = 1;
  const double step = nice_step(y_max, kYIntervals);
  const int intervals = int(std::ceil(y_max / step - 1e-9));
  a.high = intervals * step;
  for (int i = 0; i <= intervals; ++i) a.ticks.push_back(i * step);
  return a;
}

bool drawable(const YAxis& a, double y) { return std::isfinite(y) && (!a.log || y > 0); }

// A series' path through the points it has (broken where one is missing).
QPainterPath series_path(const std::vector<double>& xs, const std::vector<double>& ys, const YAxis& axis,
                         const QRectF& plot) {
  QPainterPath path;
  bool pen_down = false;
  for (size_t i = 0; i < xs.size() && i < ys.size(); ++i) {
    if (!drawable(axis, ys[i])) {
      pen_down = false;
      continue;
    }
    const QPointF point(xs[i], plot.bottom() - axis.fraction(ys[i]) * plot.height());
    if (pen_down) path.lineTo(point); else path.moveTo(point);
    pen_down = true;
  }
  return path;
}

// Horizontal pixel of each point.
std::vector<double> x_pixels(const LineChart& c, const QRectF& plot) {
  const size_t n = c.x_labels.size();
  std::vector<double> t(n, 0.5);  // 0..1 across the padded plot width
  if (c.x_scale == XScale::categorical) {
    for (size_t i = 0; i < n && n > 1; ++i) t[i] = double(i) / double(n - 1);
  } else {
    std::vector<double> u(n);
    for (size_t i = 0; i < n; ++i) u[i] = c.x_scale == XScale::log2 ? std::log2(c.x[i]) : c.x[i];
    const auto [lo, hi] = std::minmax_element(u.begin(), u.end());
    if (n > 0 && *hi > *lo)
      for (size_t i = 0; i < n; ++i) t[i] = (u[i] - *lo) / (*hi - *lo);
  }
  const double pad = kXPaddingFraction * plot.width();
  std::vector<double> px(n);
  for (size_t i = 0; i < n; ++i) px[i] = plot.left() + pad + t[i] * (plot.width() - 2 * pad);
  return px;
}

void draw_panel(QPainter& p, const LineChart& c, const Panel& panel, const QRectF& plot, const QColor& color) {
  const QColor grid("#e0e0e0"), axis("#404040");
  // Title above the panel.
  p.setPen(Qt::black);
  p.setFont(font(15, true));
  p.drawText(QRectF(plot.left(), plot.top() - kPanelTitleHeight, plot.width(), kPanelTitleHeight - 6),
             Qt::AlignLeft | Qt::AlignBottom, text(panel.title));

  // y axis: 0 to a round maximum above the largest value, or whole decades on a log axis.
  const YAxis y_scale = y_axis(panel);
  auto y_pixel = [&](double y) { return plot.bottom() - y_scale.fraction(y) * plot.height(); };
  p.setFont(font(12));
  for (double tick : y_scale.ticks) {
    const double y = y_pixel(tick);
    p.setPen(QPen(grid, 1));
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    p.setPen(axis);
    p.drawText(QRectF(plot.left() - 70, y - 9, 62, 18), Qt::AlignRight | Qt::AlignVCenter, tick_text(tick));
  }
  p.save();
  p.translate(16, plot.center().y());
  p.rotate(-90);
  p.setFont(font(13));
  p.setPen(Qt::black);
  p.drawText(QRectF(-plot.height() / 2, -10, plot.height(), 20), Qt::AlignCenter, text(panel.y_label));
  p.restore();

  // x axis: a tick and a label at every point (labels that would overlap the previous are left out).
  const std::vector<double> xs = x_pixels(c, plot);
  double last_label_right = -1e9;
  p.setFont(font(12));
  for (size_t i = 0; i < xs.size(); ++i) {
    p.setPen(QPen(grid, 1));
    p.drawLine(QPointF(xs[i], plot.top()), QPointF(xs[i], plot.bottom()));
    p.setPen(QPen(axis, 1));
    p.drawLine(QPointF(xs[i], plot.bottom()), QPointF(xs[i], plot.bottom() + 5));
    const QString label = text(c.x_labels[i]);
    const double half_width = p.fontMetrics().horizontalAdvance(label) / 2.0 + 3;
    if (xs[i] - half_width < last_label_right) continue;
    p.drawText(QRectF(xs[i] - half_width, plot.bottom() + 6, 2 * half_width, 18), Qt::AlignCenter, label);
    last_label_right = xs[i] + half_width;
  }
  // Why a point is missing, where it would be.
  p.setPen(QColor("#808080"));
  p.setFont(font(11));
  for (size_t i = 0; i < xs.size() && i < c.x_notes.size(); ++i)
    if (!drawable(y_scale, panel.y[i]) && !c.x_notes[i].empty())
      p.drawText(QRectF(xs[i] - 60, plot.bottom() - 22, 120, 18), Qt::AlignCenter, text(c.x_notes[i]));
  p.setPen(QPen(axis, 1.5));
  p.drawLine(plot.bottomLeft(), plot.bottomRight());
  p.drawLine(plot.bottomLeft(), plot.topLeft());

  // The reference (dashed, grey, named top right), then the series: one path (broken where a point
  // is missing), and a dot at every point.
  if (!panel.reference.empty()) {
    const QColor reference("#808080");
    p.setPen(QPen(reference, 1.5, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawPath(series_path(xs, panel.reference, y_scale, plot));
    p.setFont(font(12));
    p.drawText(QRectF(plot.left(), plot.top() - kPanelTitleHeight, plot.width(), kPanelTitleHeight - 6),
               Qt::AlignRight | Qt::AlignBottom, "- - " + text(panel.reference_label));
  }
  p.setPen(QPen(color, 2.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
  p.setBrush(Qt::NoBrush);
  p.drawPath(series_path(xs, panel.y, y_scale, plot));
  p.setPen(QPen(color, 1));
  p.setBrush(color);
  for (size_t i = 0; i < xs.size(); ++i)
    if (drawable(y_scale, panel.y[i])) p.drawEllipse(QPointF(xs[i], y_pixel(panel.y[i])), 4.5, 4.5);
  p.setBrush(Qt::NoBrush);
}

// The one painting function behind both formats.
void paint(QPainter& p, const LineChart& c) {
  const double width = c.width_px, height = c.height_px;
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  p.fillRect(QRectF(0, 0, width, height), Qt::white);
  p.setPen(Qt::black);
  p.setFont(font(20, true));
  p.drawText(QRectF(0, 6, width, kTitleHeight - 6), Qt::AlignCenter, text(c.title));

  const double panel_height = (height - kTitleHeight - kXLabelHeight) / double(c.panels.size());
  for (size_t k = 0; k < c.panels.size(); ++k) {
    const double top = kTitleHeight + k * panel_height;
    const QRectF plot(kLeftMargin, top + kPanelTitleHeight, width - kLeftMargin - kRightMargin,
                      panel_height - kPanelTitleHeight - kTickLabelHeight);
    draw_panel(p, c, c.panels[k], plot, kSeriesColors[k % std::size(kSeriesColors)]);
  }
  p.setPen(Qt::black);
  p.setFont(font(14));
  p.drawText(QRectF(kLeftMargin, height - kXLabelHeight, width - kLeftMargin - kRightMargin, kXLabelHeight - 6),
             Qt::AlignCenter, text(c.x_label));
}

std::string bytes_of(const QByteArray& a) { return std::string(a.constData(), size_t(a.size())); }

}  // namespace

std::string render_png(const LineChart& chart) {
  check(chart);
  ensure_gui_application();
  QImage image(chart.width_px, chart.height_px, QImage::Format_RGB32);
  image.setDotsPerMeterX(3780);  // 96 dpi, as the SVG's resolution
  image.setDotsPerMeterY(3780);
  {
    QPainter painter(&image);
    paint(painter, chart);
  }
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (!image.save(&buffer, "PNG")) throw std::runtime_error("line chart: PNG encoding failed");
  return bytes_of(bytes);
}

std::string render_svg(const LineChart& chart) {
  check(chart);
  ensure_gui_application();
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(QSize(chart.width_px, chart.height_px));
  generator.setViewBox(QRect(0, 0, chart.width_px, chart.height_px));
  generator.setResolution(96);
  generator.setTitle(text(chart.title));
  generator.setDescription("dtsim sweep chart");
  QPainter painter;
  if (!painter.begin(&generator)) throw std::runtime_error("line chart: could not start the SVG");
  paint(painter, chart);
  painter.end();
  return bytes_of(bytes);
}

}  // namespace dtsim::plot
