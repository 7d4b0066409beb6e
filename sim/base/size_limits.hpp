#pragma once
// The largest inputs dtsim builds, and physical bounds on what files may claim. Past these a
// run would not finish or not fit in memory (every GPU is one SimGrid actor with its own stack
// and program), or the number means a typo rather than hardware: the loaders and the CLI reject
// such input with a message naming the limit instead of running away.
namespace dtsim {

// 2^16 GPUs: the largest scenario, `collective` communicator or `topo` graph, set by the memory
// budget (kMemoryBudget_bytes). The platform holds every GPU's host and links, and a collective
// over all of them an actor per GPU: on the 2-core, 24 GB development machine (2026-11-26),
// `dtsim collective -g N -b 1M -e 1M` on the NDR fat-tree took 0.25 GB at 4,096 GPUs, 0.97 GB at
// 16,384, 1.92 GB at 32,768 (46 s), and 3.89 GB at 65,536 (194 s; robustness campaign of
// 2026-11-26): 59 kB per GPU. A folded 65,664-GPU run took 2.71 GB; 131,072 GPUs (Llama 3 405B,
// folded) took 5.44 GB, over the budget.
constexpr long kMaxGpus = 65536;
// No command uses more memory than this on any input it accepts: the inputs that would need more
// are refused before the work starts.
constexpr double kMemoryBudget_bytes = 4e9;
// Work a simulation holds in memory: micro-batch passes over all GPUs (GPUs x micro-batches per
// replica x virtual stages; the default 175B scenario has 2e5) and tasks in all the GPUs'
// programs (about 80 bytes each).
constexpr long long kMaxRankMicroBatches = 1LL << 24;
constexpr long long kMaxTasks = 1LL << 25;
// A measured throughput a layer-graph scenario's `reference` states, samples per second over its
// GPUs. The references in validation/ and scenarios/ span 7.56 to 4.02e6; these bounds are three
// decades beyond each (one sample in 17 minutes; 10^9), and keep every per-sample time a finite
// number of seconds the engine can order (1e-300 images/s deadlocked it, 1e-30 gave 6e31 s).
constexpr double kMinReferenceSamplesPerSecond = 1e-3;
constexpr double kMaxReferenceSamplesPerSecond = 1e9;
// GPUs in one NVLink domain: 8 (DGX/HGX), 72 (GB200 NVL72), 576 (NVL576) fit.
constexpr int kMaxGpusPerNode = 1024;

// Link bandwidths, one direction: from 1 MB/s to 100 TB/s (NVLink 5 is 0.9 TB/s per GPU and
// direction, an 800G NIC 0.1 TB/s), and latencies up to 1 s.
constexpr double kMinLinkBandwidth_Bps = 1e6;
constexpr double kMaxLinkBandwidth_Bps = 1e14;
constexpr double kMaxLinkLatency_s = 1;

// Leaf down- to up-bandwidth: 2:1 and 4:1 are built; past 100:1 a fabric hardly connects.
constexpr double kMaxOversubscription = 100;

// Peak rates a calibration may state: up to 100 PFLOP/s (a B200 has 4.5 dense FP8) and
// 100 TB/s of memory bandwidth (a B200 has 8).
constexpr double kMaxPeakFlops = 1e17;
constexpr double kMaxPeakMemory_Bps = 1e14;
// An efficiency is a measured rate over the datasheet peak. One the model uses is at least
// kMinEfficiency: below 1e-4 a measured kernel is all launch latency, and its size, not its
// efficiency, is what to measure.
constexpr double kMinEfficiency = 1e-4;
// A measured rate above the datasheet peak is a measurement, not an error, up to what the
// hardware can do:
// - FLOP/s: the datasheet's tensor-core peak holds at the clock it assumes, and an SM clock runs
//   faster only up to its maximum. The H100 SXM measured on 2026-11-26 ran at up to 1980 MHz
//   (nvidia-smi clocks.max.sm) where its 989.4 TFLOP/s are 132 SMs x 4096 FLOP/clk at 1830 MHz:
//   1.082. 1.2 leaves room for that and refuses a FLOP count twice too large.
// - Bytes/s against HBM: a tensor that stays in L2 is served at L2's rate. NVIDIA's A100
//   whitepaper gives 5120 B/clk of L2 read bandwidth, 7.2 TB/s at 1410 MHz: 3.5x the 80GB part's
//   2.039 TB/s HBM, 4.6x the 40GB part's 1.555 TB/s. 5 is above every such ratio and refuses a
//   byte count or a time off by an order of magnitude. (The H100 of 2026-11-26 reached 1.27: an
//   embedding gather of 16.8 MB, inside its 50 MB L2.)
constexpr double kMaxComputeEfficiency = 1.2;
constexpr double kMaxMemoryEfficiency = 5;

}  // namespace dtsim
