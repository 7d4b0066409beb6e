#include "wheel_guard.hpp"

#include <QEvent>

namespace dtsim {

namespace {

class WheelGuard : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::Wheel) return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget || widget->hasFocus()) return false;
    event->ignore();  // the scroll area above gets it
    return true;
  }
};

}  // namespace

void ignore_wheel_unless_focused(QWidget* widget) {
  static WheelGuard* guard = new WheelGuard;  // one for the process, never deleted
  widget->setFocusPolicy(Qt::StrongFocus);
  widget->installEventFilter(guard);
}

}  // namespace dtsim
