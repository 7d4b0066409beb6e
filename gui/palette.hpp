#pragma once
// Colours shared by every view, so that compute is the same blue in the breakdown chart, the
// timeline and the exports.
#include <QColor>

namespace dtsim::gui::palette {

inline QColor compute() { return QColor(0x4C, 0x78, 0xA8); }            // blue
inline QColor communication() { return QColor(0xF5, 0x85, 0x18); }      // orange: blocking collectives
inline QColor p2p() { return QColor(0xE4, 0x57, 0x56); }                // red: pipeline transfers
inline QColor overlapped() { return QColor(0x72, 0xB7, 0xB2); }         // teal: comm stream, hidden
inline QColor bubble() { return QColor(0xBA, 0xB0, 0xAC); }             // grey: waiting for a neighbour
inline QColor input_wait() { return QColor(0xB2, 0x79, 0xA2); }         // mauve: waiting for data
inline QColor other() { return QColor(0x9D, 0x75, 0x5D); }              // brown
inline QColor failed() { return QColor(0xD6, 0x27, 0x28); }             // red outline: failed element
inline QColor slowed() { return QColor(0xFF, 0xBF, 0x00); }             // amber outline: slowed element

// Utilisation 0..1 to a colour from pale green (idle) through yellow to red (saturated).
inline QColor utilisation(double u) {
  if (!(u >= 0)) u = 0;
  if (u > 1) u = 1;
  const QColor idle(0xE5, 0xF5, 0xE0), mid(0xFE, 0xE0, 0x8B), busy(0xD7, 0x30, 0x27);
  auto mix = [](const QColor& a, const QColor& b, double t) {
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t), float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
  };
  return u < 0.5 ? mix(idle, mid, u / 0.5) : mix(mid, busy, (u - 0.5) / 0.5);
}

}  // namespace dtsim::gui::palette
