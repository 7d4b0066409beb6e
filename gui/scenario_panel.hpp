#pragma once
// The scenario form: model, training, parallelism, cluster, calibration and events of the
// ScenarioDocument. Every edit becomes an override and is checked at once with the library's
// load_scenario; the field the InputError names is outlined red and its tooltip and the error
// line below the form carry the CLI's message (file, line, field, expected, found).
#include <QList>
#include <QMap>
#include <QPair>
#include <QWidget>

#include "scenario_document.hpp"

class QLabel;
class QListWidget;
class QComboBox;
class QFormLayout;
class QLineEdit;

namespace dtsim::gui {

class ScenarioPanel : public QWidget {
  Q_OBJECT
 public:
  ScenarioPanel(ScenarioDocument& document, const QString& topologies_dir, QWidget* parent = nullptr);

  void reload();   // fills every field from the document's file (after open or save)
  void recheck();  // checks the document, flags the field in error, emits checked()
  const ScenarioCheck& lastCheck() const { return check_; }

  // For tests and scripts: the widget of a dotted field path, and editing it as a user would
  // (typing into a line edit, choosing a combo item by its text, ticking a box with "true").
  QWidget* fieldWidget(const QString& path) const;
  bool editField(const QString& path, const QString& text);
  // Several fields at once (a layout chosen in the Plan tab), as YAML values; one check after.
  void setFields(const QList<QPair<QString, QString>>& values);
  QString errorText() const;
  QString fieldError(const QString& path) const;  // "" unless that field is flagged

 public slots:
  void addEvent(const dtsim::Event& event);

 signals:
  void checked();  // after every check, valid or not

 private:
  QWidget* buildModel();
  QWidget* buildTraining();
  QWidget* buildParallelism();
  QWidget* buildCluster();
  QWidget* buildCalibrationAndEvents();
  // scenario_panel_data_parallel.cpp: the rows of layer-graph models (zoo model, data-parallel
  // strategy, measured reference, input pipeline).
  void addLayerModelRows(QFormLayout* model_form);
  QWidget* buildDataParallel();
  QWidget* buildInputPipeline();
  void reloadLayerModel(const Scenario& s);
  void reloadTransformer(const Scenario& s);
  // The optional section (reference, input_pipeline) of `edited_path` goes once all its form
  // fields are empty.
  void dropEmptySection(const QString& edited_path);
  // A field shown as `text` without it counting as an edit (combo boxes: the item whose data,
  // else whose text, it is).
  static void showValue(QWidget* w, const QString& text);
  // Shows the rows of the scenario's model family (transformer or layer graph) and hides the others.
  void showFamily(bool layer_model);
  void transformerOnly(QFormLayout* form, QWidget* field);
  void transformerRow(QFormLayout* form, const QString& label, QWidget* field);  // added and transformer-only
  void layerModelOnly(QFormLayout* form, QWidget* field);
  void layerModelRow(QFormLayout* form, const QString& label, QWidget* field);  // added and layer-model-only
  // `placeholder`: what an empty field means (the loader's default), shown greyed.
  QLineEdit* lineField(const QString& path, const QString& tooltip, const QString& placeholder = {});
  QComboBox* comboField(const QString& path, const QStringList& items, const QString& tooltip);
  // A choice the loader defaults when absent: its first item, "default", writes null.
  QComboBox* optionalComboField(const QString& path, const QStringList& items, const QString& tooltip);
  QWidget* checkField(const QString& path, const QString& text);
  void fieldEdited(const QString& path, const QString& value);
  // A GPU whose NVLink generation the current topology's nodes do not have takes the stock
  // topology for it (default_topology_for), said in the form's message line.
  void followGpuWithTopology(const QString& gpu);
  // Topologies whose nodes hold another GPU generation than `gpu` are greyed out in the list.
  void offerTopologiesFor(const std::string& gpu);
  void chooseModel(int index);
  void chooseZooModel(int index);
  void chooseCalibration();
  void flag(const ScenarioCheck& c);
  void showSummary(const Scenario& s);
  void refreshEvents();
  QString fieldForError(const QString& error_field) const;

  ScenarioDocument& document_;
  QString topologies_dir_;
  QString switched_topology_;  // the message of followGpuWithTopology, shown after the recheck
  ScenarioCheck check_;
  QMap<QString, QWidget*> fields_;  // by dotted path
  QString flagged_;
  QString last_edited_;
  QLabel* model_summary_ = nullptr;
  QLabel* layout_summary_ = nullptr;
  QLabel* error_ = nullptr;
  QListWidget* events_ = nullptr;
  bool model_from_preset_ = true;
  // Rows (form, field) of one model family; a null form: a widget of a row shared by both.
  QList<QPair<QFormLayout*, QWidget*>> transformer_rows_, layer_model_rows_;
  QList<QWidget*> layer_model_boxes_;
  QFormLayout* model_form_ = nullptr;  // whole group boxes of layer-graph models
};

}  // namespace dtsim::gui
