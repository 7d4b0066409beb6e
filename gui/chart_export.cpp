#include "chart_export.hpp"

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include "atomic_file.hpp"

namespace dtsim::gui {

namespace {
QString writeBytes(const QString& file, const QByteArray& bytes) {
  const std::string error =
      write_file_atomically(file.toStdString(), std::string_view(bytes.constData(), size_t(bytes.size())));
  if (!error.empty()) return "could not write " + file + ": " + QString::fromStdString(error);
  return {};
}
}  // namespace

QString saveText(const QString& file, const QString& text) {
  const QByteArray bytes = text.toUtf8();
  return writeBytes(file, bytes);
}

QString saveDrawing(const QString& file, QSize size, const RenderFunction& render, const QString& title) {
  QBuffer buffer;
  buffer.open(QIODevice::WriteOnly);
  if (file.endsWith(".svg", Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(title);
    QPainter painter(&svg);
    render(painter, size);
  } else {
    QImage image(size, QImage::Format_ARGB32);
    image.fill(Qt::white);
    {
      QPainter painter(&image);
      render(painter, size);
    }
    if (!image.save(&buffer, "PNG")) return "could not encode " + file;
  }
  buffer.close();
  const QByteArray& bytes = buffer.data();
  return writeBytes(file, bytes);
}

}  // namespace dtsim::gui
