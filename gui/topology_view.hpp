#pragma once
// The cluster as a picture: a grid of nodes (GPU cells coloured by their NVLink's utilisation,
// NIC cells by their NIC link's), the leaf switches above the nodes they serve, a band summing up
// the fabric's internal links, and marks for the what-if events of the scenario. A click on an
// element offers to slow it down or fail it and emits the dtsim::Event that says so. The view
// draws what it is handed (topology, link usage, events); it computes no model numbers.
#include <QColor>
#include <QRect>
#include <QRectF>
#include <QString>
#include <QWidget>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "link_usage.hpp"
#include "scenario.hpp"
#include "topology_spec.hpp"

class QHelpEvent;
class QPainter;
class QScrollArea;

namespace dtsim::gui {

enum class ElementKind { gpu, nvlink, node, nic, leaf };

// gpu, nvlink: index = global rank (node * gpus per node + local), node = its node, nic = -1.
// node: index = node = the node. nic: index = nic = NIC in the node, node = its node.
// leaf: index = leaf switch (rail_optimized: group * nics + rail), node = nic = -1.
struct Element {
  ElementKind kind = ElementKind::node;
  int index = 0;
  int node = -1;
  int nic = -1;
  friend bool operator==(const Element&, const Element&) = default;
};

enum class WhatIf { slow, fail };
enum class Mark { none, slowed, failed };

// One entry of the menu a click opens: what it does, and what to ask for its value
// (a slowdown factor, a bandwidth fraction or a failure time, in the unit `prompt` names).
struct WhatIfChoice {
  Element element;
  WhatIf what = WhatIf::slow;
  QString label;   // "Slow down GPU 9…"
  QString prompt;  // question of the input dialog
  double default_value = 0, min_value = 0, max_value = 0;
};

class TopologyCanvas;

class TopologyView : public QWidget {
  Q_OBJECT

 public:
  explicit TopologyView(QWidget* parent = nullptr);
  ~TopologyView() override;

  void setCluster(const dtsim::TopologySpec& topo, int nodes);
  // Empty `links` = not simulated yet: every link is drawn neutral grey.
  void setUsage(const std::vector<dtsim::LinkUsage>& links, double iteration_s);
  void setEvents(const std::vector<dtsim::Event>& events);

  // The canonical element of each kind (as elementAt returns it).
  Element gpuElement(int rank) const;
  Element nvlinkElement(int rank) const;
  static Element nodeElement(int node);
  static Element nicElement(int node, int nic);
  static Element leafElement(int leaf);
  int leafCount() const;

  // Positions are canvas pixels at the current zoom (the scrolled widget, canvas()).
  std::optional<Element> elementAt(QPoint canvas_px) const;
  QRect rectOf(const Element& element) const;  // empty for an element the cluster lacks

  // Busier direction / (bandwidth x iteration), 0..1; -1 when unknown. A node or leaf shows its
  // busiest NIC link; a GPU its NVLink.
  double utilisationOf(const Element& element) const;
  QColor colourOf(const Element& element) const;  // fill colour: grey when unknown
  Mark markOf(const Element& element) const;
  bool isMarked(const Element& element) const { return markOf(element) != Mark::none; }
  QString describe(const Element& element) const;  // the hover tooltip

  // value: slowdown factor (>= 1), bandwidth fraction (0, 1] or failure time at_s (>= 0);
  // nullopt when the element cannot do that (a leaf switch only fails) or value is out of range.
  static std::optional<dtsim::Event> makeEvent(const Element& element, WhatIf what, double value);
  static std::vector<WhatIfChoice> whatIfsFor(const Element& element);
  // Builds the choice's event with `value` and emits eventRequested; false when invalid.
  bool requestWhatIf(const WhatIfChoice& choice, double value);

  double zoom() const { return zoom_; }
  void setZoom(double zoom);
  QSize contentSize() const;  // at zoom 1, what renderTo scales into its size
  // Draws the whole view, scaled to fit `size` (keeping its aspect), e.g. into a QImage or a
  // QSvgGenerator.
  void renderTo(QPainter& painter, QSize size) const;
  QWidget* canvas() const;
  QSize sizeHint() const override;

 signals:
  void eventRequested(const dtsim::Event& event);

 private:
  friend class TopologyCanvas;

  struct Layout {
    QSizeF content;
    QRectF legend, fabric;
    std::vector<QRectF> nodes, gpus, nvlinks, nics, leaves;  // zoom 1; nics[node * nics + nic]
  };
  struct Traffic {
    double utilisation = -1;
    double bandwidth_Bps = 0, up_bytes = 0, down_bytes = 0;
  };
  struct MarkInfo {
    Mark mark = Mark::none;
    QString badge;   // "×1.5", "50%", "✕"
    QString detail;  // one tooltip line
    Element element;
  };
  using ElementKey = std::tuple<int, int, int>;
  static ElementKey keyOf(const Element& element);

  void rebuild();
  void indexUsage();
  void buildLayout();
  void updateCanvasSize();
  bool hasLeaves() const;
  int gpusPerNode() const { return topo_.node.gpus; }
  int nicsPerNode() const { return topo_.node.nics; }
  bool contains(const Element& element) const;
  std::vector<int> nodesOfLeaf(int leaf) const;
  int railOfLeaf(int leaf) const;  // -1 unless rail_optimized
  std::optional<QRectF> logicalRectOf(const Element& element) const;

  double linkUtilisation(int link) const;
  Traffic linkTraffic(int link, double nominal_bw_Bps) const;
  Traffic nicTraffic(int node, int nic) const;
  Traffic trafficOf(const Element& element) const;
  std::vector<double> fabricUtilisations() const;

  void paintCanvas(QPainter& painter, QRect exposed_px) const;
  void paintContent(QPainter& painter, const QRectF& clip) const;
  void paintLegend(QPainter& painter) const;
  void paintFabricBand(QPainter& painter) const;
  void paintLeafLinks(QPainter& painter, int leaf) const;
  void paintLeaf(QPainter& painter, int leaf) const;
  void paintNode(QPainter& painter, int node) const;
  void paintMarks(QPainter& painter, const QRectF& clip) const;
  void paintMark(QPainter& painter, const QRectF& rect, const MarkInfo& mark) const;

  void showToolTip(const QHelpEvent& event) const;
  void openMenu(QPoint canvas_px, QPoint global_px);
  void zoomAround(QPoint canvas_px, double factor);

  dtsim::TopologySpec topo_;
  int nodes_ = 0;
  std::vector<dtsim::LinkUsage> links_;
  double iteration_s_ = 0;
  std::vector<int> nvlink_link_;  // by rank: index into links_, -1 if none
  std::vector<int> nic_link_;     // by node * nics + nic
  std::vector<int> fabric_links_;
  std::vector<dtsim::Event> events_;
  std::map<ElementKey, MarkInfo> marks_;
  Layout layout_;
  double zoom_ = 1.0;
  QScrollArea* scroll_ = nullptr;
  TopologyCanvas* canvas_ = nullptr;
};

}  // namespace dtsim::gui
