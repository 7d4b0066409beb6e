#include "topology_view.hpp"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QInputDialog>
#include <QLinearGradient>
#include <QMenu>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QStringList>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "leaf_switches.hpp"
#include "palette.hpp"

namespace dtsim::gui {

namespace {

// Geometry at zoom 1, in logical pixels. Whole numbers, so that at zoom 1 every cell falls on
// pixel boundaries (crisp exports, exact hit tests).
constexpr int kMargin_px = 12;
constexpr int kHeaderH_px = 56;
constexpr int kLegendW_px = 300;
constexpr int kFabricW_px = 420;
constexpr int kHeaderSpacing_px = 24;
constexpr int kHeaderGap_px = 16;
constexpr int kCellW_px = 14;
constexpr int kGpuH_px = 12;
constexpr int kNvlinkGap_px = 1;
constexpr int kNvlinkH_px = 4;
constexpr int kNicH_px = 9;
constexpr int kCellGap_px = 2;
constexpr int kSectionGap_px = 4;
constexpr int kCellsPerRow = 8;
constexpr int kNodePad_px = 4;
constexpr int kNodeLabelH_px = 13;
constexpr int kNodeMinInnerW_px = 44;
constexpr int kNodeGap_px = 8;
constexpr int kNodesPerRow = 8;
constexpr int kLeafH_px = 16;
constexpr int kLeafLinkSpace_px = 22;
constexpr int kLeafGap_px = 4;
constexpr int kGroupGap_px = 20;
constexpr int kTargetWidth_px = 1200;  // groups side by side up to this width, then wrap
constexpr int kHistogramBins = 20;
constexpr double kMinZoom = 0.1, kMaxZoom = 8.0;

const QColor kUnknownColour(0xC8, 0xC8, 0xC8);
const QColor kNodeFill(0xFA, 0xFA, 0xFA);
const QColor kFrameColour(0x8A, 0x8A, 0x8A);
const QColor kCellFrameColour(0x60, 0x60, 0x60);
const QColor kTextColour(0x20, 0x20, 0x20);

int ceilDiv(int a, int b) { return b <= 0 ? 0 : (a + b - 1) / b; }
int stackSize_px(int count, int cell_px) { return count <= 0 ? 0 : count * cell_px + (count - 1) * kCellGap_px; }

QFont pixelFont(int size_px, bool bold = false) {
  QFont font;
  font.setPixelSize(size_px);
  font.setBold(bold);
  return font;
}

QString percentText(double u) { return QString::number(u * 100, 'f', 1) + QStringLiteral(" %"); }
QString bandwidthText(double bw_Bps) { return QString::number(bw_Bps / 1e9, 'f', 1) + QStringLiteral(" GB/s"); }
QString gigabytesText(double bytes) { return QString::number(bytes / 1e9, 'f', 2) + QStringLiteral(" GB"); }
QString numberText(double v) { return QString::number(v, 'g', 4); }

QString windowText(double start_s, double end_s) {
  if (start_s <= 0 && end_s >= kForever_s) return {};
  if (end_s >= kForever_s) return QStringLiteral(" from %1 s").arg(numberText(start_s));
  return QStringLiteral(" during [%1, %2) s").arg(numberText(start_s), numberText(end_s));
}

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace

// The scrolled surface: paints and hit-tests through the view, in canvas pixels.
class TopologyCanvas : public QWidget {
 public:
  explicit TopologyCanvas(TopologyView* view) : view_(view) {}

 protected:
  void paintEvent(QPaintEvent* event) override {
    QPainter painter(this);
    view_->paintCanvas(painter, event->rect());
  }
  bool event(QEvent* event) override {
    if (event->type() == QEvent::ToolTip) {
      view_->showToolTip(*static_cast<QHelpEvent*>(event));
      return true;
    }
    return QWidget::event(event);
  }
  void mouseReleaseEvent(QMouseEvent* event) override {
    if (event->button() == Qt::LeftButton || event->button() == Qt::RightButton)
      view_->openMenu(event->position().toPoint(), event->globalPosition().toPoint());
  }
  void wheelEvent(QWheelEvent* event) override {
    if (!(event->modifiers() & Qt::ControlModifier)) {
      event->ignore();  // the scroll area scrolls
      return;
    }
    const double steps = event->angleDelta().y() / 120.0;
    view_->zoomAround(event->position().toPoint(), std::pow(1.25, steps));
    event->accept();
  }

 private:
  TopologyView* view_;
};

TopologyView::TopologyView(QWidget* parent) : QWidget(parent) {
  canvas_ = new TopologyCanvas(this);
  canvas_->setAutoFillBackground(false);
  scroll_ = new QScrollArea(this);
  scroll_->setWidgetResizable(false);
  scroll_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  scroll_->setBackgroundRole(QPalette::Base);
  scroll_->setWidget(canvas_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(scroll_);
  rebuild();
}

TopologyView::~TopologyView() = default;

// ---- data ---------------------------------------------------------------------------------

void TopologyView::setCluster(const dtsim::TopologySpec& topo, int nodes) {
  topo_ = topo;
  nodes_ = std::max(0, nodes);
  rebuild();
}

void TopologyView::setUsage(const std::vector<dtsim::LinkUsage>& links, double iteration_s) {
  links_ = links;
  iteration_s_ = iteration_s;
  indexUsage();
  canvas_->update();
}

void TopologyView::setEvents(const std::vector<dtsim::Event>& events) {
  events_ = events;
  marks_.clear();
  auto add = [this](const Element& element, Mark mark, QString badge, QString detail) {
    auto& slot = marks_[keyOf(element)];
    if (slot.mark == Mark::failed && mark != Mark::failed) return;  // a failure outranks a slowdown
    slot = MarkInfo{mark, std::move(badge), std::move(detail), element};
  };
  for (const auto& event : events_) {
    std::visit(
        Overloaded{
            [&](const StragglerEvent& e) {
              const Element element = e.node >= 0 ? nodeElement(e.node) : gpuElement(e.gpu);
              add(element, Mark::slowed, QStringLiteral("\u00D7") + numberText(e.slowdown),
                  QStringLiteral("what-if: computes %1\u00D7 slower%2").arg(numberText(e.slowdown), windowText(e.start_s, e.end_s)));
            },
            [&](const SlowLinkEvent& e) {
              const Element element = e.link == EventLink::nic ? nicElement(e.node, e.nic) : nvlinkElement(e.gpu);
              const QString percent = QString::number(std::lround(e.bandwidth_fraction * 100));
              add(element, Mark::slowed, percent + QStringLiteral("%"),
                  QStringLiteral("what-if: at %1 % of its bandwidth%2").arg(percent, windowText(e.start_s, e.end_s)));
            },
            [&](const ResourceFailureEvent& e) {
              Element element;
              switch (e.resource) {
                case FailedResource::gpu: element = gpuElement(e.gpu); break;
                case FailedResource::node: element = nodeElement(e.node); break;
                case FailedResource::nic: element = nicElement(e.node, e.nic); break;
                case FailedResource::nvlink: element = nvlinkElement(e.gpu); break;
                case FailedResource::leaf_switch: element = leafElement(e.leaf); break;
              }
              add(element, Mark::failed, QStringLiteral("\u2715"), QStringLiteral("what-if: fails at %1 s").arg(numberText(e.at_s)));
            },
            [](const BackgroundTrafficEvent&) {},  // traffic, not a state of one element
        },
        event);
  }
  canvas_->update();
}

void TopologyView::rebuild() {
  buildLayout();
  indexUsage();
  setEvents(events_);
  updateCanvasSize();
  canvas_->update();
}

void TopologyView::indexUsage() {
  nvlink_link_.assign(size_t(nodes_) * std::max(0, gpusPerNode()), -1);
  nic_link_.assign(size_t(nodes_) * std::max(0, nicsPerNode()), -1);
  fabric_links_.clear();
  for (int i = 0; i < int(links_.size()); ++i) {
    const auto& link = links_[i];
    switch (link.role) {
      case LinkRole::nvlink:
        if (link.gpu >= 0 && link.gpu < int(nvlink_link_.size())) nvlink_link_[link.gpu] = i;
        break;
      case LinkRole::nic:
        if (link.node >= 0 && link.node < nodes_ && link.nic >= 0 && link.nic < nicsPerNode())
          nic_link_[link.node * nicsPerNode() + link.nic] = i;
        break;
      case LinkRole::fabric: fabric_links_.push_back(i); break;
      case LinkRole::pcie: break;  // only parameter servers use it; the view draws no CPU
    }
  }
}

// ---- elements -----------------------------------------------------------------------------

Element TopologyView::gpuElement(int rank) const {
  return {ElementKind::gpu, rank, gpusPerNode() > 0 ? rank / gpusPerNode() : -1, -1};
}
Element TopologyView::nvlinkElement(int rank) const {
  return {ElementKind::nvlink, rank, gpusPerNode() > 0 ? rank / gpusPerNode() : -1, -1};
}
Element TopologyView::nodeElement(int node) { return {ElementKind::node, node, node, -1}; }
Element TopologyView::nicElement(int node, int nic) { return {ElementKind::nic, nic, node, nic}; }
Element TopologyView::leafElement(int leaf) { return {ElementKind::leaf, leaf, -1, -1}; }

TopologyView::ElementKey TopologyView::keyOf(const Element& element) {
  if (element.kind == ElementKind::nic) return {int(element.kind), element.node, element.nic};
  return {int(element.kind), element.index, -1};
}

bool TopologyView::hasLeaves() const { return has_leaf_switches(topo_.fabric.kind); }

int TopologyView::leafCount() const { return leaf_switch_count(topo_, nodes_); }

int TopologyView::railOfLeaf(int leaf) const { return leaf_switch(topo_, nodes_, leaf).rail; }

std::vector<int> TopologyView::nodesOfLeaf(int leaf) const {
  const LeafSwitch l = leaf_switch(topo_, nodes_, leaf);
  std::vector<int> nodes;
  for (int n = l.first_node; n < l.end_node; ++n) nodes.push_back(n);
  return nodes;
}

bool TopologyView::contains(const Element& element) const {
  switch (element.kind) {
    case ElementKind::gpu:
    case ElementKind::nvlink: return element.index >= 0 && element.index < nodes_ * gpusPerNode();
    case ElementKind::node: return element.index >= 0 && element.index < nodes_;
    case ElementKind::nic:
      return element.node >= 0 && element.node < nodes_ && element.nic >= 0 && element.nic < nicsPerNode();
    case ElementKind::leaf: return element.index >= 0 && element.index < leafCount();
  }
  return false;
}

// ---- layout -------------------------------------------------------------------------------

void TopologyView::buildLayout() {
  Layout l;
  const int gpus = std::max(0, gpusPerNode()), nics = std::max(0, nicsPerNode());
  const int gpu_rows = ceilDiv(gpus, kCellsPerRow), nic_rows = ceilDiv(nics, kCellsPerRow);
  const int gpu_slot_h = kGpuH_px + kNvlinkGap_px + kNvlinkH_px;
  const int cells_w = std::max(stackSize_px(std::min(gpus, kCellsPerRow), kCellW_px),
                               stackSize_px(std::min(nics, kCellsPerRow), kCellW_px));
  const int node_w = 2 * kNodePad_px + std::max(cells_w, kNodeMinInnerW_px);
  const int node_h = kNodePad_px + kNodeLabelH_px + stackSize_px(gpu_rows, gpu_slot_h) + kSectionGap_px +
                     stackSize_px(nic_rows, kNicH_px) + kNodePad_px;

  const bool leaves = hasLeaves();
  const int per_group = leaves ? std::max(1, topo_.fabric.nodes_per_leaf) : std::max(1, nodes_);
  const int group_nodes = std::max(1, std::min(per_group, nodes_));
  // Without leaves, one block of nodes about as wide as tall, 8 to 32 columns.
  const int node_cols = leaves ? std::min(group_nodes, kNodesPerRow)
                               : std::min(group_nodes, std::clamp(int(std::ceil(std::sqrt(double(nodes_)))), kNodesPerRow, 32));
  const int node_rows = ceilDiv(group_nodes, node_cols);
  const int leaf_band_h = leaves ? kLeafH_px + kLeafLinkSpace_px : 0;
  const int group_w = node_cols * node_w + (node_cols - 1) * kNodeGap_px;
  const int group_h = leaf_band_h + node_rows * node_h + (node_rows - 1) * kNodeGap_px;
  const int group_count = ceilDiv(nodes_, per_group);
  const int group_cols = std::clamp((kTargetWidth_px + kGroupGap_px) / (group_w + kGroupGap_px), 1, std::max(1, group_count));
  const int group_rows = ceilDiv(group_count, group_cols);
  const int top_px = kMargin_px + kHeaderH_px + kHeaderGap_px;

  l.legend = QRectF(kMargin_px, kMargin_px, kLegendW_px, kHeaderH_px);
  l.fabric = QRectF(l.legend.right() + kHeaderSpacing_px, kMargin_px, kFabricW_px, kHeaderH_px);
  auto groupOrigin = [&](int group) {
    return QPointF(kMargin_px + (group % group_cols) * (group_w + kGroupGap_px), top_px + (group / group_cols) * (group_h + kGroupGap_px));
  };

  for (int n = 0; n < nodes_; ++n) {
    const int local = n % per_group;
    const QPointF origin = groupOrigin(n / per_group);
    const QRectF node(origin.x() + (local % node_cols) * (node_w + kNodeGap_px),
                      origin.y() + leaf_band_h + (local / node_cols) * (node_h + kNodeGap_px), node_w, node_h);
    l.nodes.push_back(node);
    const double inner_x = node.x() + kNodePad_px, gpu_y = node.y() + kNodePad_px + kNodeLabelH_px;
    for (int g = 0; g < gpus; ++g) {
      const double x = inner_x + (g % kCellsPerRow) * (kCellW_px + kCellGap_px);
      const double y = gpu_y + (g / kCellsPerRow) * (gpu_slot_h + kCellGap_px);
      l.gpus.emplace_back(x, y, kCellW_px, kGpuH_px);
      l.nvlinks.emplace_back(x, y + kGpuH_px + kNvlinkGap_px, kCellW_px, kNvlinkH_px);
    }
    const double nic_y = gpu_y + stackSize_px(gpu_rows, gpu_slot_h) + kSectionGap_px;
    for (int k = 0; k < nics; ++k)
      l.nics.emplace_back(inner_x + (k % kCellsPerRow) * (kCellW_px + kCellGap_px), nic_y + (k / kCellsPerRow) * (kNicH_px + kCellGap_px),
                          kCellW_px, kNicH_px);
  }

  const bool rails = topo_.fabric.kind == FabricKind::rail_optimized;
  for (int group = 0; leaves && group < group_count; ++group) {
    const int members = std::min(per_group, nodes_ - group * per_group);
    const int used_cols = std::min(members, node_cols);
    const double span_w = used_cols * node_w + (used_cols - 1) * kNodeGap_px;
    const QPointF origin = groupOrigin(group);
    if (!rails) {
      l.leaves.emplace_back(origin.x(), origin.y(), span_w, kLeafH_px);
      continue;
    }
    const double leaf_w = (span_w - (nics - 1) * kLeafGap_px) / std::max(1, nics);
    for (int k = 0; k < nics; ++k) l.leaves.emplace_back(origin.x() + k * (leaf_w + kLeafGap_px), origin.y(), leaf_w, kLeafH_px);
  }

  const double groups_w = group_cols * group_w + (group_cols - 1) * kGroupGap_px;
  const double width = std::max(l.fabric.right(), kMargin_px + groups_w) + kMargin_px;
  const double height = nodes_ > 0 ? top_px + group_rows * group_h + (group_rows - 1) * kGroupGap_px + kMargin_px
                                   : l.legend.bottom() + kMargin_px;
  l.content = QSizeF(width, height);
  layout_ = std::move(l);
}

void TopologyView::updateCanvasSize() {
  canvas_->setFixedSize(int(std::ceil(layout_.content.width() * zoom_)), int(std::ceil(layout_.content.height() * zoom_)));
}

QSize TopologyView::contentSize() const {
  return QSize(int(std::ceil(layout_.content.width())), int(std::ceil(layout_.content.height())));
}

QSize TopologyView::sizeHint() const {
  const int frame_px = 2 * scroll_->frameWidth();
  return QSize(std::min(canvas_->width() + frame_px, 1000), std::min(canvas_->height() + frame_px, 700));
}

QWidget* TopologyView::canvas() const { return canvas_; }

void TopologyView::setZoom(double zoom) {
  zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
  if (zoom == zoom_) return;
  zoom_ = zoom;
  updateCanvasSize();
  canvas_->update();
}

void TopologyView::zoomAround(QPoint canvas_px, double factor) {
  const QPointF logical = QPointF(canvas_px) / zoom_;
  const QPoint in_viewport = canvas_->mapTo(scroll_->viewport(), canvas_px);
  setZoom(zoom_ * factor);
  scroll_->horizontalScrollBar()->setValue(int(std::lround(logical.x() * zoom_)) - in_viewport.x());
  scroll_->verticalScrollBar()->setValue(int(std::lround(logical.y() * zoom_)) - in_viewport.y());
}

std::optional<QRectF> TopologyView::logicalRectOf(const Element& element) const {
  if (!contains(element)) return std::nullopt;
  switch (element.kind) {
    case ElementKind::gpu: return layout_.gpus[element.index];
    case ElementKind::nvlink: return layout_.nvlinks[element.index];
    case ElementKind::node: return layout_.nodes[element.index];
    case ElementKind::nic: return layout_.nics[element.node * nicsPerNode() + element.nic];
    case ElementKind::leaf: return layout_.leaves[element.index];
  }
  return std::nullopt;
}

QRect TopologyView::rectOf(const Element& element) const {
  const auto rect = logicalRectOf(element);
  if (!rect) return {};
  return QRectF(rect->x() * zoom_, rect->y() * zoom_, rect->width() * zoom_, rect->height() * zoom_).toRect();
}

std::optional<Element> TopologyView::elementAt(QPoint canvas_px) const {
  const QPointF p = (QPointF(canvas_px) + QPointF(0.5, 0.5)) / zoom_;  // the pixel's centre
  for (int i = 0; i < int(layout_.leaves.size()); ++i)
    if (layout_.leaves[i].contains(p)) return leafElement(i);
  for (int n = 0; n < nodes_; ++n) {
    if (!layout_.nodes[n].contains(p)) continue;
    for (int rank = n * gpusPerNode(); rank < (n + 1) * gpusPerNode(); ++rank) {
      if (layout_.gpus[rank].contains(p)) return gpuElement(rank);
      if (layout_.nvlinks[rank].adjusted(0, -kNvlinkGap_px, 0, kNvlinkGap_px).contains(p)) return nvlinkElement(rank);
    }
    for (int k = 0; k < nicsPerNode(); ++k)
      if (layout_.nics[n * nicsPerNode() + k].contains(p)) return nicElement(n, k);
    return nodeElement(n);
  }
  return std::nullopt;
}

// ---- usage --------------------------------------------------------------------------------

double TopologyView::linkUtilisation(int link) const {
  if (link < 0 || iteration_s_ <= 0 || links_[link].bandwidth_Bps <= 0) return -1;
  return links_[link].utilisation(iteration_s_);
}

TopologyView::Traffic TopologyView::linkTraffic(int link, double nominal_bw_Bps) const {
  if (link < 0) return Traffic{-1, nominal_bw_Bps, 0, 0};
  const auto& usage = links_[link];
  return Traffic{linkUtilisation(link), usage.bandwidth_Bps > 0 ? usage.bandwidth_Bps : nominal_bw_Bps, usage.up_bytes,
                 usage.down_bytes};
}

TopologyView::Traffic TopologyView::nicTraffic(int node, int nic) const {
  return linkTraffic(nic_link_[node * nicsPerNode() + nic], topo_.node.nic_bw_Bps);
}

TopologyView::Traffic TopologyView::trafficOf(const Element& element) const {
  if (!contains(element)) return {};
  auto sum = [](Traffic a, const Traffic& b) {
    a.utilisation = std::max(a.utilisation, b.utilisation);  // unknown (-1) loses to any known
    a.bandwidth_Bps += b.bandwidth_Bps;
    a.up_bytes += b.up_bytes;
    a.down_bytes += b.down_bytes;
    return a;
  };
  Traffic total;
  switch (element.kind) {
    case ElementKind::gpu:
    case ElementKind::nvlink: return linkTraffic(nvlink_link_[element.index], topo_.node.nvlink_bw_Bps);
    case ElementKind::nic: return nicTraffic(element.node, element.nic);
    case ElementKind::node:
      for (int k = 0; k < nicsPerNode(); ++k) total = sum(total, nicTraffic(element.index, k));
      return total;
    case ElementKind::leaf: {
      const int rail = railOfLeaf(element.index);
      for (int n : nodesOfLeaf(element.index))
        for (int k = 0; k < nicsPerNode(); ++k)
          if (rail < 0 || k == rail) total = sum(total, nicTraffic(n, k));
      return total;
    }
  }
  return total;
}

double TopologyView::utilisationOf(const Element& element) const { return trafficOf(element).utilisation; }

QColor TopologyView::colourOf(const Element& element) const {
  const double u = utilisationOf(element);
  return u < 0 ? kUnknownColour : palette::utilisation(u);
}

Mark TopologyView::markOf(const Element& element) const {
  const auto it = marks_.find(keyOf(element));
  return it == marks_.end() ? Mark::none : it->second.mark;
}

std::vector<double> TopologyView::fabricUtilisations() const {
  std::vector<double> utilisations;
  for (int link : fabric_links_)
    if (const double u = linkUtilisation(link); u >= 0) utilisations.push_back(u);
  return utilisations;
}

QString TopologyView::describe(const Element& element) const {
  if (!contains(element)) return {};
  QString name;
  QString utilisation_label = QStringLiteral("utilisation");
  switch (element.kind) {
    case ElementKind::gpu:
      name = QStringLiteral("GPU %1 (node %2 \u00B7 GPU %3)").arg(element.index).arg(element.node).arg(element.index % gpusPerNode());
      utilisation_label = QStringLiteral("NVLink utilisation");
      break;
    case ElementKind::nvlink: name = QStringLiteral("GPU %1 NVLink").arg(element.index); break;
    case ElementKind::node:
      name = QStringLiteral("node %1 (%2 NICs)").arg(element.index).arg(nicsPerNode());
      utilisation_label = QStringLiteral("busiest NIC");
      break;
    case ElementKind::nic: name = QStringLiteral("node %1 \u00B7 NIC %2").arg(element.node).arg(element.nic); break;
    case ElementKind::leaf: {
      const auto nodes = nodesOfLeaf(element.index);
      const int rail = railOfLeaf(element.index);
      name = QStringLiteral("leaf %1 \u00B7 %2nodes %3\u2013%4")
                 .arg(element.index)
                 .arg(rail >= 0 ? QStringLiteral("NIC %1 of ").arg(rail) : QString())
                 .arg(nodes.front())
                 .arg(nodes.back());
      utilisation_label = QStringLiteral("busiest link to a node");
      break;
    }
  }
  const Traffic traffic = trafficOf(element);
  QStringList lines{name};
  if (traffic.utilisation >= 0)
    lines << utilisation_label + QStringLiteral(" ") + percentText(traffic.utilisation);
  else
    lines << (links_.empty() ? QStringLiteral("not simulated yet") : QStringLiteral("no usage reported"));
  lines << QStringLiteral("bandwidth ") + bandwidthText(traffic.bandwidth_Bps);
  if (traffic.utilisation >= 0)
    lines << QStringLiteral("up %1 \u00B7 down %2").arg(gigabytesText(traffic.up_bytes), gigabytesText(traffic.down_bytes));
  if (const auto it = marks_.find(keyOf(element)); it != marks_.end()) lines << it->second.detail;
  return lines.join(QLatin1Char('\n'));
}

// ---- what-ifs -----------------------------------------------------------------------------

std::optional<dtsim::Event> TopologyView::makeEvent(const Element& element, WhatIf what, double value) {
  if (!std::isfinite(value)) return std::nullopt;
  if (what == WhatIf::fail) {
    if (value < 0) return std::nullopt;
    ResourceFailureEvent e;
    e.at_s = value;
    switch (element.kind) {
      case ElementKind::gpu: e.resource = FailedResource::gpu, e.gpu = element.index; break;
      case ElementKind::nvlink: e.resource = FailedResource::nvlink, e.gpu = element.index; break;
      case ElementKind::node: e.resource = FailedResource::node, e.node = element.index; break;
      case ElementKind::nic: e.resource = FailedResource::nic, e.node = element.node, e.nic = element.nic; break;
      case ElementKind::leaf: e.resource = FailedResource::leaf_switch, e.leaf = element.index; break;
    }
    return e;
  }
  switch (element.kind) {
    case ElementKind::gpu:
    case ElementKind::node: {
      if (value < 1) return std::nullopt;
      StragglerEvent e;
      e.slowdown = value;
      if (element.kind == ElementKind::gpu)
        e.gpu = element.index;
      else
        e.node = element.index;
      return e;
    }
    case ElementKind::nvlink:
    case ElementKind::nic: {
      if (!(value > 0 && value <= 1)) return std::nullopt;
      SlowLinkEvent e;
      e.bandwidth_fraction = value;
      if (element.kind == ElementKind::nvlink) {
        e.link = EventLink::nvlink;
        e.gpu = element.index;
      } else {
        e.link = EventLink::nic;
        e.node = element.node;
        e.nic = element.nic;
      }
      return e;
    }
    case ElementKind::leaf: return std::nullopt;  // a switch is up or down
  }
  return std::nullopt;
}

std::vector<WhatIfChoice> TopologyView::whatIfsFor(const Element& element) {
  const QString slowdown_prompt = QStringLiteral("Compute takes this many times longer (\u2265 1):");
  const QString fraction_prompt = QStringLiteral("Fraction of its bandwidth left (0\u20131):");
  const QString failure_prompt = QStringLiteral("Fails at (simulated seconds from the iteration's start):");
  auto slowdown = [&](const Element& e, QString label) { return WhatIfChoice{e, WhatIf::slow, label, slowdown_prompt, 1.5, 1, 1000}; };
  auto fraction = [&](const Element& e, QString label) { return WhatIfChoice{e, WhatIf::slow, label, fraction_prompt, 0.5, 0.01, 1}; };
  auto failure = [&](const Element& e, QString label) { return WhatIfChoice{e, WhatIf::fail, label, failure_prompt, 0, 0, 1e6}; };
  const int i = element.index;
  switch (element.kind) {
    case ElementKind::gpu: {
      Element link = element;
      link.kind = ElementKind::nvlink;
      return {slowdown(element, QStringLiteral("Slow down GPU %1\u2026").arg(i)), failure(element, QStringLiteral("Fail GPU %1 at\u2026").arg(i)),
              fraction(link, QStringLiteral("Slow NVLink of GPU %1\u2026").arg(i)),
              failure(link, QStringLiteral("Fail NVLink of GPU %1 at\u2026").arg(i))};
    }
    case ElementKind::nvlink:
      return {fraction(element, QStringLiteral("Slow NVLink of GPU %1\u2026").arg(i)),
              failure(element, QStringLiteral("Fail NVLink of GPU %1 at\u2026").arg(i))};
    case ElementKind::node:
      return {slowdown(element, QStringLiteral("Slow down node %1\u2026").arg(i)), failure(element, QStringLiteral("Fail node %1 at\u2026").arg(i))};
    case ElementKind::nic: {
      const QString what = QStringLiteral("NIC %1 of node %2").arg(element.nic).arg(element.node);
      return {fraction(element, QStringLiteral("Slow %1\u2026").arg(what)), failure(element, QStringLiteral("Fail %1 at\u2026").arg(what))};
    }
    case ElementKind::leaf: return {failure(element, QStringLiteral("Fail leaf switch %1 at\u2026").arg(i))};
  }
  return {};
}

bool TopologyView::requestWhatIf(const WhatIfChoice& choice, double value) {
  const auto event = makeEvent(choice.element, choice.what, value);
  if (!event) return false;
  emit eventRequested(*event);
  return true;
}

void TopologyView::openMenu(QPoint canvas_px, QPoint global_px) {
  const auto element = elementAt(canvas_px);
  if (!element) return;
  QMenu menu(this);
  menu.addAction(describe(*element).section(QLatin1Char('\n'), 0, 0))->setEnabled(false);
  menu.addSeparator();
  const auto choices = whatIfsFor(*element);
  std::vector<QAction*> actions;
  for (const auto& choice : choices) actions.push_back(menu.addAction(choice.label));
  const QAction* chosen = menu.exec(global_px);
  const auto it = std::find(actions.begin(), actions.end(), chosen);
  if (it == actions.end()) return;
  const WhatIfChoice& choice = choices[size_t(it - actions.begin())];
  bool ok = false;
  const double value = QInputDialog::getDouble(this, QString(choice.label).remove(QChar(0x2026)), choice.prompt, choice.default_value,
                                               choice.min_value, choice.max_value, 2, &ok, Qt::WindowFlags(), 0.1);
  if (ok) requestWhatIf(choice, value);
}

void TopologyView::showToolTip(const QHelpEvent& event) const {
  if (const auto element = elementAt(event.pos())) {
    QToolTip::showText(event.globalPos(), describe(*element), canvas_, rectOf(*element));
    return;
  }
  QToolTip::hideText();
}

// ---- painting -----------------------------------------------------------------------------

void TopologyView::paintCanvas(QPainter& painter, QRect exposed_px) const {
  painter.fillRect(exposed_px, Qt::white);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.scale(zoom_, zoom_);
  const QRectF clip(exposed_px.x() / zoom_, exposed_px.y() / zoom_, exposed_px.width() / zoom_, exposed_px.height() / zoom_);
  paintContent(painter, clip.adjusted(-2, -2, 2, 2));
}

void TopologyView::renderTo(QPainter& painter, QSize size) const {
  painter.save();
  painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  const QSizeF content = layout_.content;
  if (!content.isEmpty() && !size.isEmpty()) {
    const double scale = std::min(size.width() / content.width(), size.height() / content.height());
    painter.translate((size.width() - content.width() * scale) / 2, (size.height() - content.height() * scale) / 2);
    painter.scale(scale, scale);
    painter.setRenderHint(QPainter::Antialiasing);
    paintContent(painter, QRectF(QPointF(0, 0), content));
  }
  painter.restore();
}

void TopologyView::paintContent(QPainter& painter, const QRectF& clip) const {
  if (clip.intersects(layout_.legend)) paintLegend(painter);
  if (clip.intersects(layout_.fabric)) paintFabricBand(painter);
  for (int leaf = 0; leaf < int(layout_.leaves.size()); ++leaf) {
    const auto nodes = nodesOfLeaf(leaf);
    const QRectF area = layout_.leaves[leaf].united(layout_.nodes[nodes.front()]).united(layout_.nodes[nodes.back()]);
    if (clip.intersects(area)) paintLeafLinks(painter, leaf);
  }
  for (int leaf = 0; leaf < int(layout_.leaves.size()); ++leaf)
    if (clip.intersects(layout_.leaves[leaf])) paintLeaf(painter, leaf);
  for (int n = 0; n < nodes_; ++n)
    if (clip.intersects(layout_.nodes[n])) paintNode(painter, n);
  paintMarks(painter, clip);
}

void TopologyView::paintLegend(QPainter& painter) const {
  const QRectF r = layout_.legend;
  painter.setPen(kTextColour);
  painter.setFont(pixelFont(10, true));
  painter.drawText(QRectF(r.x(), r.y(), r.width(), 12), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("link utilisation"));

  const QRectF bar(r.x(), r.y() + 15, 200, 10);
  QLinearGradient gradient(bar.topLeft(), bar.topRight());
  for (double u : {0.0, 0.5, 1.0}) gradient.setColorAt(u, palette::utilisation(u));  // the palette is linear between these
  painter.setPen(QPen(kFrameColour, 0.5));
  painter.setBrush(gradient);
  painter.drawRect(bar);
  painter.setFont(pixelFont(9));
  painter.setPen(kTextColour);
  const QRectF labels(bar.x(), bar.bottom() + 1, bar.width(), 11);
  painter.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("0%"));
  painter.drawText(labels, Qt::AlignHCenter | Qt::AlignVCenter, QStringLiteral("50%"));
  painter.drawText(labels, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("100%"));

  struct Key {
    QColor fill, outline;
    QString text;
  };
  const Key keys[] = {{kUnknownColour, kCellFrameColour, QStringLiteral("not simulated")},
                      {Qt::white, palette::slowed(), QStringLiteral("slowed")},
                      {Qt::white, palette::failed(), QStringLiteral("failed")}};
  double x = r.x();
  const double y = r.bottom() - 11;
  for (const auto& key : keys) {
    painter.setPen(QPen(key.outline, key.outline == kCellFrameColour ? 0.5 : 2));
    painter.setBrush(key.fill);
    painter.drawRect(QRectF(x + 1, y + 1, 9, 9));
    painter.setPen(kTextColour);
    painter.drawText(QRectF(x + 14, y, 80, 11), Qt::AlignLeft | Qt::AlignVCenter, key.text);
    x += 95;
  }
}

void TopologyView::paintFabricBand(QPainter& painter) const {
  const QRectF r = layout_.fabric;
  const auto utilisations = fabricUtilisations();
  QString title;
  if (!utilisations.empty()) {
    const double max_u = *std::max_element(utilisations.begin(), utilisations.end());
    const double mean_u = std::accumulate(utilisations.begin(), utilisations.end(), 0.0) / double(utilisations.size());
    title = QStringLiteral("fabric: %1 links \u00B7 max %2 \u00B7 mean %3").arg(utilisations.size()).arg(percentText(max_u), percentText(mean_u));
  } else {
    title = links_.empty() ? QStringLiteral("fabric links: not simulated yet") : QStringLiteral("fabric links: none reported");
  }
  painter.setPen(kTextColour);
  painter.setFont(pixelFont(10, true));
  painter.drawText(QRectF(r.x(), r.y(), r.width(), 12), Qt::AlignLeft | Qt::AlignVCenter, title);

  // Histogram of link counts per 5 % of utilisation; heights on a log scale so that a few busy
  // links still show next to thousands of idle ones.
  const QRectF plot(r.x(), r.y() + 15, r.width(), 28);
  std::vector<int> counts(kHistogramBins, 0);
  for (double u : utilisations) ++counts[std::min(kHistogramBins - 1, int(std::clamp(u, 0.0, 1.0) * kHistogramBins))];
  const int max_count = *std::max_element(counts.begin(), counts.end());
  const double bin_w = plot.width() / kHistogramBins;
  painter.setPen(Qt::NoPen);
  for (int b = 0; b < kHistogramBins && max_count > 0; ++b) {
    if (counts[b] == 0) continue;
    const double h = plot.height() * std::log1p(counts[b]) / std::log1p(max_count);
    painter.setBrush(palette::utilisation((b + 0.5) / kHistogramBins));
    painter.drawRect(QRectF(plot.x() + b * bin_w + 1, plot.bottom() - h, bin_w - 2, h));
  }
  painter.setPen(QPen(kFrameColour, 1));
  painter.drawLine(plot.bottomLeft(), plot.bottomRight());
  painter.setPen(kTextColour);
  painter.setFont(pixelFont(9));
  const QRectF axis(plot.x(), plot.bottom() + 1, plot.width(), 11);
  painter.drawText(axis, Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("0%"));
  painter.drawText(axis, Qt::AlignHCenter | Qt::AlignVCenter, QStringLiteral("links per 5 % (log)"));
  painter.drawText(axis, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("100%"));
}

void TopologyView::paintLeafLinks(QPainter& painter, int leaf) const {
  const QRectF leaf_rect = layout_.leaves[leaf];
  const int rail = railOfLeaf(leaf);
  auto nodes = nodesOfLeaf(leaf);
  // Lower rows first: their lines run behind the upper rows' nodes, which cover them.
  std::reverse(nodes.begin(), nodes.end());
  for (int n : nodes) {
    const QRectF node = layout_.nodes[n];
    if (rail >= 0) {
      const double x = layout_.nics[n * nicsPerNode() + rail].center().x();
      QColor colour = colourOf(nicElement(n, rail)).darker(115);
      colour.setAlpha(140);  // a rail leaf fans out to every node of its group: keep the fan in the background
      painter.setPen(QPen(colour, 0.8));
      painter.drawLine(QPointF(leaf_rect.center().x(), leaf_rect.bottom()), QPointF(x, node.top()));
    } else {
      const double x = node.center().x();
      painter.setPen(QPen(colourOf(nodeElement(n)).darker(115), 1.5));
      painter.drawLine(QPointF(std::clamp(x, leaf_rect.left(), leaf_rect.right()), leaf_rect.bottom()), QPointF(x, node.top()));
    }
  }
}

void TopologyView::paintLeaf(QPainter& painter, int leaf) const {
  const QRectF r = layout_.leaves[leaf];
  painter.setPen(QPen(kCellFrameColour, 0.8));
  painter.setBrush(colourOf(leafElement(leaf)));
  painter.drawRoundedRect(r, 2, 2);
  const int rail = railOfLeaf(leaf);
  const QFont font = pixelFont(9);
  const QString full = rail >= 0 ? QStringLiteral("leaf %1 \u00B7 NIC %2").arg(leaf).arg(rail) : QStringLiteral("leaf %1").arg(leaf);
  const QString text = QFontMetricsF(font).horizontalAdvance(full) + 4 <= r.width() ? full : QString::number(leaf);
  painter.setFont(font);
  painter.setPen(kTextColour);
  painter.drawText(r, Qt::AlignCenter, text);
}

void TopologyView::paintNode(QPainter& painter, int node) const {
  const QRectF r = layout_.nodes[node];
  painter.setPen(QPen(kFrameColour, 1));
  painter.setBrush(kNodeFill);
  painter.drawRoundedRect(r, 3, 3);
  const QRectF label(r.x() + 1, r.y() + 1, r.width() - 2, kNodePad_px + kNodeLabelH_px - 2);
  painter.setPen(Qt::NoPen);
  painter.setBrush(colourOf(nodeElement(node)));  // the node's busiest NIC
  painter.drawRoundedRect(label, 2, 2);
  painter.setPen(kTextColour);
  painter.setFont(pixelFont(10));
  painter.drawText(label.adjusted(kNodePad_px - 1, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("node %1").arg(node));

  const bool cell_labels = zoom_ >= 2;
  painter.setFont(pixelFont(7));
  for (int rank = node * gpusPerNode(); rank < (node + 1) * gpusPerNode(); ++rank) {
    painter.setPen(QPen(kCellFrameColour, 0.6));
    painter.setBrush(colourOf(gpuElement(rank)));
    painter.drawRect(layout_.gpus[rank]);
    painter.setPen(Qt::NoPen);
    painter.setBrush(colourOf(nvlinkElement(rank)));
    painter.drawRect(layout_.nvlinks[rank]);
    if (cell_labels) {
      painter.setPen(kTextColour);
      painter.drawText(layout_.gpus[rank], Qt::AlignCenter, QString::number(rank % gpusPerNode()));
    }
  }
  painter.setPen(QPen(kCellFrameColour, 0.6));
  for (int k = 0; k < nicsPerNode(); ++k) {
    painter.setBrush(colourOf(nicElement(node, k)));
    painter.drawRect(layout_.nics[node * nicsPerNode() + k]);
  }
}

void TopologyView::paintMarks(QPainter& painter, const QRectF& clip) const {
  for (const auto& [key, mark] : marks_) {
    const auto rect = logicalRectOf(mark.element);
    if (rect && clip.intersects(rect->adjusted(-20, -12, 20, 12))) paintMark(painter, *rect, mark);
  }
}

void TopologyView::paintMark(QPainter& painter, const QRectF& rect, const MarkInfo& mark) const {
  const QColor colour = mark.mark == Mark::failed ? palette::failed() : palette::slowed();
  painter.setPen(QPen(colour, 2));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(rect.adjusted(1, 1, -1, -1));  // a 2 px line just inside the element
  if (rect.width() >= 8 && rect.height() >= 8) {
    // A white line inside it, so that the mark stands out on a fill of the same red or amber.
    painter.setPen(QPen(Qt::white, 1));
    painter.drawRect(rect.adjusted(2.5, 2.5, -2.5, -2.5));
  }

  const QFont font = pixelFont(8, true);
  const QFontMetricsF metrics(font);
  const double badge_w = metrics.horizontalAdvance(mark.badge) + 4, badge_h = 10;
  const QRectF badge(rect.right() - badge_w + 3, rect.top() - badge_h + 3, badge_w, badge_h);
  painter.setPen(Qt::NoPen);
  painter.setBrush(colour);
  painter.drawRoundedRect(badge, 2, 2);
  painter.setFont(font);
  painter.setPen(mark.mark == Mark::failed ? Qt::white : Qt::black);
  painter.drawText(badge, Qt::AlignCenter, mark.badge);
}

}  // namespace dtsim::gui
