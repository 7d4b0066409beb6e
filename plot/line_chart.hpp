#pragma once
// dtsim_plot: line charts of a few stacked panels sharing one x axis, drawn with Qt's QPainter
// into a PNG (QImage) and an SVG (QSvgGenerator) by the same painting function, so the two
// always show the same thing. This header has no Qt in it; only line_chart.cpp uses Qt.
// Needs no display: without a QGuiApplication one is made, on the "offscreen" platform unless
// QT_QPA_PLATFORM says otherwise; text needs a font that fontconfig finds (fonts-dejavu-core).
#include <string>
#include <vector>

namespace dtsim::plot {

enum class XScale {
  log2,         // positions by log2(x), ticks at the points (GPU counts, parallel degrees)
  linear,       // positions by x
  categorical,  // evenly spaced in the order given (values that are not numbers)
};

struct Panel {
  std::string title;      // above the panel, e.g. "Throughput"
  std::string y_label;    // beside the y axis, with the unit, e.g. "tokens/s"
  std::vector<double> y;  // one per x; NaN where there is no point (the line breaks there)
  // A logarithmic y axis (decades, ticks at 1, 2, 5 x 10^k); values <= 0 are left out.
  bool log_y = false;
  // Optional, one per x (or empty): a dashed grey line to read the series against (e.g. ideal
  // scaling), named in the panel's top right corner.
  std::vector<double> reference = {};
  std::string reference_label = {};
};

struct LineChart {
  std::string title;
  std::string x_label;
  XScale x_scale = XScale::linear;
  std::vector<double> x;              // positions; ignored for categorical (may then be empty)
  std::vector<std::string> x_labels;  // one tick label per point
  // Optional, one per point: written in grey just above the x axis where a panel has no y there
  // (e.g. "out of memory"); empty strings or an empty vector for none.
  std::vector<std::string> x_notes;
  std::vector<Panel> panels;          // top to bottom
  int width_px = 900;
  int height_px = 1000;
};

// Throw std::invalid_argument when the chart cannot be drawn (size out of 100..10000 px, no
// panel, lengths that differ, x not positive on a log2 scale).
std::string render_png(const LineChart& chart);  // the bytes of a PNG file
std::string render_svg(const LineChart& chart);  // an SVG document

}  // namespace dtsim::plot
