// The topology view: utilisation and colour of each element from a hand-made usage vector,
// hit tests, the what-if events a click builds, event marks, layout at 128 nodes, rendering.
#include <QApplication>
#include <QBuffer>
#include <QHelpEvent>
#include <QImage>
#include <QInputDialog>
#include <QMenu>
#include <QPainter>
#include <QSvgGenerator>
#include <QTest>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>

#include "palette.hpp"
#include "topology_view.hpp"

using namespace dtsim;
using namespace dtsim::gui;

namespace {

TopologySpec loadTopology(const char* file) { return load_topology(std::string(DTSIM_SOURCE_DIR "/topologies/") + file); }

LinkUsage nicLink(int node, int nic, double bandwidth_Bps, double up_bytes, double down_bytes) {
  LinkUsage link;
  link.name = "node" + std::to_string(node) + "-nic" + std::to_string(nic);
  link.role = LinkRole::nic;
  link.node = node;
  link.nic = nic;
  link.bandwidth_Bps = bandwidth_Bps;
  link.up_bytes = up_bytes;
  link.down_bytes = down_bytes;
  return link;
}

LinkUsage nvlinkLink(int gpu, double bandwidth_Bps, double up_bytes, double down_bytes) {
  LinkUsage link;
  link.name = "gpu" + std::to_string(gpu) + "-nvlink";
  link.role = LinkRole::nvlink;
  link.gpu = gpu;
  link.bandwidth_Bps = bandwidth_Bps;
  link.up_bytes = up_bytes;
  link.down_bytes = down_bytes;
  return link;
}

LinkUsage fabricLink(const std::string& name, double bandwidth_Bps, double up_bytes) {
  LinkUsage link;
  link.name = name;
  link.role = LinkRole::fabric;
  link.bandwidth_Bps = bandwidth_Bps;
  link.up_bytes = up_bytes;
  return link;
}

QImage render(const TopologyView& view) {
  QImage image(view.contentSize(), QImage::Format_ARGB32_Premultiplied);
  QPainter painter(&image);
  view.renderTo(painter, image.size());
  return image;
}

QPoint outlineProbe(const QRect& rect) { return QPoint(rect.left() + 1, rect.center().y()); }

const QColor kGrey(0xC8, 0xC8, 0xC8);

}  // namespace

class TestTopologyView : public QObject {
  Q_OBJECT

 private:
  TopologySpec fattree_ = loadTopology("dgx-h100-ndr-fattree.yaml");
  double nic_Bps_ = 0, nvlink_Bps_ = 0;

 private slots:
  void initTestCase() {
    nic_Bps_ = fattree_.node.nic_bw_Bps;
    nvlink_Bps_ = fattree_.node.nvlink_bw_Bps;
    QCOMPARE(nic_Bps_, 50e9);  // 400 Gb/s
    QCOMPARE(nvlink_Bps_, 370e9);
  }

  void canonicalElements() {
    TopologyView view;
    view.setCluster(fattree_, 2);
    QCOMPARE(view.gpuElement(9), (Element{ElementKind::gpu, 9, 1, -1}));
    QCOMPARE(view.nvlinkElement(9), (Element{ElementKind::nvlink, 9, 1, -1}));
    QCOMPARE(TopologyView::nicElement(1, 2), (Element{ElementKind::nic, 2, 1, 2}));
    QCOMPARE(view.leafCount(), 1);  // 2 nodes under one 16-node leaf
  }

  // Utilisation = busier direction / (bandwidth x iteration), by hand.
  void utilisationAndColour() {
    TopologyView view;
    view.setCluster(fattree_, 2);
    view.setUsage({nicLink(1, 2, nic_Bps_, 0.5 * nic_Bps_, 0.1 * nic_Bps_), nvlinkLink(9, nvlink_Bps_, 0.05 * nvlink_Bps_, 0.25 * nvlink_Bps_),
                   nicLink(0, 0, nic_Bps_, 0.2 * nic_Bps_, 0)},
                  1.0);
    const Element nic12 = TopologyView::nicElement(1, 2);
    QCOMPARE(view.utilisationOf(nic12), 0.5);
    QCOMPARE(view.colourOf(nic12), palette::utilisation(0.5));
    QCOMPARE(view.utilisationOf(view.nvlinkElement(9)), 0.25);
    QCOMPARE(view.utilisationOf(view.gpuElement(9)), 0.25);  // a GPU shows its NVLink
    QCOMPARE(view.colourOf(view.gpuElement(9)), palette::utilisation(0.25));
    QCOMPARE(view.utilisationOf(TopologyView::nodeElement(1)), 0.5);  // busiest NIC of node 1
    QCOMPARE(view.utilisationOf(TopologyView::nodeElement(0)), 0.2);
    QCOMPARE(view.utilisationOf(TopologyView::leafElement(0)), 0.5);  // busiest link under leaf 0
    QCOMPARE(view.utilisationOf(TopologyView::nicElement(1, 3)), -1.0);  // no usage for it
    QCOMPARE(view.colourOf(TopologyView::nicElement(1, 3)), kGrey);
    QCOMPARE(view.utilisationOf(view.gpuElement(16)), -1.0);  // not in a 2-node cluster

    view.setUsage({nicLink(1, 2, nic_Bps_, 0.5 * nic_Bps_, 0)}, 2.0);  // same bytes over 2 s
    QCOMPARE(view.utilisationOf(nic12), 0.25);
  }

  void notSimulatedIsGrey() {
    TopologyView view;
    view.setCluster(fattree_, 2);
    view.setUsage({}, 0);
    QCOMPARE(view.utilisationOf(view.gpuElement(3)), -1.0);
    QCOMPARE(view.colourOf(view.gpuElement(3)), kGrey);
    QVERIFY(view.describe(view.gpuElement(3)).contains("not simulated yet"));
    const QImage image = render(view);
    QCOMPARE(image.pixelColor(view.rectOf(view.gpuElement(3)).center()), kGrey);
  }

  void tooltip() {
    TopologyView view;
    view.setCluster(fattree_, 2);
    view.setUsage({nicLink(1, 2, nic_Bps_, 0.5 * nic_Bps_, 0.1 * nic_Bps_)}, 1.0);
    const QString text = view.describe(TopologyView::nicElement(1, 2));
    QVERIFY2(text.contains(QStringLiteral("node 1 \u00B7 NIC 2")), qPrintable(text));
    QVERIFY2(text.contains("utilisation 50.0 %"), qPrintable(text));
    QVERIFY2(text.contains("bandwidth 50.0 GB/s"), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("up 25.00 GB \u00B7 down 5.00 GB")), qPrintable(text));  // 0.5 and 0.1 x 50 GB
    QVERIFY(view.describe(view.nvlinkElement(9)).startsWith("GPU 9 NVLink"));
    QVERIFY(view.describe(TopologyView::nodeElement(1)).contains("bandwidth 400.0 GB/s"));  // 8 x 50 GB/s
  }

  void hitTests() {
    TopologyView view;
    view.setCluster(fattree_, 2);
    for (double zoom : {1.0, 2.0, 0.5}) {
      view.setZoom(zoom);
      const Element gpu9{ElementKind::gpu, 9, 1, -1};
      QCOMPARE(view.elementAt(view.rectOf(gpu9).center()), std::optional(gpu9));
      const Element nvlink9 = view.nvlinkElement(9);
      QCOMPARE(view.elementAt(view.rectOf(nvlink9).center()), std::optional(nvlink9));
      const Element nic = TopologyView::nicElement(1, 2);
      QCOMPARE(view.elementAt(view.rectOf(nic).center()), std::optional(nic));
      const Element node1 = TopologyView::nodeElement(1);
      QCOMPARE(view.elementAt(view.rectOf(node1).topLeft() + QPoint(3, 3)), std::optional(node1));  // its label
      const Element leaf0 = TopologyView::leafElement(0);
      QCOMPARE(view.elementAt(view.rectOf(leaf0).center()), std::optional(leaf0));
      QCOMPARE(view.elementAt(QPoint(1, 1)), std::optional<Element>());  // margin
    }
    view.setZoom(2.0);
    view.setZoom(2.0);
    QCOMPARE(view.rectOf(view.gpuElement(0)).size(), view.zoom() * QSizeF(14, 12));  // cells are 14 x 12 at zoom 1
    QCOMPARE(view.rectOf(view.gpuElement(16)), QRect());  // no such GPU
  }

  void layoutOfNodeAndLeaf() {
    TopologyView view;
    view.setCluster(fattree_, 2);
    const QRect node0 = view.rectOf(TopologyView::nodeElement(0)), node1 = view.rectOf(TopologyView::nodeElement(1));
    const QRect leaf = view.rectOf(TopologyView::leafElement(0));
    QVERIFY(leaf.bottom() < node0.top());  // the fabric above the nodes
    QVERIFY(leaf.left() <= node0.left() && leaf.right() >= node1.right());  // over the nodes it serves
    for (int rank = 8; rank < 16; ++rank) QVERIFY(node1.contains(view.rectOf(view.gpuElement(rank))));
    for (int nic = 0; nic < 8; ++nic) QVERIFY(node1.contains(view.rectOf(TopologyView::nicElement(1, nic))));
    QVERIFY(view.rectOf(view.gpuElement(8)).bottom() < view.rectOf(TopologyView::nicElement(1, 0)).top());
  }

  void makeEvents() {
    const auto gpu_slow = TopologyView::makeEvent({ElementKind::gpu, 9, 1, -1}, WhatIf::slow, 1.5);
    QVERIFY(gpu_slow && std::holds_alternative<StragglerEvent>(*gpu_slow));
    const auto& straggler = std::get<StragglerEvent>(*gpu_slow);
    QCOMPARE(straggler.gpu, 9);
    QCOMPARE(straggler.slowdown, 1.5);
    QCOMPARE(straggler.node, -1);
    QCOMPARE(straggler.end_s, kForever_s);

    const auto node_fail = TopologyView::makeEvent(TopologyView::nodeElement(1), WhatIf::fail, 2.0);
    QVERIFY(node_fail && std::holds_alternative<ResourceFailureEvent>(*node_fail));
    QCOMPARE(std::get<ResourceFailureEvent>(*node_fail).resource, FailedResource::node);
    QCOMPARE(std::get<ResourceFailureEvent>(*node_fail).node, 1);
    QCOMPARE(std::get<ResourceFailureEvent>(*node_fail).at_s, 2.0);

    const auto node_slow = TopologyView::makeEvent(TopologyView::nodeElement(1), WhatIf::slow, 1.2);
    QVERIFY(node_slow && std::holds_alternative<StragglerEvent>(*node_slow));
    QCOMPARE(std::get<StragglerEvent>(*node_slow).node, 1);

    const auto nic_slow = TopologyView::makeEvent(TopologyView::nicElement(1, 2), WhatIf::slow, 0.25);
    QVERIFY(nic_slow && std::holds_alternative<SlowLinkEvent>(*nic_slow));
    const auto& slow_nic = std::get<SlowLinkEvent>(*nic_slow);
    QCOMPARE(slow_nic.link, EventLink::nic);
    QCOMPARE(slow_nic.node, 1);
    QCOMPARE(slow_nic.nic, 2);
    QCOMPARE(slow_nic.bandwidth_fraction, 0.25);

    const auto nvlink_slow = TopologyView::makeEvent({ElementKind::nvlink, 7, 0, -1}, WhatIf::slow, 0.5);
    QVERIFY(nvlink_slow && std::holds_alternative<SlowLinkEvent>(*nvlink_slow));
    QCOMPARE(std::get<SlowLinkEvent>(*nvlink_slow).link, EventLink::nvlink);
    QCOMPARE(std::get<SlowLinkEvent>(*nvlink_slow).gpu, 7);

    const auto nvlink_fail = TopologyView::makeEvent({ElementKind::nvlink, 7, 0, -1}, WhatIf::fail, 0);
    QCOMPARE(std::get<ResourceFailureEvent>(*nvlink_fail).resource, FailedResource::nvlink);
    QCOMPARE(std::get<ResourceFailureEvent>(*nvlink_fail).gpu, 7);
    const auto nic_fail = TopologyView::makeEvent(TopologyView::nicElement(1, 2), WhatIf::fail, 0.5);
    QCOMPARE(std::get<ResourceFailureEvent>(*nic_fail).resource, FailedResource::nic);
    QCOMPARE(std::get<ResourceFailureEvent>(*nic_fail).nic, 2);
    const auto leaf_fail = TopologyView::makeEvent(TopologyView::leafElement(0), WhatIf::fail, 3);
    QCOMPARE(std::get<ResourceFailureEvent>(*leaf_fail).resource, FailedResource::leaf_switch);
    QCOMPARE(std::get<ResourceFailureEvent>(*leaf_fail).leaf, 0);

    QVERIFY(!TopologyView::makeEvent(TopologyView::leafElement(0), WhatIf::slow, 1.5));  // switches only fail
    // The scenario loader's ranges: slowdown >= 1, bandwidth fraction in (0, 1], at_s >= 0.
    QVERIFY(!TopologyView::makeEvent({ElementKind::gpu, 9, 1, -1}, WhatIf::slow, 0.5));
    QVERIFY(!TopologyView::makeEvent(TopologyView::nicElement(1, 2), WhatIf::slow, 1.5));
    QVERIFY(!TopologyView::makeEvent(TopologyView::nicElement(1, 2), WhatIf::slow, 0));
    QVERIFY(!TopologyView::makeEvent(TopologyView::nodeElement(1), WhatIf::fail, -1));
  }

  void menuChoicesAndSignal() {
    TopologyView view;
    view.setCluster(fattree_, 2);
    const auto gpu = TopologyView::whatIfsFor(view.gpuElement(9));
    QCOMPARE(gpu.size(), size_t(4));  // GPU slow, fail; its NVLink slow, fail
    QCOMPARE(gpu[0].label, QStringLiteral("Slow down GPU 9\u2026"));
    QCOMPARE(gpu[0].default_value, 1.5);
    QCOMPARE(gpu[1].label, QStringLiteral("Fail GPU 9 at\u2026"));
    QCOMPARE(gpu[1].default_value, 0.0);
    QCOMPARE(gpu[2].element, view.nvlinkElement(9));
    QCOMPARE(gpu[2].default_value, 0.5);
    QCOMPARE(TopologyView::whatIfsFor(TopologyView::nicElement(1, 2)).size(), size_t(2));
    const auto leaf = TopologyView::whatIfsFor(TopologyView::leafElement(0));
    QCOMPARE(leaf.size(), size_t(1));
    QCOMPARE(leaf[0].what, WhatIf::fail);

    std::vector<Event> emitted;
    connect(&view, &TopologyView::eventRequested, [&](const Event& e) { emitted.push_back(e); });
    QVERIFY(view.requestWhatIf(gpu[0], 2.0));
    QVERIFY(!view.requestWhatIf(leaf[0], -1));  // invalid: nothing emitted
    QCOMPARE(emitted.size(), size_t(1));
    QCOMPARE(std::get<StragglerEvent>(emitted[0]).gpu, 9);
    QCOMPARE(std::get<StragglerEvent>(emitted[0]).slowdown, 2.0);
  }

  // The whole click path: menu for GPU 9, first entry, the dialog's default 1.5 changed to 2.5.
  void clickOpensMenuAndEmitsEvent() {
    TopologyView view;
    view.setCluster(fattree_, 2);
    view.resize(800, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    std::vector<Event> emitted;
    connect(&view, &TopologyView::eventRequested, [&](const Event& e) { emitted.push_back(e); });

    QStringList menu_entries;
    double dialog_default = 0;
    QTimer driver;
    driver.setInterval(10);
    connect(&driver, &QTimer::timeout, [&] {
      if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())) {
        for (const QAction* action : menu->actions())
          if (!action->isSeparator()) menu_entries << action->text();
        QTest::keyClick(menu, Qt::Key_Down);  // skips the disabled title
        QTest::keyClick(menu, Qt::Key_Return);
      } else if (auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget())) {
        dialog_default = dialog->doubleValue();
        dialog->setDoubleValue(2.5);
        dialog->accept();
        driver.stop();
      }
    });
    driver.start();
    QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, view.rectOf(view.gpuElement(9)).center());
    driver.stop();

    QCOMPARE(menu_entries.size(), 5);
    QVERIFY(menu_entries[0].startsWith("GPU 9 (node 1"));
    QCOMPARE(menu_entries[1], QStringLiteral("Slow down GPU 9\u2026"));
    QCOMPARE(dialog_default, 1.5);
    QCOMPARE(emitted.size(), size_t(1));
    QCOMPARE(std::get<StragglerEvent>(emitted[0]).gpu, 9);
    QCOMPARE(std::get<StragglerEvent>(emitted[0]).slowdown, 2.5);
  }

  void hoverShowsTooltip() {
    TopologyView view;
    view.setCluster(fattree_, 2);
    view.setUsage({nicLink(1, 2, nic_Bps_, 0.5 * nic_Bps_, 0)}, 1.0);
    view.resize(800, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QPoint at = view.rectOf(TopologyView::nicElement(1, 2)).center();
    QHelpEvent help(QEvent::ToolTip, at, view.canvas()->mapToGlobal(at));
    QApplication::sendEvent(view.canvas(), &help);
    QCOMPARE(QToolTip::text(), view.describe(TopologyView::nicElement(1, 2)));
    QToolTip::hideText();
  }

  void eventMarks() {
    TopologyView view;
    view.setCluster(fattree_, 2);
    StragglerEvent straggler;
    straggler.gpu = 3;
    straggler.slowdown = 1.5;
    ResourceFailureEvent node_failure;
    node_failure.resource = FailedResource::node;
    node_failure.node = 1;
    node_failure.at_s = 2;
    SlowLinkEvent slow_nic;
    slow_nic.node = 0;
    slow_nic.nic = 5;
    slow_nic.bandwidth_fraction = 0.25;
    ResourceFailureEvent nic_failure;
    nic_failure.resource = FailedResource::nic;
    nic_failure.node = 0;
    nic_failure.nic = 5;
    view.setEvents({straggler, node_failure, nic_failure, slow_nic});

    QCOMPARE(view.markOf(view.gpuElement(3)), Mark::slowed);
    QCOMPARE(view.markOf(view.gpuElement(4)), Mark::none);
    QCOMPARE(view.markOf(TopologyView::nodeElement(1)), Mark::failed);
    QCOMPARE(view.markOf(TopologyView::nicElement(0, 5)), Mark::failed);  // a failure outranks a later slowdown
    QVERIFY(!view.isMarked(TopologyView::nodeElement(0)));
    QVERIFY(view.describe(view.gpuElement(3)).contains(QStringLiteral("1.5\u00D7 slower")));
    QVERIFY(view.describe(TopologyView::nodeElement(1)).contains("fails at 2 s"));

    const QImage image = render(view);
    QCOMPARE(image.pixelColor(outlineProbe(view.rectOf(view.gpuElement(3)))), palette::slowed());
    QVERIFY(image.pixelColor(outlineProbe(view.rectOf(view.gpuElement(4)))) != palette::slowed());
    QCOMPARE(image.pixelColor(outlineProbe(view.rectOf(TopologyView::nodeElement(1)))), palette::failed());
    QVERIFY(image.pixelColor(outlineProbe(view.rectOf(TopologyView::nodeElement(0)))) != palette::failed());

    view.setEvents({});
    QCOMPARE(view.markOf(view.gpuElement(3)), Mark::none);
  }

  void manyNodesLayOutWithoutOverlap() {
    TopologyView view;
    view.setCluster(fattree_, 128);
    QCOMPARE(view.leafCount(), 8);  // 16 nodes per leaf
    std::vector<QRect> nodes;
    for (int n = 0; n < 128; ++n) nodes.push_back(view.rectOf(TopologyView::nodeElement(n)));
    for (int a = 0; a < 128; ++a)
      for (int b = a + 1; b < 128; ++b) QVERIFY2(!nodes[a].intersects(nodes[b]), qPrintable(QString("nodes %1 and %2").arg(a).arg(b)));
    for (int leaf = 0; leaf < 8; ++leaf) {
      const QRect rect = view.rectOf(TopologyView::leafElement(leaf));
      for (int n = leaf * 16; n < (leaf + 1) * 16; ++n) QVERIFY(rect.bottom() < nodes[n].top());
      QCOMPARE(view.elementAt(rect.center()), std::optional(TopologyView::leafElement(leaf)));
    }
    QVERIFY(nodes[127].right() < view.contentSize().width() && nodes[127].bottom() < view.contentSize().height());
    QVERIFY(view.contentSize().width() <= 1400);  // wraps into rows rather than one long line
    QCOMPARE(view.elementAt(view.rectOf(view.gpuElement(1023)).center()), std::optional(view.gpuElement(1023)));

    const QImage image = render(view);
    QVERIFY(!image.isNull());
    QCOMPARE(image.pixelColor(view.rectOf(view.gpuElement(1023)).center()), kGrey);  // drawn, not simulated
  }

  void railLeaves() {
    TopologyView view;
    view.setCluster(loadTopology("dgx-h100-ndr-rail.yaml"), 64);
    QCOMPARE(view.leafCount(), 16);  // 2 groups of 32 nodes x 8 rails
    // leaf 9 = group 1, rail 1: NIC 1 of nodes 32..63.
    view.setUsage({nicLink(40, 1, nic_Bps_, 0, 0.75 * nic_Bps_), nicLink(40, 2, nic_Bps_, 0.9 * nic_Bps_, 0)}, 1.0);
    QCOMPARE(view.utilisationOf(TopologyView::leafElement(9)), 0.75);
    QCOMPARE(view.utilisationOf(TopologyView::leafElement(10)), 0.9);
    QCOMPARE(view.utilisationOf(TopologyView::leafElement(1)), -1.0);  // group 0
    QVERIFY(view.describe(TopologyView::leafElement(9)).contains(QStringLiteral("NIC 1 of nodes 32\u201363")));
    QVERIFY(view.rectOf(TopologyView::leafElement(9)).bottom() < view.rectOf(TopologyView::nodeElement(32)).top());
  }

  void leaflessFabrics() {
    TopologyView view;
    view.setCluster(loadTopology("dgx-h100-torus-3d.yaml"), 64);
    QCOMPARE(view.leafCount(), 0);
    QCOMPARE(view.rectOf(TopologyView::leafElement(0)), QRect());
    view.setCluster(loadTopology("dgx-h100-dragonfly.yaml"), 32);
    QCOMPARE(view.leafCount(), 0);
    QVERIFY(!view.rectOf(TopologyView::nodeElement(31)).isEmpty());
  }

  void ctrlWheelZooms() {
    TopologyView view;
    view.setCluster(fattree_, 2);
    view.resize(600, 400);
    const QSize canvas_before = view.canvas()->size();
    QCOMPARE(canvas_before, view.contentSize());
    QWheelEvent wheel(QPointF(50, 50), view.canvas()->mapToGlobal(QPointF(50, 50)), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.canvas(), &wheel);
    QCOMPARE(view.zoom(), 1.25);  // one notch
    QCOMPARE(view.canvas()->width(), int(std::ceil(view.contentSize().width() * 1.25)));
  }

  void fabricBandAndSvgExport() {
    TopologyView view;
    view.setCluster(fattree_, 2);
    view.setUsage({fabricLink("leaf0-spine0", 50e9, 40e9), fabricLink("leaf0-spine1", 50e9, 10e9)}, 1.0);  // 80 % and 20 %
    QBuffer buffer;
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(view.contentSize());
    svg.setViewBox(QRect(QPoint(0, 0), view.contentSize()));
    {
      QPainter painter(&svg);
      view.renderTo(painter, view.contentSize());
    }
    const QString text = QString::fromUtf8(buffer.data());
    QVERIFY(text.contains("<svg"));
    QVERIFY2(text.contains(QStringLiteral("max 80.0 % \u00B7 mean 50.0 %")), "fabric band summary");
    QVERIFY(text.contains("node 1"));
  }
};

QTEST_MAIN(TestTopologyView)
#include "test_topology_view.moc"
