#pragma once
// Saving what a view draws as PNG (QImage) or SVG (QSvgGenerator), and text exports, each
// written to a temporary file and renamed (the library's write_file_atomically), so that a
// failed export never leaves half a file.
#include <QSize>
#include <QString>
#include <functional>

class QPainter;

namespace dtsim::gui {

using RenderFunction = std::function<void(QPainter& painter, QSize size)>;

// By the file's extension: ".svg" is vector, anything else a PNG. Returns an error message, or
// "" on success.
QString saveDrawing(const QString& file, QSize size, const RenderFunction& render, const QString& title);
QString saveText(const QString& file, const QString& text);

}  // namespace dtsim::gui
