#pragma once
// Horizontal stacked bars of seconds, one bar per category (a run, a strategy) and one coloured
// part per kind of time: the Summary tab's breakdown and the Strategies tab's draw it so.
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QValueAxis>
#include <vector>

namespace dtsim::gui {

struct StackedPart {
  QString name;
  QColor colour;
  QList<qreal> seconds;  // one per category
};

// Removes every series and axis `chart` shows.
inline void clear_chart(QChart& chart) {
  chart.removeAllSeries();
  for (QAbstractAxis* a : chart.axes()) {
    chart.removeAxis(a);
    delete a;
  }
}

// Replaces what `chart` shows with the categories' stacked parts on a seconds axis that reaches 5%
// beyond `longest_s`, titled `axis_title`.
inline void show_stacked_seconds(QChart& chart, const QStringList& categories, const std::vector<StackedPart>& parts,
                                 double longest_s, const QString& axis_title) {
  clear_chart(chart);
  auto* series = new QHorizontalStackedBarSeries;
  for (const StackedPart& p : parts) {
    auto* set = new QBarSet(p.name);
    set->setColor(p.colour);
    set->append(p.seconds);
    series->append(set);
  }
  chart.addSeries(series);
  auto* y = new QBarCategoryAxis;
  y->append(categories);
  chart.addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  auto* x = new QValueAxis;
  x->setTitleText(axis_title);
  x->setLabelFormat("%.3g");
  x->setRange(0, longest_s * 1.05);
  chart.addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  chart.legend()->setAlignment(Qt::AlignBottom);
}

}  // namespace dtsim::gui
