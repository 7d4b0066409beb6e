#include "command_examples.hpp"

#include <fmt/format.h>

#include <map>

namespace dtsim {

const std::vector<QuestionCommand>& questions() {
  static const std::vector<QuestionCommand> table = {
      {"How long is one training iteration on my cluster, and where does the time go?",
       "run scenarios/llama2-70b-256-h100.yaml"},
      {"Which parallel layout (TP, PP, DP, micro-batch, recompute) is fastest on N GPUs?",
       "plan --model llama2-70b --gpu h100-sxm --gpus 1024"},
      {"How many days, GPU-hours, dollars and MWh to train on T tokens: 2,048 or 4,096 GPUs?",
       "plan --model llama2-70b --gpu h100-sxm --gpus 2048,4096 --tokens 2e12"},
      {"How does it scale with more GPUs, or on another GPU type?",
       "sweep scenarios/llama2-70b-256-h100.yaml --gpus 128-1024"},
      {"What does one slow GPU cost?", "run scenarios/gpt3-13b-64-a100-straggler.yaml"},
      {"How much do failures and checkpoints cost over the whole run?",
       "goodput --model llama2-70b --gpu h100-sxm --gpus 1024 --tokens 2e12"},
      {"Which data-parallel strategy for my CNN, BERT or DLRM?",
       "compare-strategies scenarios/vgg16-16-k80-parameter-server.yaml"},
      {"What would my recorded job take on 64 GPUs?", "import tests/data/traces/dlrm_kineto --ranks 64"},
      {"How fast is an NCCL collective on this fabric?",
       "collective topologies/dgx-a100-hdr-fattree.yaml --op all_gather -g 64"},
      {"How close are the predictions to measured runs?", "validate validation/modern-runs.yaml"},
  };
  return table;
}

std::string question_table() {
  std::string out = "dtsim: predict distributed training on a cluster you may not own yet.\n\n";
  for (const QuestionCommand& q : questions()) out += fmt::format("  {}\n      dtsim {}\n", q.question, q.command);
  out += "\n`dtsim --help` lists the commands, `dtsim COMMAND --help` their flags; docs/README.md is the guide.\n";
  return out;
}

std::string examples_footer(const std::string& command) {
  static const std::map<std::string, std::vector<std::string>> examples = {
      {"", {"run", "plan --model llama2-70b --gpu h100-sxm --gpus 2048,4096 --tokens 2e12", "validate"}},
      {"run",
       {"run", "run scenarios/llama2-70b-256-h100.yaml --tokens 2e12 --json report.json",
        "run scenarios/gpt3-1.3b-8-h100.yaml --event 'straggler gpu=5 slowdown=1.3'"}},
      {"validate", {"validate", "validate validation/modern-runs.yaml"}},
      {"topo", {"topo topologies/dgx-h100-ndr-rail.yaml --nodes 64 --dot rail.dot"}},
      {"collective",
       {"collective", "collective topologies/dgx-a100-hdr-fattree.yaml --op all_gather -g 64 -b 1M -e 1G -f 4"}},
      {"plan",
       {"plan --model gpt3-175b --gpus 1024",
        "plan --model llama2-70b --gpu h100-sxm --gpus 2048,4096 --tokens 2e12 --write-scenario best.yaml"}},
      {"goodput",
       {"goodput --tokens 3e11", "goodput --model llama2-70b --gpu h100-sxm --gpus 1024 --tokens 2e12 --checkpoint async"}},
      {"sweep",
       {"sweep scenarios/llama2-70b-256-h100.yaml --gpus 128-1024 --tokens 2e12",
        "sweep scenarios/gpt3-1.3b-8-h100.yaml --field parallelism.tp --values 1-8"}},
      {"compare-strategies", {"compare-strategies", "compare-strategies scenarios/resnet50-32-v100-ddp.yaml --samples 1e8"}},
      {"import", {"import tests/data/traces/dlrm_kineto", "import tests/data/traces/dlrm_kineto --ranks 64"}},
      {"calibrate",
       {"calibrate tests/data/profiler/h100-sxm-2026-11-26.raw.json --out h100.json --driver 580.159.04"}},
  };
  const auto found = examples.find(command);
  if (found == examples.end()) return "";
  std::string out = "\nExamples (from the source folder):";
  for (const std::string& e : found->second) out += "\n  dtsim " + e;
  return out;
}

}  // namespace dtsim
