#include "scenario_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <utility>

#include "attention_kernel.hpp"
#include "device_spec.hpp"
#include "enum_names.hpp"
#include "memory_model.hpp"
#include "scenario_consistency.hpp"
#include "topology_spec.hpp"
#include "validation.hpp"
#include "qt_text.hpp"
#include "transformer_config.hpp"
#include "what_if.hpp"
#include "wheel_guard.hpp"

namespace dtsim::gui {

namespace {

const char* kFlagStyle = "border: 2px solid #d00000;";
const QString kHfItem = "Hugging Face config.json…";

}  // namespace

void ScenarioPanel::showValue(QWidget* w, const QString& text) {
  const QSignalBlocker block(w);
  if (auto* e = qobject_cast<QLineEdit*>(w)) e->setText(text);
  if (auto* c = qobject_cast<QComboBox*>(w)) {
    int i = c->findData(text);
    if (i < 0) i = c->findText(text);
    if (i < 0) {
      c->addItem(text, text);
      i = c->count() - 1;
    }
    c->setCurrentIndex(i);
  }
  if (auto* b = qobject_cast<QCheckBox*>(w)) b->setChecked(text == "true");
}

ScenarioPanel::ScenarioPanel(ScenarioDocument& document, const QString& topologies_dir, QWidget* parent)
    : QWidget(parent), document_(document), topologies_dir_(topologies_dir) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(buildModel());
  layout->addWidget(buildTraining());
  layout->addWidget(buildParallelism());
  layout->addWidget(buildDataParallel());
  layout->addWidget(buildInputPipeline());
  layout->addWidget(buildCluster());
  layout->addWidget(buildCalibrationAndEvents());
  layout_summary_ = new QLabel;
  layout_summary_->setWordWrap(true);
  layout_summary_->setObjectName("layout_summary");
  layout->addWidget(layout_summary_);
  error_ = new QLabel;
  error_->setObjectName("scenario_error");
  error_->setWordWrap(true);
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_->setStyleSheet("color: #b00020");
  layout->addWidget(error_);
  layout->addStretch();
}

QLineEdit* ScenarioPanel::lineField(const QString& path, const QString& tooltip, const QString& placeholder) {
  auto* e = new QLineEdit;
  e->setObjectName(path);
  e->setToolTip(tooltip);
  e->setPlaceholderText(placeholder);
  connect(e, &QLineEdit::textEdited, this, [this, path](const QString& text) { fieldEdited(path, text); });
  fields_[path] = e;
  return e;
}

QComboBox* ScenarioPanel::comboField(const QString& path, const QStringList& items, const QString& tooltip) {
  auto* c = new QComboBox;
  c->setObjectName(path);
  c->setToolTip(tooltip);
  ignore_wheel_unless_focused(c);
  for (const QString& item : items) c->addItem(item, item);
  connect(c, &QComboBox::activated, this, [this, path, c](int i) { fieldEdited(path, c->itemData(i).toString()); });
  fields_[path] = c;
  return c;
}

QWidget* ScenarioPanel::checkField(const QString& path, const QString& text) {
  auto* b = new QCheckBox(text);
  b->setObjectName(path);
  connect(b, &QCheckBox::clicked, this, [this, path](bool on) { fieldEdited(path, on ? "true" : "false"); });
  fields_[path] = b;
  return b;
}

void ScenarioPanel::transformerRow(QFormLayout* form, const QString& label, QWidget* field) {
  if (label.isEmpty()) form->addRow(field);
  else form->addRow(label, field);
  transformerOnly(form, field);
}

QWidget* ScenarioPanel::buildModel() {
  auto* box = new QGroupBox("Model");
  auto* form = new QFormLayout(box);
  form->addRow("name", lineField("name", "the scenario's name (reports, run labels)"));
  auto* model = new QComboBox;
  ignore_wheel_unless_focused(model);
  model->setObjectName("model.preset");
  model->addItems(q(model_preset_names()));
  model->addItem(kHfItem);
  model->setToolTip("a built-in model preset, or a Hugging Face config.json");
  connect(model, &QComboBox::activated, this, &ScenarioPanel::chooseModel);
  fields_["model.preset"] = model;
  form->addRow("model", model);
  transformerOnly(form, model);
  QLineEdit* seq_len = lineField("model.seq_len", "tokens per sequence (model.seq_len)");
  form->addRow("sequence length", seq_len);
  transformerOnly(form, seq_len);
  addLayerModelRows(form);
  model_summary_ = new QLabel;
  model_summary_->setObjectName("model_summary");
  model_summary_->setWordWrap(true);
  form->addRow(model_summary_);
  return box;
}

QWidget* ScenarioPanel::buildTraining() {
  auto* box = new QGroupBox("Training");
  auto* form = new QFormLayout(box);
  form->addRow("global batch", lineField("training.global_batch", "sequences per iteration, all replicas"));
  form->addRow("micro-batch", lineField("training.micro_batch", "sequences per micro-batch"));
  form->addRow("precision", comboField("training.precision", q(names_of(kPrecisions)), "number format of the GEMMs"));
  form->addRow("framework",
               comboField("training.framework", q(names_of(kFrameworks)),
                          "what runs each GPU's step, which decides its kernels (docs/frameworks.md): megatron "
                          "(Transformer Engine's fused kernels), pytorch (eager), torch_compile"));
  form->addRow("mixed precision",
               comboField("training.mixed_precision", q(names_of(kMixedPrecisions)),
                          "autocast: fp32 weights cast at each use; master_weights: bf16 weights, fp32 master "
                          "copy; auto: master_weights for megatron and FSDP, autocast for pytorch"));
  layerModelRow(form, "memory format",
                comboField("training.memory_format", q(names_of(kMemoryFormats)),
                           "the feature maps' layout: channels_last (NHWC) or contiguous (NCHW: cuDNN copies the maps "
                           "around most convolutions); auto: contiguous for pytorch, channels_last for torch_compile"));
  transformerRow(form, "recompute",
                 comboField("training.recompute", q(names_of(kRecomputeModes)), "activation recomputation"));
  transformerRow(form, "recomputed layers",
                 lineField("training.recompute_layers",
                           "with recompute full: layers of each model chunk recomputed, the others keep their "
                           "activations (0: all)"));
  transformerRow(form, "",
                 checkField("training.recompute_reentrant",
                            "reentrant recompute (use_reentrant=True, Hugging Face's default: the whole layer rerun; "
                            "off: non-reentrant, stopping once the backward's saved tensors are back)"));
  transformerRow(form, "attention",
                 comboField("training.attention", q(names_of(kAttentionKernels)),
                            "core attention kernel (auto: cuDNN fused on Hopper, FlashAttention-2 on Ampere, "
                            "unfused before)"));
  transformerRow(form, "",
                 checkField("training.attention_varlen",
                            "varlen attention (flash1 or flash2 through flash-attn's varlen API: q, k, v unpadded, "
                            "the output padded back, host syncs; llm-foundry's MPT)"));
  transformerRow(form, "optimizer",
                 comboField("training.optimizer", q(names_of(kOptimizerKernels)),
                            "how Adam runs: fused (one kernel), foreach (PyTorch multi-tensor), "
                            "per_tensor (a loop of in-place ops per tensor)"));
  transformerRow(form, "loss",
                 comboField("training.cross_entropy", q(names_of(kCrossEntropyKernels)),
                            "torch: log-softmax and NLL on an fp32 copy of the logits; fused: one kernel each way "
                            "(flash-attn's, llm-foundry's default, a compiled loss); Megatron prices its own"));
  transformerRow(form, "loss metrics",
                 lineField("training.loss_metrics",
                           "forward-only cross-entropies per micro-batch the training loop computes as metrics "
                           "(Composer: 2)"));
  transformerRow(form, "FP8 recipe",
                 comboField("training.fp8_recipe", q(names_of(kFp8Recipes)),
                            "with precision fp8: how tensors are scaled (delayed: Transformer Engine's "
                            "default; tensorwise, rowwise: current scaling, an amax pass per cast)"));
  transformerRow(form, "",
                 checkField("training.cuda_graphs", "CUDA graphs (each pass launched at once, not kernel by kernel)"));
  return box;
}

QWidget* ScenarioPanel::buildParallelism() {
  auto* box = new QGroupBox("Parallelism");
  auto* form = new QFormLayout(box);
  auto* degrees = new QHBoxLayout;
  for (const char* d : {"tp", "cp", "pp", "dp", "ep"}) {
    auto* label = new QLabel(d);
    QLineEdit* e = lineField(QString("parallelism.") + d, QString("%1 degree (parallelism.%1)").arg(d));
    e->setMaximumWidth(56);
    degrees->addWidget(label);
    degrees->addWidget(e);
    if (QString(d) != "dp") {  // layer-graph models are data-parallel only
      transformerOnly(nullptr, label);
      transformerOnly(nullptr, e);
    }
  }
  form->addRow(degrees);
  transformerRow(form, "schedule",
                 comboField("parallelism.schedule", q(names_of(kPipelineSchedules)), "pipeline schedule"));
  transformerRow(form, "virtual stages",
                 lineField("parallelism.virtual_stages", "model chunks per GPU (interleaved_1f1b)"));
  transformerRow(form, "ZeRO stage",
                 comboField("parallelism.zero_stage", {"0", "1", "2", "3"},
                            "0: all-reduce; 1: sharded optimizer; 2: + gradients; 3: + weights"));
  transformerRow(form, "bucket MB", lineField("parallelism.bucket_mb", "gradient bucket size, MB"));
  transformerRow(form, "", checkField("parallelism.sequence_parallel", "sequence parallel"));
  transformerRow(form, "", checkField("parallelism.tp_comm_overlap", "TP communication overlap"));
  transformerRow(form, "", checkField("parallelism.overlap_grad_reduce", "overlap gradient reduction"));
  transformerRow(form, "",
                 checkField("parallelism.overlap_param_gather",
                            "overlap parameter all-gather (ZeRO-1/2: beside the next forward pass)"));
  transformerRow(form, "", checkField("parallelism.grad_reduce_in_bf16", "reduce gradients in bf16"));
  transformerRow(form, "",
                 checkField("parallelism.fp8_weight_all_gather", "FP8 weight all-gathers (precision fp8, ZeRO)"));
  transformerRow(form, "",
                 checkField("parallelism.fp8_tp_all_gather", "FP8 TP all-gathers (precision fp8, sequence parallel)"));
  transformerRow(form, "",
                 checkField("parallelism.fsdp_prefetch", "FSDP prefetch (ZeRO-3 all-gathers beside the compute)"));
  transformerRow(form, "FSDP version",
                 comboField("parallelism.fsdp_version", {"1", "2"},
                            "ZeRO-2/3 in PyTorch: 1 FullyShardedDataParallel (Composer), 2 fully_shard (TorchTitan)"));
  return box;
}

QWidget* ScenarioPanel::buildCluster() {
  auto* box = new QGroupBox("Cluster");
  auto* form = new QFormLayout(box);
  form->addRow("GPU", comboField("cluster.gpu", q(device_ids()), "GPU type"));
  form->addRow("nodes", lineField("cluster.nodes", "nodes in the cluster"));
  auto* topology = comboField("cluster.topology", {}, "topology file (topologies/)");
  for (const QFileInfo& f : QDir(topologies_dir_).entryInfoList({"*.yaml"}, QDir::Files, QDir::Name))
    topology->addItem(f.completeBaseName(), f.absoluteFilePath());
  form->addRow("topology", topology);
  form->addRow("oversubscription", lineField("cluster.oversubscription",
                                             "leaf down/up bandwidth ratio (fat_tree, rail_optimized)",
                                             "as in the topology file"));
  return box;
}

QWidget* ScenarioPanel::buildCalibrationAndEvents() {
  auto* box = new QGroupBox("Calibration and what-if events");
  auto* form = new QFormLayout(box);
  auto* calibration = new QHBoxLayout;
  QLineEdit* file =
      lineField("calibration", "calibration JSON written by dtsim-profile (optional)", "datasheet defaults");
  auto* browse = new QPushButton("…");
  connect(browse, &QPushButton::clicked, this, &ScenarioPanel::chooseCalibration);
  calibration->addWidget(file);
  calibration->addWidget(browse);
  form->addRow("calibration", calibration);
  events_ = new QListWidget;
  events_->setObjectName("events");
  events_->setMaximumHeight(90);
  events_->setToolTip("click a GPU, node or link in the Topology tab to add one");
  fields_["events"] = events_;
  form->addRow("events", events_);
  auto* buttons = new QHBoxLayout;
  auto* remove = new QPushButton("Remove event");
  auto* clear = new QPushButton("Clear events");
  buttons->addWidget(remove);
  buttons->addWidget(clear);
  form->addRow(buttons);
  connect(remove, &QPushButton::clicked, this, [this] {
    if (events_->currentRow() < 0) return;
    document_.removeEvent(size_t(events_->currentRow()));
    refreshEvents();
    recheck();
  });
  connect(clear, &QPushButton::clicked, this, [this] {
    document_.setEvents({});
    refreshEvents();
    recheck();
  });
  return box;
}

void ScenarioPanel::chooseModel(int index) {
  auto* combo = qobject_cast<QComboBox*>(fields_["model.preset"]);
  if (combo->itemText(index) == kHfItem) {
    const QString file = QFileDialog::getOpenFileName(this, "Hugging Face config.json", QString(), "JSON (*.json)");
    if (file.isEmpty()) return;
    document_.set("model", "{hf_config: '" + QFileInfo(file).absoluteFilePath().toStdString() + "'}");
    model_from_preset_ = false;
  } else if (model_from_preset_) {
    document_.set("model.preset", combo->itemText(index).toStdString());
  } else {  // the file names a config.json: the preset replaces the whole model section
    document_.set("model", "{preset: " + combo->itemText(index).toStdString() + "}");
    model_from_preset_ = true;
  }
  recheck();
}

void ScenarioPanel::chooseCalibration() {
  const QString file = QFileDialog::getOpenFileName(this, "Calibration file", QString(), "JSON (*.json)");
  if (file.isEmpty()) return;
  showValue(fields_["calibration"], file);
  fieldEdited("calibration", file);
}

void ScenarioPanel::fieldEdited(const QString& path, const QString& value) {
  // An emptied optional field goes back to its default ("~" is YAML's null).
  last_edited_ = path;
  const bool optional = path == "calibration" || path == "cluster.oversubscription" ||
                        path == "model.sequence_length" || path == "model.optimizer" || path == "model.weight_decay" ||
                        path.startsWith("data_parallel.") || path.startsWith("reference.") ||
                        path.startsWith("input_pipeline.");
  if (path == "reference.samples_per_s" && check_.scenario && check_.scenario->layer_model)
    // The file may name the rate by its unit (images_per_s): the form's value replaces it.
    document_.set("reference." + check_.scenario->layer_model->graph.sample_unit + "s_per_s", "~");
  const ClusterConfig before = check_.scenario ? check_.scenario->cluster : ClusterConfig{};
  document_.set(path.toStdString(), value.isEmpty() && optional ? "~" : value.toStdString());
  dropEmptySection(path);
  if (path == "cluster.gpu" && !before.topology_file.empty()) {
    ClusterConfig after = before;
    after.gpu = value.toStdString();
    check_gpu_matches_topology(after, [&](const std::string&, const std::string&) { followGpuWithTopology(value); });
    offerTopologiesFor(after.gpu);
  }
  recheck();
  if (!switched_topology_.isEmpty()) error_->setText(std::exchange(switched_topology_, QString()));
}

void ScenarioPanel::followGpuWithTopology(const QString& gpu) {
  const std::filesystem::path topology = default_topology_for(gpu.toStdString(), topologies_dir_.toStdString());
  document_.set("cluster.topology", topology.string());
  showValue(fields_["cluster.topology"], QFileInfo(q(topology.string())).absoluteFilePath());
  switched_topology_ = QString("topology switched to %1: its nodes hold %2 (the scenario's name is unchanged)")
                           .arg(q(topology.filename().string()), gpu);
}

void ScenarioPanel::offerTopologiesFor(const std::string& gpu) {
  auto* combo = qobject_cast<QComboBox*>(fields_["cluster.topology"]);
  auto* items = combo ? qobject_cast<QStandardItemModel*>(combo->model()) : nullptr;
  if (!items) return;
  for (int i = 0; i < combo->count(); ++i) {
    ClusterConfig c;
    c.gpu = gpu;
    try {
      c.topology = load_topology(combo->itemData(i).toString().toStdString());
    } catch (const InputError&) {
      continue;  // a broken file is offered: choosing it shows its error
    }
    bool matches = true;
    check_gpu_matches_topology(c, [&](const std::string&, const std::string&) { matches = false; });
    items->item(i)->setEnabled(matches);
  }
}

void ScenarioPanel::addEvent(const Event& event) {
  document_.addEvent(event);
  refreshEvents();
  recheck();
}

void ScenarioPanel::refreshEvents() {
  events_->clear();
  for (const Event& e : document_.events()) events_->addItem(q(describe_event(e)));
}

void ScenarioPanel::reload() {
  check_ = document_.check();
  if (check_.scenario) {
    const Scenario& s = *check_.scenario;
    showFamily(s.layer_model.has_value());
    showValue(fields_["name"], q(s.name));
    showValue(fields_["training.global_batch"], QString::number(s.training.global_batch));
    showValue(fields_["training.micro_batch"], QString::number(s.training.micro_batch));
    showValue(fields_["training.precision"], to_string(s.training.precision));
    showValue(fields_["training.framework"], to_string(s.training.framework));
    showValue(fields_["training.mixed_precision"], to_string(s.training.mixed_precision));
    showValue(fields_["training.memory_format"], to_string(s.training.memory_format));
    showValue(fields_["parallelism.dp"], QString::number(s.parallelism.dp));
    showValue(fields_["cluster.gpu"], q(s.cluster.gpu));
    offerTopologiesFor(s.cluster.gpu);
    showValue(fields_["cluster.nodes"], QString::number(s.cluster.nodes));
    showValue(fields_["cluster.topology"],
              QFileInfo(QString::fromStdString(s.cluster.topology_file.string())).absoluteFilePath());
    showValue(fields_["cluster.oversubscription"], "");
    showValue(fields_["calibration"], s.calibration_file ? q(s.calibration_file->string()) : "");
    if (s.layer_model) reloadLayerModel(s);
    else reloadTransformer(s);
  }
  refreshEvents();
  flag(check_);
  emit checked();
}

void ScenarioPanel::reloadTransformer(const Scenario& s) {
  const auto presets = model_preset_names();
  model_from_preset_ = std::find(presets.begin(), presets.end(), s.model.name) != presets.end();
  showValue(fields_["model.preset"], model_from_preset_ ? q(s.model.name) : "config.json: " + q(s.model.name));
  showValue(fields_["model.seq_len"], QString::number(s.model.seq_len));
  showValue(fields_["training.recompute"], to_string(s.training.recompute));
  showValue(fields_["training.recompute_layers"], QString::number(s.training.recompute_layers));
  showValue(fields_["training.recompute_reentrant"], s.training.recompute_reentrant ? "true" : "false");
  showValue(fields_["training.attention"], to_string(s.training.attention));
  showValue(fields_["training.attention_varlen"], s.training.attention_varlen ? "true" : "false");
  showValue(fields_["training.fp8_recipe"], to_string(s.training.fp8_recipe));
  showValue(fields_["training.optimizer"], to_string(s.training.optimizer));
  showValue(fields_["training.cross_entropy"], to_string(s.training.cross_entropy));
  showValue(fields_["training.loss_metrics"], QString::number(s.training.loss_metrics));
  showValue(fields_["training.cuda_graphs"], s.training.cuda_graphs ? "true" : "false");
  const ParallelismConfig& p = s.parallelism;
  showValue(fields_["parallelism.tp"], QString::number(p.tp));
  showValue(fields_["parallelism.cp"], QString::number(p.cp));
  showValue(fields_["parallelism.pp"], QString::number(p.pp));
  showValue(fields_["parallelism.ep"], QString::number(p.ep));
  showValue(fields_["parallelism.schedule"], to_string(p.schedule));
  showValue(fields_["parallelism.virtual_stages"], QString::number(p.virtual_stages));
  showValue(fields_["parallelism.zero_stage"], QString::number(p.zero_stage));
  showValue(fields_["parallelism.bucket_mb"], QString::number(p.bucket_mb));
  showValue(fields_["parallelism.sequence_parallel"], p.sequence_parallel ? "true" : "false");
  showValue(fields_["parallelism.tp_comm_overlap"], p.tp_comm_overlap ? "true" : "false");
  showValue(fields_["parallelism.overlap_grad_reduce"], p.overlap_grad_reduce ? "true" : "false");
  showValue(fields_["parallelism.overlap_param_gather"], p.overlap_param_gather ? "true" : "false");
  showValue(fields_["parallelism.grad_reduce_in_bf16"], p.grad_reduce_in_bf16 ? "true" : "false");
  showValue(fields_["parallelism.fp8_weight_all_gather"], p.fp8_weight_all_gather ? "true" : "false");
  showValue(fields_["parallelism.fp8_tp_all_gather"], p.fp8_tp_all_gather ? "true" : "false");
  showValue(fields_["parallelism.fsdp_prefetch"], p.fsdp_prefetch ? "true" : "false");
  showValue(fields_["parallelism.fsdp_version"], QString::number(p.fsdp_version));
}

void ScenarioPanel::recheck() {
  check_ = document_.check();
  flag(check_);
  emit checked();
}

QString ScenarioPanel::fieldForError(const QString& error_field) const {
  if (fields_.contains(error_field)) return error_field;
  // A whole section in error ("parallelism": tp*cp*pp*dp against the GPUs): the field of it the
  // user changed last is the likely culprit.
  if (last_edited_.startsWith(error_field + ".")) return last_edited_;
  if (error_field.startsWith("events")) return "events";
  if (error_field.startsWith("model"))
    return check_.scenario && check_.scenario->layer_model ? "model.zoo" : "model.preset";
  QString best;  // the longest field path the error's path starts with
  for (auto it = fields_.begin(); it != fields_.end(); ++it)
    if (error_field.startsWith(it.key() + ".") && it.key().size() > best.size()) best = it.key();
  return best;
}

void ScenarioPanel::flag(const ScenarioCheck& c) {
  if (QWidget* w = fields_.value(flagged_)) {
    w->setStyleSheet("");
    w->setProperty("fieldError", QVariant());
  }
  flagged_.clear();
  error_->setText(q(c.message));
  if (c.error) {
    flagged_ = fieldForError(q(c.error->field));
    if (QWidget* w = fields_.value(flagged_)) {
      w->setStyleSheet(kFlagStyle);
      w->setProperty("fieldError", q(c.message));
    }
  }
  if (c.scenario) showSummary(*c.scenario);
  else layout_summary_->clear();
}

void ScenarioPanel::showSummary(const Scenario& s) {
  const TransformerConfig& m = s.model;
  if (s.layer_model) {
    const LayerGraph& g = s.layer_model->graph;
    model_summary_->setText(QString("%1: %2 layers, %3 M parameters, %4 GFLOPs (%5 G multiply-accumulates) forward "
                                    "per %6")
                                .arg(q(g.name)).arg(g.layers.size()).arg(g.parameters() / 1e6, 0, 'f', 1)
                                .arg(g.forward_flops() / 1e9, 0, 'f', 2).arg(g.forward_macs() / 1e9, 0, 'f', 2)
                                .arg(q(g.sample_unit)));
  } else {
    model_summary_->setText(QString("%1: %2 layers, hidden %3, %4 heads (%5 KV), FFN %6, vocab %7, %8 B parameters")
                                .arg(q(m.name)).arg(m.layers).arg(m.hidden).arg(m.heads).arg(m.kv_heads)
                                .arg(m.ffn_hidden).arg(m.vocab).arg(double(parameter_count(m)) / 1e9, 0, 'f', 2));
  }
  const MemoryBreakdown memory = peak_memory_per_gpu(s);
  QString text = QString("%1 GPUs (%2 nodes × %3), %4 micro-batches per replica. Memory per GPU: %5 of %6 GB")
                     .arg(s.gpu_count()).arg(s.cluster.nodes).arg(s.cluster.topology.node.gpus)
                     .arg(s.micro_batches_per_replica())
                     .arg(memory.total_bytes / 1e9, 0, 'f', 1).arg(memory.capacity_bytes / 1e9, 0, 'f', 0);
  if (!memory.fits()) text = "<span style='color:#b00020'>" + text + ": does not fit</span>";
  layout_summary_->setText(text);
}

QWidget* ScenarioPanel::fieldWidget(const QString& path) const { return fields_.value(path); }

bool ScenarioPanel::editField(const QString& path, const QString& text) {
  QWidget* w = fields_.value(path);
  if (auto* e = qobject_cast<QLineEdit*>(w)) {
    e->setText(text);
    emit e->textEdited(text);
    return true;
  }
  if (auto* c = qobject_cast<QComboBox*>(w)) {
    int i = c->findData(text);
    if (i < 0) i = c->findText(text);
    if (i < 0) return false;
    c->setCurrentIndex(i);
    emit c->activated(i);
    return true;
  }
  if (auto* b = qobject_cast<QCheckBox*>(w)) {
    b->setChecked(text == "true");
    emit b->clicked(b->isChecked());
    return true;
  }
  return false;
}

void ScenarioPanel::setFields(const QList<QPair<QString, QString>>& values) {
  for (const auto& [path, value] : values) {
    document_.set(path.toStdString(), value.toStdString());
    if (QWidget* w = fields_.value(path)) showValue(w, value);
  }
  recheck();
}

QString ScenarioPanel::errorText() const { return error_->text(); }

QString ScenarioPanel::fieldError(const QString& path) const {
  const QWidget* w = fields_.value(path);
  return w ? w->property("fieldError").toString() : QString();
}

}  // namespace dtsim::gui
