// The scenario form's rows for layer-graph models (docs/data-parallel.md): the zoo model,
// how the data-parallel replicas synchronise, the measured reference and the input pipeline.
// Optional fields start from the scenario's values; emptying one (or choosing "default") writes
// YAML's null, so the loader's default applies again.
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLineEdit>

#include "enum_names.hpp"
#include "model_zoo.hpp"
#include "qt_text.hpp"
#include "scenario_panel.hpp"
#include "wheel_guard.hpp"

namespace dtsim::gui {

namespace {

const QString kDefaultItem = "default";
const QString kLayersFileItem = "layers file: ";

QString number(double v) { return QString::number(v, 'g', 10); }

}  // namespace

QComboBox* ScenarioPanel::optionalComboField(const QString& path, const QStringList& items, const QString& tooltip) {
  QComboBox* combo = comboField(path, items, tooltip);
  combo->insertItem(0, kDefaultItem, QString());  // writes null: the loader's default
  return combo;
}

void ScenarioPanel::transformerOnly(QFormLayout* form, QWidget* field) { transformer_rows_.append({form, field}); }

void ScenarioPanel::layerModelOnly(QFormLayout* form, QWidget* field) { layer_model_rows_.append({form, field}); }

void ScenarioPanel::layerModelRow(QFormLayout* form, const QString& label, QWidget* field) {
  form->addRow(label, field);
  layerModelOnly(form, field);
}

void ScenarioPanel::showFamily(bool layer_model) {
  auto show = [](const QList<QPair<QFormLayout*, QWidget*>>& rows, bool on) {
    for (const auto& [form, field] : rows) {
      if (form) form->setRowVisible(field, on);
      else field->setVisible(on);
    }
  };
  show(transformer_rows_, !layer_model);
  show(layer_model_rows_, layer_model);
  for (QWidget* box : layer_model_boxes_) box->setVisible(layer_model);
}

void ScenarioPanel::addLayerModelRows(QFormLayout* form) {
  auto* zoo = new QComboBox;
  ignore_wheel_unless_focused(zoo);
  zoo->setObjectName("model.zoo");
  for (const std::string& name : zoo_model_names()) zoo->addItem(q(name), q(name));
  zoo->setToolTip("a built-in layer graph (model.zoo): torchvision's CNNs, ViT, BERT, DLRM");
  connect(zoo, &QComboBox::activated, this, &ScenarioPanel::chooseZooModel);
  fields_["model.zoo"] = zoo;
  layerModelRow(form, "model", zoo);
  QLineEdit* sequence =
      lineField("model.sequence_length", "BERT: tokens per sequence (128 in phase 1, 512 in phase 2)");
  layerModelRow(form, "sequence length", sequence);
  model_form_ = form;
  QComboBox* optimizer =
      optionalComboField("model.optimizer", q(names_of(kLayerModelOptimizers)),
                         "default: sgd_momentum for image models, adam for sequence models, sgd for DLRM's records "
                         "(optimizer state per parameter)");
  layerModelRow(form, "optimizer", optimizer);
  QLineEdit* decay = lineField("model.weight_decay", "SGD's weight_decay: above 0, one more pass over the gradients",
                               "1e-4 for image models, 0 for DLRM");
  layerModelRow(form, "weight decay", decay);
}

QWidget* ScenarioPanel::buildDataParallel() {
  auto* box = new QGroupBox("Data parallel (layer-graph models)");
  auto* form = new QFormLayout(box);
  form->addRow("strategy",
               optionalComboField("data_parallel.strategy", q(names_of(kDataParallelStrategies)),
                                  "allreduce: DDP or Horovod; parameter_server: workers push to and pull from "
                                  "servers; hierarchical: all-reduce in the node, its first GPU talks to the servers"));
  form->addRow("library",
               optionalComboField("data_parallel.library", q(names_of(kAllreduceLibraries)),
                                  "allreduce: nccl (DDP buckets), horovod (tensor fusion) or mpi (the fusion "
                                  "all-reduced on the CPUs)"));
  form->addRow("compression", optionalComboField("data_parallel.compression", q(names_of(kGradientCompressions)),
                                                 "how each bucket's gradients travel"));
  form->addRow("bucket MiB", lineField("data_parallel.bucket_cap_mb", "bucket (DDP) or fusion buffer (Horovod), MiB",
                                       "25 (DDP), 64 (Horovod)"));
  form->addRow("servers", lineField("data_parallel.servers", "parameter servers", "one per node"));
  form->addRow("placement", optionalComboField("data_parallel.placement", q(names_of(kServerPlacements)),
                                               "colocated on the workers' nodes, or dedicated CPU nodes"));
  form->addRow("sharding", optionalComboField("data_parallel.sharding", q(names_of(kTensorShardings)),
                                              "how tensors are spread over the servers"));
  form->addRow("update mode", optionalComboField("data_parallel.mode", q(names_of(kUpdateModes)),
                                                 "sync, async, or ssp (bounded staleness)"));
  form->addRow("staleness bound", lineField("data_parallel.staleness_bound",
                                            "ssp: iterations a worker may run ahead of the slowest"));
  form->addRow("backup workers", lineField("data_parallel.backup_workers",
                                           "sync: each update uses the first workers - backup_workers gradients"));
  form->addRow("reference GPUs",
               lineField("reference.gpus", "GPUs the reference was measured on (1, or one node)", "1"));
  form->addRow("reference samples/s",
               lineField("reference.samples_per_s", "measured throughput of those GPUs together, samples per second",
                         "none: compute from the device model"));
  layer_model_boxes_.append(box);
  return box;
}

QWidget* ScenarioPanel::buildInputPipeline() {
  auto* box = new QGroupBox("Input pipeline (layer-graph models; empty: data always ready)");
  auto* form = new QFormLayout(box);
  form->addRow("bytes per sample", lineField("input_pipeline.sample_bytes", "stored bytes of one sample"));
  form->addRow("storage", optionalComboField("input_pipeline.storage", q(names_of(kInputStorages)),
                                             "local: each node's own disks; shared: one file system for all"));
  form->addRow("storage GB/s", lineField("input_pipeline.storage_GBps", "read bandwidth (per node when local)"));
  form->addRow("CPU cores", lineField("input_pipeline.cpu_cores", "loader cores per node"));
  form->addRow("samples/s per core", lineField("input_pipeline.samples_per_s_per_core", "decode and augment rate"));
  form->addRow("prefetch batches",
               lineField("input_pipeline.prefetch_batches", "batches loaded ahead (0: none)", "2"));
  form->addRow("cache hit rate",
               lineField("input_pipeline.cache_hit_rate", "share of samples read from the page cache", "0"));
  layer_model_boxes_.append(box);
  return box;
}

void ScenarioPanel::dropEmptySection(const QString& edited_path) {
  const QString section = edited_path.section('.', 0, 0);
  if (section != "reference" && section != "input_pipeline") return;
  for (auto it = fields_.begin(); it != fields_.end(); ++it) {
    if (!it.key().startsWith(section + ".")) continue;
    if (auto* e = qobject_cast<QLineEdit*>(it.value()); e && !e->text().isEmpty()) return;
    if (auto* c = qobject_cast<QComboBox*>(it.value()); c && !c->currentData().toString().isEmpty()) return;
  }
  document_.set(section.toStdString(), "~");
}

void ScenarioPanel::chooseZooModel(int index) {
  auto* combo = qobject_cast<QComboBox*>(fields_["model.zoo"]);
  const QString name = combo->itemData(index).toString();
  if (name.isEmpty()) return;  // the layers file already chosen
  const bool from_zoo = check_.scenario && check_.scenario->layer_model && !check_.scenario->layer_model->zoo.empty();
  if (from_zoo) document_.set("model.zoo", name.toStdString());
  else document_.set("model", "{zoo: " + name.toStdString() + "}");  // replaces model.layers_file
  recheck();
}

void ScenarioPanel::reloadLayerModel(const Scenario& s) {
  const LayerModel& m = *s.layer_model;
  auto* zoo = qobject_cast<QComboBox*>(fields_["model.zoo"]);
  for (int i = zoo->count() - 1; i >= 0; --i)
    if (zoo->itemText(i).startsWith(kLayersFileItem)) zoo->removeItem(i);
  if (m.zoo.empty()) zoo->addItem(kLayersFileItem + q(m.file.filename().string()), QString());
  showValue(zoo, q(m.zoo));
  // Image models have no sequence length; a layers file carries its own shapes.
  const bool sequences = !m.zoo.empty() && m.graph.sample_unit == "sequence";
  model_form_->setRowVisible(fields_["model.sequence_length"], sequences);
  showValue(fields_["model.sequence_length"], sequences ? QString::number(m.options.sequence_length) : "");
  showValue(fields_["model.optimizer"], to_string(m.optimizer));
  showValue(fields_["model.weight_decay"], number(m.weight_decay));

  // Fields that do not apply to the strategy show their default (empty), so that nothing the
  // user did not write is sent back.
  const DataParallelConfig& dp = s.data_parallel;
  const bool servers = dp.uses_servers();
  showValue(fields_["data_parallel.strategy"], to_string(dp.strategy));
  showValue(fields_["data_parallel.library"], servers ? "" : to_string(dp.library));
  showValue(fields_["data_parallel.compression"], to_string(dp.compression));
  showValue(fields_["data_parallel.bucket_cap_mb"], number(dp.bucket_cap_mb));
  showValue(fields_["data_parallel.servers"], servers && dp.servers > 0 ? QString::number(dp.servers) : "");
  showValue(fields_["data_parallel.placement"], servers ? to_string(dp.placement) : "");
  showValue(fields_["data_parallel.sharding"], servers ? to_string(dp.sharding) : "");
  showValue(fields_["data_parallel.mode"], servers ? to_string(dp.mode) : "");
  showValue(fields_["data_parallel.staleness_bound"],
             servers && dp.mode == UpdateMode::ssp ? QString::number(dp.staleness_bound) : "");
  showValue(fields_["data_parallel.backup_workers"],
             servers && dp.mode == UpdateMode::sync ? QString::number(dp.backup_workers) : "");
  showValue(fields_["reference.gpus"], s.reference ? QString::number(s.reference->gpus) : "");
  showValue(fields_["reference.samples_per_s"], s.reference ? number(s.reference->samples_per_s) : "");

  const std::optional<InputPipelineConfig>& in = s.input_pipeline;
  showValue(fields_["input_pipeline.sample_bytes"], in ? number(in->sample_bytes) : "");
  showValue(fields_["input_pipeline.storage"], in ? to_string(in->storage) : "");
  showValue(fields_["input_pipeline.storage_GBps"], in ? number(in->storage_GBps) : "");
  showValue(fields_["input_pipeline.cpu_cores"], in ? QString::number(in->cpu_cores) : "");
  showValue(fields_["input_pipeline.samples_per_s_per_core"], in ? number(in->samples_per_s_per_core) : "");
  showValue(fields_["input_pipeline.prefetch_batches"], in ? QString::number(in->prefetch_batches) : "");
  showValue(fields_["input_pipeline.cache_hit_rate"], in ? number(in->cache_hit_rate) : "");
}

}  // namespace dtsim::gui
