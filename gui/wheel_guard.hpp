#pragma once
// Form widgets (combo boxes, spin boxes) that a scrolling wheel passes over unless they have the
// keyboard focus: scrolling the form must not change a field under the pointer (the GPU once
// became p100 while the user scrolled).
#include <QWidget>

namespace dtsim {

void ignore_wheel_unless_focused(QWidget* widget);

}  // namespace dtsim
