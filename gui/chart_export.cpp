#include "chart_export.hpp"

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include "atomic_file.hpp"

namespace dtsim::gui {

QString saveText(const QString& file, const QString& text) {
  const QByteArray bytes = text.toUtf8();
  if (!write_file_atomically(file.toStdString(), std::string_view(bytes.constData(), size_t(bytes.size()))))
    return "could not write " + file;
  return {};
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
  if (!write_file_atomically(file.toStdString(), std::string_view(bytes.constData(), size_t(bytes.size()))))
    return "could not write " + file;
  return {};
}

}  // namespace dtsim::gui
