#pragma once
// The library's std::strings as Qt text, for the views that show many of them.
#include <QString>
#include <QStringList>
#include <string>
#include <vector>

namespace dtsim::gui {

inline QString q(const std::string& s) { return QString::fromStdString(s); }

inline QStringList q(const std::vector<std::string>& items) {
  QStringList list;
  for (const std::string& s : items) list << q(s);
  return list;
}

}  // namespace dtsim::gui
