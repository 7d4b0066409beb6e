// `dtsim sweep` (sim/analysis/sweep.hpp, cli/sweep_command.cpp): tied fields, the numbers of each point,
// per-point errors that do not stop the sweep, CSV = JSON, and the PNG/SVG charts.
// Scenario: GPT-3 1.3B, global batch 256 x 2048 tokens, micro-batch 4, on 8-GPU H100 nodes.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "device_spec.hpp"
#include "memory_model.hpp"
#include "planner.hpp"
#include "scenario_loader.hpp"
#include "sweep.hpp"
#include "test_support.hpp"
#include "transformer_ops.hpp"

namespace dtsim {
namespace {

namespace fs = std::filesystem;
using test::CliResult;
using test::run_dtsim;

fs::path scenario_file() { return test::source_dir() / "scenarios" / "gpt3-1.3b-8-h100.yaml"; }
constexpr double kTokensPerIteration = 256.0 * 2048;  // global batch x sequence length
constexpr double kTokens = 1e9;

// Simulated once for the whole suite (four one-iteration simulations of 8 and 16 GPUs).
class Sweep : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    SweepRequest gpus;
    gpus.scenario_file = scenario_file();
    gpus.gpu_counts = {4, 8, 16};  // 4: less than a node, rejected
    gpus.amount = kTokens;
    gpu_sweep_ = new SweepResult(run_sweep(gpus));

    SweepRequest tp;
    tp.scenario_file = scenario_file();
    tp.field = "parallelism.tp";
    tp.values = {"1", "2", "3", "eight"};  // 3 does not divide 8 GPUs; "eight" is not a number
    tp.amount = kTokens;
    tp_sweep_ = new SweepResult(run_sweep(tp));
  }
  static void TearDownTestSuite() {
    delete gpu_sweep_;
    delete tp_sweep_;
  }
  static const SweepResult* gpu_sweep_;
  static const SweepResult* tp_sweep_;
};
const SweepResult* Sweep::gpu_sweep_ = nullptr;
const SweepResult* Sweep::tp_sweep_ = nullptr;

// Every simulated point: tokens/s, MFU and time to train follow from its iteration time.
void expect_point_arithmetic(const SweepPoint& p) {
  ASSERT_TRUE(p.simulated()) << p.error;
  EXPECT_TRUE(p.error.empty());
  EXPECT_GT(p.iteration_s, 0);
  EXPECT_EQ(p.unit, "token");
  EXPECT_DOUBLE_EQ(p.throughput_per_s, kTokensPerIteration / p.iteration_s);
  EXPECT_EQ(p.time_to_train_s, kTokens / p.throughput_per_s);  // exactly this division
  Scenario s = load_scenario(scenario_file());
  s.parallelism.tp = p.tp;
  s.parallelism.dp = p.dp;
  s.cluster.nodes = p.nodes;
  const double peak = find_device("h100-sxm")->peak_flops(Precision::bf16);
  EXPECT_NEAR(p.mfu, model_flops_per_iteration(s) / p.iteration_s / p.gpus / peak, 1e-12);
  EXPECT_NEAR(p.model_tflops_per_gpu, p.mfu * peak / 1e12, 1e-9);
}

TEST_F(Sweep, GpuCountsSetNodesAndDataParallelTogetherAndKeepTheBatch) {
  const SweepResult& r = *gpu_sweep_;
  EXPECT_TRUE(r.gpu_sweep);
  EXPECT_EQ(r.tied, (std::vector<std::string>{"cluster.nodes", "parallelism.dp"}));
  EXPECT_EQ(r.global_batch, 256);
  ASSERT_EQ(r.points.size(), 3u);

  const SweepPoint& four = r.points[0];
  EXPECT_EQ(four.status, SweepStatus::invalid);
  EXPECT_EQ(four.gpus, 4);
  EXPECT_NE(four.error.find("field '--gpus': expected a multiple of 8 GPUs per node"), std::string::npos) << four.error;
  EXPECT_NE(four.error.find("found 4"), std::string::npos) << four.error;

  const SweepPoint& eight = r.points[1];
  const SweepPoint& sixteen = r.points[2];
  EXPECT_EQ(eight.value, "8");
  EXPECT_EQ(sixteen.value, "16");
  // nodes = gpus / 8 GPUs per node, dp = gpus / (tp*cp*pp) = gpus / 1.
  EXPECT_EQ(std::vector<int>({eight.gpus, eight.nodes, eight.tp, eight.cp, eight.pp, eight.dp}),
            std::vector<int>({8, 1, 1, 1, 1, 8}));
  EXPECT_EQ(std::vector<int>({sixteen.gpus, sixteen.nodes, sixteen.tp, sixteen.cp, sixteen.pp, sixteen.dp}),
            std::vector<int>({16, 2, 1, 1, 1, 16}));
  expect_point_arithmetic(eight);
  expect_point_arithmetic(sixteen);
  // The global batch is kept: at 16 GPUs each replica runs half the micro-batches (256/(16x4) = 4),
  // so the iteration is shorter.
  EXPECT_LT(sixteen.iteration_s, eight.iteration_s);

  // The 8-GPU point is the file as it is: same memory as the unmodified scenario.
  const MemoryBreakdown file_memory = peak_memory_per_gpu(load_scenario(scenario_file()));
  EXPECT_EQ(eight.memory_bytes, file_memory.total_bytes);
  EXPECT_EQ(eight.memory_capacity_bytes, find_device("h100-sxm")->hbm_bytes);  // 80 GiB
  EXPECT_TRUE(eight.fits);

  // Scaling efficiency: tokens/s per GPU relative to the first simulated point (8 GPUs, not 4).
  ASSERT_TRUE(r.reference.has_value());
  EXPECT_EQ(*r.reference, 1u);
  EXPECT_EQ(eight.scaling_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(sixteen.scaling_efficiency, (sixteen.throughput_per_s / 16) / (eight.throughput_per_s / 8));
  EXPECT_EQ(four.scaling_efficiency, 0);
}

TEST_F(Sweep, FieldSweepTiesDataParallelAndKeepsEachPointsError) {
  const SweepResult& r = *tp_sweep_;
  EXPECT_FALSE(r.gpu_sweep);
  EXPECT_EQ(r.swept, "parallelism.tp");
  EXPECT_EQ(r.tied, std::vector<std::string>{"parallelism.dp"});
  ASSERT_EQ(r.points.size(), 4u);
  // tp 1: dp 8 (the file); tp 2: dp = 8 GPUs / 2 = 4. GPUs stay 8.
  EXPECT_EQ(std::vector<int>({r.points[0].gpus, r.points[0].tp, r.points[0].dp}), std::vector<int>({8, 1, 8}));
  EXPECT_EQ(std::vector<int>({r.points[1].gpus, r.points[1].tp, r.points[1].dp}), std::vector<int>({8, 2, 4}));
  expect_point_arithmetic(r.points[0]);
  expect_point_arithmetic(r.points[1]);
  // tp 1 is the same scenario as the GPU sweep's 8-GPU point: the same simulated time.
  EXPECT_EQ(r.points[0].iteration_s, gpu_sweep_->points[1].iteration_s);
  EXPECT_DOUBLE_EQ(r.points[1].scaling_efficiency, r.points[1].throughput_per_s / r.points[0].throughput_per_s);

  // tp 3: 8 is not a multiple of 3, dp is left at 8 and the scenario's GPU-count check says why.
  const SweepPoint& three = r.points[2];
  EXPECT_EQ(three.status, SweepStatus::invalid);
  EXPECT_NE(three.error.find("gpt3-1.3b-8-h100.yaml"), std::string::npos) << three.error;
  EXPECT_NE(three.error.find("field 'parallelism': expected tp*cp*pp*dp = 8"), std::string::npos) << three.error;
  EXPECT_NE(three.error.find("found tp*cp*pp*dp = 3*1*1*8 = 24 (point: parallelism.tp=3)"), std::string::npos)
      << three.error;
  // "eight": the loader's own type check.
  const SweepPoint& word = r.points[3];
  EXPECT_EQ(word.status, SweepStatus::invalid);
  EXPECT_NE(word.error.find("field 'parallelism.tp': expected a positive integer, found 'eight'"), std::string::npos)
      << word.error;
  EXPECT_EQ(word.tp, 0);  // no layout
}

TEST(SweepMemory, PointThatDoesNotFitIsReportedNotSimulated) {
  // Sequence 32768 x micro-batch 4 of GPT-3 1.3B (h = 2048, 24 layers) with fused attention on
  // H100: 34sbh bytes per layer (Korthikanti et al. without the score matrix) = 9.1 GB, x 24.
  SweepRequest request;
  request.scenario_file = scenario_file();
  request.field = "model.seq_len";
  request.values = {"32768"};
  const SweepResult r = run_sweep(request);
  ASSERT_EQ(r.points.size(), 1u);
  const SweepPoint& p = r.points[0];
  EXPECT_EQ(p.status, SweepStatus::out_of_memory);
  EXPECT_FALSE(p.fits);
  EXPECT_GT(p.memory_bytes, 24 * 34 * 32768.0 * 4 * 2048);
  EXPECT_EQ(p.memory_capacity_bytes, find_device("h100-sxm")->hbm_bytes);
  EXPECT_NE(p.error.find(fmt::format("h100-sxm has {:.2f} GB", p.memory_capacity_bytes / 1e9)), std::string::npos)
      << p.error;
  EXPECT_EQ(p.iteration_s, 0);
  EXPECT_FALSE(r.reference.has_value());
}

TEST(SweepValues, ListsRangesAndWords) {
  EXPECT_EQ(parse_sweep_values("--values", "1-8"), (std::vector<std::string>{"1", "2", "4", "8"}));
  EXPECT_EQ(parse_sweep_values("--values", "3-20"), (std::vector<std::string>{"4", "8", "16"}));
  EXPECT_EQ(parse_sweep_values("--values", "1f1b, zero_bubble"), (std::vector<std::string>{"1f1b", "zero_bubble"}));
  EXPECT_EQ(parse_sweep_values("--values", "a100-80gb-sxm,h100-sxm"),
            (std::vector<std::string>{"a100-80gb-sxm", "h100-sxm"}));
  const InputErrorInfo empty = test::error_of([] { parse_sweep_values("--values", "1,,2"); });
  EXPECT_EQ(empty.field, "--values");
  EXPECT_EQ(empty.found, "'1,,2'");
  EXPECT_EQ(test::error_of([] { parse_sweep_values("--values", "8-1"); }).field, "--values");
}

// Splits one CSV line (RFC 4180: quoted fields, "" inside quotes).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Each CSV line holds the same numbers (read back exactly) as the JSON point.
void expect_csv_matches_json(const std::string& csv, const nlohmann::json& json,
                             const std::string& throughput_key = "tokens_per_s") {
  const std::vector<std::string> lines = lines_of(csv);
  ASSERT_EQ(lines.size(), json["points"].size() + 1);
  const std::vector<std::string> header = csv_fields(lines[0]);
  EXPECT_EQ(lines[0], "value,gpus,nodes,tp,cp,pp,dp,status,iteration_s," + throughput_key +
                          ",model_tflops_per_gpu,mfu,memory_bytes,memory_capacity_bytes,fits,time_to_train_s,"
                          "gpu_hours,cost_usd,energy_mwh,scaling_efficiency,error");
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> fields = csv_fields(lines[i]);
    ASSERT_EQ(fields.size(), header.size()) << lines[i];
    const nlohmann::json& point = json["points"][i - 1];
    for (size_t k = 0; k < header.size(); ++k) {
      const nlohmann::json& v = point[header[k]];
      if (v.is_null()) {
        EXPECT_EQ(fields[k], "") << header[k];
      } else if (v.is_string()) {
        EXPECT_EQ(fields[k], v.get<std::string>()) << header[k];
      } else if (v.is_boolean()) {
        EXPECT_EQ(fields[k], v.get<bool>() ? "true" : "false") << header[k];
      } else {
        EXPECT_EQ(std::stod(fields[k]), v.get<double>()) << header[k] << " of point " << i - 1;
      }
    }
  }
}

// --replan: each GPU count gets the layout plan_layouts ranks first, not the scenario's with dp
// scaled; a field sweep cannot replan.
TEST(SweepReplan, EachCountTakesThePlannersBestLayout) {
  SweepRequest request;
  request.scenario_file = scenario_file();
  request.gpu_counts = {8, 16};
  request.replan = true;
  const SweepResult r = run_sweep(request);
  const Scenario base = load_scenario(scenario_file());
  for (const SweepPoint& p : r.points) {
    ASSERT_TRUE(p.simulated()) << p.error;
    PlanRequest plan;
    plan.model = base.model;
    plan.gpu = base.cluster.gpu;
    plan.gpu_counts = {p.gpus};
    plan.topology_file = base.cluster.topology_file;
    plan.global_batch = base.training.global_batch;
    plan.precision = base.training.precision;
    const PlanResult planned = plan_layouts(plan);
    ASSERT_FALSE(planned.rows.empty());
    const PlanRow& best = planned.rows.front();
    EXPECT_EQ(std::tie(p.tp, p.cp, p.pp, p.dp),
              std::tie(best.parallelism.tp, best.parallelism.cp, best.parallelism.pp, best.parallelism.dp))
        << p.gpus;
  }
  EXPECT_NE(format_sweep_table(r).find("re-planned at each GPU count"), std::string::npos);
  SweepRequest field = request;
  field.gpu_counts.clear();
  field.field = "parallelism.tp";
  field.values = {"1", "2"};
  EXPECT_EQ(test::error_of([&] { run_sweep(field); }).field, "--replan");
}

TEST_F(Sweep, CsvHasOneLinePerPointWithTheJsonsNumbers) {
  for (const SweepResult* r : {gpu_sweep_, tp_sweep_}) {
    const nlohmann::json json = sweep_to_json(*r);
    EXPECT_EQ(json["points"][1]["iteration_s"].get<double>(), r->points[1].iteration_s);
    expect_csv_matches_json(sweep_to_csv(*r), json);
  }
  // GPU-hours = time to train x GPUs / 3600, cost = $2.00 x GPU-hours (the default price).
  for (const SweepPoint& p : gpu_sweep_->points)
    if (p.has_time_to_train()) {
      EXPECT_DOUBLE_EQ(p.gpu_hours, p.time_to_train_s * p.gpus / 3600);
      EXPECT_DOUBLE_EQ(p.cost_usd, 2.0 * p.gpu_hours);
    }
  // Error messages hold commas and quotes: quoted, and read back whole.
  const std::vector<std::string> lines = lines_of(sweep_to_csv(*tp_sweep_));
  EXPECT_EQ(csv_fields(lines[4]).back(), tp_sweep_->points[3].error);
}

fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() / "dtsim-sweep-test";
  fs::create_directories(dir);
  return dir;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

uint32_t big_endian_u32(const std::string& bytes, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | uint8_t(bytes[at + i]);
  return v;
}

// The command: table, CSV and JSON files with the library's numbers, and (when built with Qt) the charts.
TEST_F(Sweep, CommandWritesTableCsvJsonAndCharts) {
  const fs::path dir = temp_dir();
  for (const char* name : {"s.csv", "s.json", "s.png", "s.svg"}) fs::remove(dir / name);
  std::string args = fmt::format("sweep {} --gpus 8,16 --tokens 1e9 --csv {} --json {}", scenario_file().string(),
                                 (dir / "s.csv").string(), (dir / "s.json").string());
#ifdef DTSIM_WITH_PLOT
  args += fmt::format(" --png {} --svg {} --plot-size 640x720", (dir / "s.png").string(), (dir / "s.svg").string());
#endif
  const CliResult r = run_dtsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.output;

  std::ifstream json_in(dir / "s.json");
  const nlohmann::json json = nlohmann::json::parse(json_in);
  ASSERT_EQ(json["points"].size(), 2u);
  EXPECT_EQ(json["swept"], "gpus");
  EXPECT_EQ(json["tokens"].get<double>(), 1e9);
  EXPECT_EQ(json["unit"], "token");
  // Simulation is deterministic: the same times as the library sweep above.
  EXPECT_EQ(json["points"][0]["iteration_s"].get<double>(), gpu_sweep_->points[1].iteration_s);
  EXPECT_EQ(json["points"][1]["iteration_s"].get<double>(), gpu_sweep_->points[2].iteration_s);
  expect_csv_matches_json(test::read_file(dir / "s.csv"), json);
  // The table row of 16 GPUs: nodes 2, dp 16, and its tokens/s.
  const SweepPoint& sixteen = gpu_sweep_->points[2];
  const std::string row = fmt::format("{:>5} {:>5} {:>3} {:>3} {:>3} {:>5} {:>9.4f} {:>11.0f}", 16, 2, 1, 1, 1, 16,
                                      sixteen.iteration_s, sixteen.throughput_per_s);
  EXPECT_NE(r.output.find(row), std::string::npos) << "expected row: " << row << "\n" << r.output;

#ifdef DTSIM_WITH_PLOT
  const std::string png = test::read_file(dir / "s.png");
  ASSERT_GE(png.size(), 24u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(big_endian_u32(png, 16), 640u);  // width
  EXPECT_EQ(big_endian_u32(png, 20), 720u);  // height
  const std::string svg = test::read_file(dir / "s.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("viewBox=\"0 0 640 720\""), std::string::npos);
  // One path per series (throughput, scaling efficiency, MFU, time to train, GPU-hours) and per
  // reference line (ideal scaling, 100%): axes and grid are lines, points circles.
  EXPECT_EQ(count_of(svg, "<path"), 5u + 2u) << svg.substr(0, 2000);
  EXPECT_EQ(count_of(svg, "<circle"), 5u * 2);  // a dot per point and series
  for (const char* text : {"Throughput (log scale)", "tokens/s", "ideal scaling", "Scaling efficiency", "GPU-hours",
                           "on h100-sxm, dgx-h100-ndr-fattree: scaling over GPU count"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  // SI tick labels: millions of tokens/s read 1M, 2M, 5M, never 2000k.
  EXPECT_NE(svg.find(">1M<"), std::string::npos) << svg.substr(0, 3000);
  EXPECT_EQ(svg.find("000k"), std::string::npos);
#else
  (void)big_endian_u32;
  (void)count_of;
#endif
}

// A layer model counts images: throughput = global batch / iteration time, time to train on 90
// ImageNet epochs (90 x 1,281,167 images) unless --samples says otherwise, and the CSV, JSON and
// table name images. Scenario: ResNet-50, 1024 images per iteration, DDP on DGX-1 nodes.
TEST(SweepLayerModel, CountsImages) {
  SweepRequest request;
  request.scenario_file = test::source_dir() / "tests" / "data" / "scenario-resnet50-ddp.yaml";
  request.gpu_counts = {8, 16};
  const SweepResult r = run_sweep(request);
  EXPECT_EQ(r.unit, "image");
  EXPECT_EQ(r.amount, 90.0 * 1'281'167);
  EXPECT_EQ(r.seq_len, 0);
  for (const SweepPoint& p : r.points) {
    ASSERT_TRUE(p.simulated()) << p.error;
    EXPECT_EQ(p.unit, "image");
    EXPECT_DOUBLE_EQ(p.throughput_per_s, 1024 / p.iteration_s);
    EXPECT_EQ(p.time_to_train_s, r.amount / p.throughput_per_s);
  }
  EXPECT_DOUBLE_EQ(r.points[1].scaling_efficiency,
                   (r.points[1].throughput_per_s / 16) / (r.points[0].throughput_per_s / 8));
  const nlohmann::json json = sweep_to_json(r);
  EXPECT_EQ(json["images"].get<double>(), r.amount);
  EXPECT_EQ(json["points"][0]["unit"], "image");
  expect_csv_matches_json(sweep_to_csv(r), json, "images_per_s");
  const std::string table = format_sweep_table(r);
  EXPECT_NE(table.find("batch          1024 images per iteration"), std::string::npos) << table;
  EXPECT_NE(table.find("time to train  115.3M images"), std::string::npos) << table;
  const std::string row = fmt::format("{:>9.4f} {:>11.1f}", r.points[1].iteration_s, r.points[1].throughput_per_s);
  EXPECT_NE(table.find(row), std::string::npos) << row << "\n" << table;

  const CliResult cli = run_dtsim("sweep " + request.scenario_file.string() + " --gpus 16 --samples 1e6");
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  EXPECT_NE(cli.output.find("time to train  1M images"), std::string::npos) << cli.output;
  const CliResult tokens = run_dtsim("sweep " + request.scenario_file.string() + " --gpus 16 --tokens 1e9");
  EXPECT_EQ(tokens.exit_code, 2);
  EXPECT_NE(tokens.output.find("field '--tokens': expected --samples: this scenario's model counts in images"),
            std::string::npos)
      << tokens.output;
}

// A sweep from a CNN to BERT: each point counts in its own unit; BERT's has no time to train on
// the amount of images and no scaling against the ResNet point.
TEST(SweepLayerModel, PointsOfAnotherUnitHaveNoTimeToTrain) {
  SweepRequest request;
  request.scenario_file = test::source_dir() / "tests" / "data" / "scenario-resnet50-ddp.yaml";
  request.base_overrides = {{"reference", "{gpus: 1, samples_per_s: 800}"}};
  request.field = "model.zoo";
  request.values = {"resnet-50", "bert-base"};
  const SweepResult r = run_sweep(request);
  ASSERT_TRUE(r.points[1].simulated()) << r.points[1].error;
  EXPECT_EQ(r.points[1].unit, "sequence");
  EXPECT_DOUBLE_EQ(r.points[1].throughput_per_s, 1024 / r.points[1].iteration_s);
  EXPECT_FALSE(r.points[1].has_time_to_train());
  EXPECT_FALSE(r.points[1].has_scaling());
  EXPECT_TRUE(r.points[0].has_time_to_train());
  const std::vector<std::string> lines = lines_of(sweep_to_csv(r));
  EXPECT_EQ(csv_fields(lines[0])[9], "images_per_s|sequences_per_s");
  EXPECT_EQ(sweep_to_json(r)["points"][1]["sequences_per_s"].get<double>(), r.points[1].throughput_per_s);
  EXPECT_NE(format_sweep_table(r).find("counts sequences, not images"), std::string::npos);
}

TEST(SweepCli, BadFlagsNameTheFlag) {
  const std::string scenario = scenario_file().string();
  struct Case {
    std::string args, flag;
  };
  const Case cases[] = {
      {"sweep " + scenario, "--gpus"},  // neither --gpus nor --field
      {"sweep " + scenario + " --gpus 8 --field parallelism.tp --values 1", "--gpus"},
      {"sweep " + scenario + " --field parallelism.tp", "--values"},
      {"sweep " + scenario + " --field parallelism.tp --values 1,,2", "--values"},
      {"sweep " + scenario + " --gpus 8 --tokens lots", "--tokens"},
      {"sweep " + scenario + " --gpus 8 --tokens -5", "--tokens"},
      {"sweep " + scenario + " --gpus 8 --samples 1e6", "--samples"},  // GPT counts tokens
      {"sweep " + scenario + " --gpus 8 --tokens 1e9 --samples 1e6", "--samples"},
      {"sweep " + scenario + " --gpus eight", "--gpus"},
      {"sweep " + scenario + " --gpus 8 --csv /no/such/dir/s.csv", "--csv"},
      {"sweep " + scenario + " --gpus 8 --plot-size 10x10", "--plot-size"},
  };
  for (const Case& c : cases) {
    const CliResult r = run_dtsim(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find("field '" + c.flag + "'"), std::string::npos) << c.args << "\n" << r.output;
  }
  const CliResult missing = run_dtsim("sweep /no/such/scenario.yaml --gpus 8");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("/no/such/scenario.yaml"), std::string::npos) << missing.output;
#ifndef DTSIM_WITH_PLOT
  for (const char* flag : {"--png", "--svg"}) {
    const CliResult r = run_dtsim("sweep " + scenario + " --gpus 8 " + flag + " out");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(std::string("field '") + flag + "'"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Qt 6 was not found at build time"), std::string::npos) << r.output;
  }
#endif
}

}  // namespace
}  // namespace dtsim
