#pragma once
// The scenario form: model, training, parallelism, cluster, calibration and events of the
// ScenarioDocument. Every edit becomes an override and is checked at once with the library's
// load_scenario; the field the InputError names is outlined red and its tooltip and the error
// line below the form carry the CLI's message (file, line, field, expected, found).
#include <QMap>
#include <QWidget>

#include "scenario_document.hpp"

class QLabel;
class QListWidget;
class QComboBox;
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
  QLineEdit* lineField(const QString& path, const QString& tooltip);
  QComboBox* comboField(const QString& path, const QStringList& items, const QString& tooltip);
  QWidget* checkField(const QString& path, const QString& text);
  void fieldEdited(const QString& path, const QString& value);
  void chooseModel(int index);
  void chooseCalibration();
  void flag(const ScenarioCheck& c);
  void showSummary(const Scenario& s);
  void refreshEvents();
  QString fieldForError(const QString& error_field) const;

  ScenarioDocument& document_;
  QString topologies_dir_;
  ScenarioCheck check_;
  QMap<QString, QWidget*> fields_;  // by dotted path
  QString flagged_;
  QString last_edited_;
  QLabel* model_summary_ = nullptr;
  QLabel* layout_summary_ = nullptr;
  QLabel* error_ = nullptr;
  QListWidget* events_ = nullptr;
  bool model_from_preset_ = true;
};

}  // namespace dtsim::gui
