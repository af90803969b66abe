#pragma once
// An inference experiment: a model on a chip, prefill of `batch` prompts then decode of
// `generate` tokens each, simulated op by op; and the analytic bounds of the same graphs.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "components/fabric.hpp"
#include "components/simulation.hpp"
#include "core/checked.hpp"
#include "core/hardware.hpp"
#include "core/limits.hpp"
#include "experiment/progress.hpp"
#include "experiment/run_summary.hpp"
#include "workloads/model.hpp"
#include "validation/analytic.hpp"
#include "workloads/transformer.hpp"

namespace roofsim {

// How the host launches a step's ops: as one graph (CUDA graphs, an XLA program), one by one,
// or one by one in steps that hold a prefill and as a graph in decode-only steps (PyTorch
// flows such as TensorRT-LLM 1.x and vLLM capture CUDA graphs for decode batches only).
enum class Launch { graph, per_op, prefill_per_op };
const char* launch_name(Launch l);
// "graph", "per_op" or "prefill_per_op"; nullopt for anything else.
std::optional<Launch> parse_launch(const std::string& s);
// In the order of Launch's values.
inline const std::vector<std::string>& launch_names() {
  static const std::vector<std::string> names{"graph", "per_op", "prefill_per_op"};
  return names;
}
// Whether a step launches its ops one by one.
inline bool launches_per_op(Launch l, bool holds_prefill) { return l == Launch::per_op || (l == Launch::prefill_per_op && holds_prefill); }

struct Experiment {
  std::string hw = "h100_sxm5";
  std::string model = "llama-3-8b";
  // Hardware or a model given as objects (edited in Python, a what-if variant, a sweep
  // point) instead of a preset name or file: when set, `hw` / `model` only label them.
  std::optional<HardwareSpec> hardware;
  std::optional<ModelConfig> model_config;
  std::int64_t batch = 1;
  std::int64_t prompt = 512;
  std::int64_t generate = 128;
  Precision precision;
  // Whether a flag, a file or a setting gave the weights', activations' or fp8 scaling's type.
  // When none did, the model's checkpoint decides them (its config.json's quantization_config:
  // resolve_checkpoint_precision), and `precision_source` says so.
  bool precision_given = false;
  std::string precision_source;
  AttentionImpl attention = AttentionImpl::fused;
  bool ideal = false;
  // How the host launches ops: one by one (each costs the hardware's host launch interval,
  // hidden when the device is busier than the host) or as one graph per step (CUDA graphs).
  Launch launch = Launch::graph;
  // The all-reduce kernel the framework runs (a collective algorithm that all-reduces:
  // trtllm_custom, vllm_custom) where it takes the group; "nccl": NCCL as its tuner chooses.
  std::string allreduce = "nccl";
  // Simulate every n-th decode step and interpolate linearly in between (decode cost is
  // linear in the context length); 0 = automatic: at most 128 simulated steps.
  std::int64_t decode_stride = 0;
  // Parallelism over tp x ep x pp chips wired as `topology` ("" = a switch for NVLink, a
  // near-cubic torus for ICI), numbered as workloads/chip_layout.hpp says: stage-major, then
  // EP rank, then TP rank. Tensor parallelism over `tp` chips (on a ring or torus a TP group
  // must span whole leading dimensions).
  std::int64_t tp = 1;
  // Pipeline parallelism: `pp` stages of ep x tp chips each; the batch in `microbatches`
  // (0: pp, or the most the batch divides into when fewer).
  std::int64_t pp = 1;
  std::int64_t microbatches = 0;
  // Expert parallelism over `ep` ranks of tp chips: data-parallel attention, experts spread,
  // all-to-alls over the chips of the same TP rank (switch topologies only).
  std::int64_t ep = 1;
  // How MoE layers route their tokens: uniform (default), balanced or power_law:A
  // (workloads/moe_routing.hpp).
  MoeRouting routing{};
  // Which kernels run an MoE layer's experts (workloads/moe_kernels.hpp): grouped (default) or
  // trtllm_cutlass (TensorRT-LLM's call, as the kernel tables measure it; a stack's `moe`).
  MoeKernel moe_kernel = MoeKernel::grouped;
  // Element-wise ops folded into their neighbours (Fusion, workloads/transformer.hpp): none by
  // default; a stack's `fuse` says what its engine fuses.
  Fusion fusion{};
  // Host time of the stack's eager weight-only MoE call (ForwardPass::weight_only_moe_eager_host_s).
  double weight_only_moe_eager_host_s = 0;
  // The MoE layers' experts TP-split over this many of the --tp chips and spread over the other
  // tp / moe_tp (expert parallelism inside the TP group; ForwardPass::moe_tp). 0: all tp.
  std::int64_t moe_tp = 0;
  // Scale-out (docs/scale-out.md): the nodes of hw.network.chips_per_node chips that all the
  // replicas fill together (0: not given, one switch as before), and data-parallel replicas of
  // the tp x ep x pp deployment, each serving its own batch. Replicas exchange nothing in
  // inference, so one is simulated and stands for each.
  std::int64_t nodes = 0;
  std::int64_t replicas = 1;
  // Which GEMMs run on near-memory units, when the hardware has [pim].
  NearMemory near_memory = NearMemory::small_rows;
  std::string topology;
  // Record resource timelines for the first `trace_steps` simulated steps (0 = none): prefill,
  // then decode steps in the order they were simulated (every decode_stride-th).
  int trace_steps = 0;
  // A prompt plus output longer than the model's maximum context (ModelConfig::max_context)
  // is refused unless this is set.
  bool allow_long_context = false;
  // Simulate every layer. By default a layer that starts from the same machine state as an
  // earlier identical one is replayed from it, exactly (components/layer_replay.hpp): the same
  // results, faster.
  bool all_layers = false;
  // The work guard: refuse runs whose estimated work exceeds this many events (0: no limit).
  double max_events = kDefaultMaxEvents;
  // The software stack applied (configs/stacks: NAME, NAME@VERSION or a .toml path, as given;
  // "" for none): its kernels and kernel parameters are already in the fields above.
  std::string stack;
  std::string source = "built-in default";  // where the settings came from
  // Settings an experiment file gave, by setting name ("gen"): "file:line: key" for messages.
  std::map<std::string, std::string> set_in_file;
};

// Reads [experiment] from a TOML file; keys: hw, model, batch, prompt, generate,
// weights_dtype, activations_dtype, kv_dtype, attention ("fused" | "unfused"), ideal.
Experiment load_experiment_file(const std::string& path);

// One op as it ran in one phase.
struct OpInstance {
  int step = 0;       // 0 = prefill, i = decode step i
  double weight = 1;  // decode steps this simulated step stands for (interpolation)
  const OpNode* op = nullptr;
  OpBound bound;
  OpResult result;
};

struct MemoryNeed {
  double weights = 0, kv_cache = 0, activations = 0;
  double total() const { return weights + kv_cache + activations; }
};

struct ExperimentResult {
  HardwareSpec hw;
  ModelConfig model;
  Experiment setup;
  MemoryNeed memory;
  double ttft_s = 0, tpot_s = 0, total_s = 0;
  double bound_ttft_s = 0, bound_tpot_s = 0, bound_total_s = 0;
  double decode_speed_of_light_s = 0;  // mean over steps of (weights + KV read) / bandwidth
  double prefill_flops = 0, prefill_bytes = 0, decode_flops = 0, decode_bytes = 0;  // per step for decode
  int decode_steps = 0;
  std::vector<int> simulated_steps;  // [0] = 0 (prefill), then the decode steps simulated
  std::vector<double> step_weights;  // per simulated step: steps it stands for
  // One per simulated step; once a step is simulated, only the first steps' (the ones `ops`
  // keeps) are left whole, the others empty.
  std::vector<OpGraph> graphs;
  std::vector<bool> launched_per_op;  // per simulated step: the host launched its ops one by one
  // Every op as it ran, in the first simulated steps only (at least prefill and the first
  // decode step, and every traced step), unless RunControl::keep_every_op asked for all of them.
  std::vector<OpInstance> ops;
  // Over every simulated step, taken as each ended (experiment/run_summary.hpp): the op table,
  // the layer table, and each step's ops' dynamic energy on the chips that ran them.
  std::vector<OpSummary> op_summaries;
  std::vector<LayerSummary> layer_summaries;
  std::vector<EnergyParts> step_op_energy;
  // Resource timelines of the traced steps (setup.trace_steps): one per pipeline stage's
  // simulated chip, and the fabric's links (multi-chip runs). experiment/trace.hpp writes them.
  std::vector<TraceSink> traces;
  TraceSink link_trace;
  std::vector<Picoseconds> step_end_ps;  // per simulated step: when it ended (the next one started)
  std::vector<std::uint64_t> step_link_bytes;  // per simulated step: bytes over all links, each hop counted
  std::string topology;           // "" for one chip
  // How the run departs from an even split, for people to see (KV heads replicated, stages
  // with unequal layers).
  std::vector<std::string> notes;
  double prefill_comm_s = 0, prefill_exposed_comm_s = 0;  // collectives in prefill, and how much no compute hid
  double decode_comm_s = 0, decode_exposed_comm_s = 0;    // per decode step (mean)
  std::vector<Fabric::LinkUse> links;  // over the whole run
  std::uint64_t events = 0, server_jobs = 0;
  // The work guard's estimate, made before the run: events, with server jobs counted as a tenth
  // of an event each (what a run costs in time goes as this, not as events alone).
  double estimated_work = 0;
  double wall_s = 0;
  // Segments replayed instead of simulated (Experiment::all_layers); in no output, which is the
  // same either way.
  int replayed_segments = 0;
  // Tokens per second of one replica (throughput_tok_s; every replica serves its own batch at
  // the same pace), and of all replicas together.
  double throughput_tok_s() const { return static_cast<double>(setup.batch * setup.generate) / total_s; }
  double replica_throughput_tok_s() const { return throughput_tok_s(); }
  double total_throughput_tok_s() const { return throughput_tok_s() * static_cast<double>(setup.replicas); }
  std::int64_t replica_chips() const { return setup.tp * setup.pp * setup.ep; }
  // The chips that ran each simulated op: one chip per pipeline stage is simulated, and its
  // tensor- and expert-parallel peers run the same ops in lockstep.
  std::int64_t stage_chips() const { return setup.tp * setup.ep; }
  std::int64_t total_chips() const { return replica_chips() * setup.replicas; }
};

// Checks that the model fits (throws InputError saying how much is needed and available),
// then simulates, in a fresh SystemC kernel: call it as often as needed. `control` hears of
// each simulated phase (prefill, decode steps) and may cancel between them (Cancelled).
// (The CLI shows it as sim/progress_line.hpp's line, as every long command does.)
ExperimentResult run_experiment(const Experiment& e, const RunControl& control);
// `e` with the weights' and activations' types of its model's checkpoint (fp8 for an fp8
// checkpoint, mxfp4 experts for gpt-oss; weight-only where the chip lacks the format's rate)
// unless a setting gave them (Experiment::precision_given); the KV cache's type is kept. The
// entry points call it (run_experiment, PassSimulator, run_serving, the CLI's flags); a model
// or hardware that does not load leaves `e` as it is, for the run to refuse with its message.
Experiment resolve_checkpoint_precision(Experiment e);

// The analytic side of a run without simulating it: the same checks, machine, steps and graphs,
// every op's bound and each phase's (collectives included, as a run computes them), intensities,
// the decode speed of light and memory per chip; simulated times are 0. A model that does not
// fit is not refused: `memory` says what it needs. As fast as building the graphs.
ExperimentResult analyze_experiment(const Experiment& e);

// One forward pass (a serving iteration) as simulated on an experiment's machine.
struct PassOutcome {
  double seconds = 0;             // from the first launch to the last op's end
  double flops = 0, bytes = 0;    // of the pass's ops
  double comm_s = 0;              // time in collectives
  // Its dynamic energy on every chip of the instance (experiment/energy.hpp; 0 without [energy]).
  double energy_j = 0;
  // The analytic bound of the pass (the run's: the longer of its critical path of op bounds and
  // its busiest resource), which the simulated time must not beat.
  double bound_s = 0;
  // Its ops launched one by one from the host (Launch::per_op, or prefill_per_op with a prompt
  // in the pass), not as one graph.
  bool launched_per_op = false;
  std::uint64_t events = 0, server_jobs = 0;
  double wall_s = 0;              // what simulating it took
  int replayed_segments = 0;      // replayed, not simulated (in no output: the outcome is the same)
  // Each pipeline stage's part, from the pass's start: its first op's start and its last op's
  // end on the stage's chips (the sends to the next stage are the links', not counted). One
  // stage without pipeline parallelism. A pipelined server starts the next micro-batch on a
  // stage when that stage is done with this one.
  struct StageSpan {
    double begin_s = 0, end_s = 0;
  };
  std::vector<StageSpan> stages;
};

// Simulates forward passes on an experiment's machine (hardware, model, dtypes, attention,
// parallelism, topology, near-memory policy, launch mode; its batch and lengths are not used),
// each in a fresh SystemC kernel on idle chips, so the same pass always takes the same time.
class PassSimulator {
 public:
  // Checks the machine once; throws InputError as run_experiment does.
  explicit PassSimulator(const Experiment& e);
  ~PassSimulator();
  PassSimulator(const PassSimulator&) = delete;
  PassSimulator& operator=(const PassSimulator&) = delete;
  const HardwareSpec& hardware() const;
  const ModelConfig& model() const;
  const std::vector<std::string>& notes() const;
  std::string topology() const;  // "" for one chip
  // `pass` gets the experiment's tp, pp and ep (one micro-batch; with ep > 1 its groups are one
  // EP rank's sequences, attention being data parallel); throws InputError for a pass the
  // model cannot run. Every layer is simulated.
  PassOutcome simulate(ForwardPass pass) const;
  // The same pass with layer replay (components/layer_replay.hpp): a layer that starts from the
  // same machine state as an earlier identical one is replayed from it, not simulated. Exactly
  // simulate()'s outcome (wall time aside), about L/3 times faster for L layers; segments
  // recorded in earlier passes of this simulator are replayed too (not thread-safe: one
  // simulator per thread).
  PassOutcome simulate_sampled(const ForwardPass& pass) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The topology a run on `chips` chips with TP groups of `tp` uses when none is given: a switch
// for NVLink (links.fabric switch), a full mesh for links.fabric mesh (Infinity Fabric); for ICI
// (torus) the most cubic torus whose leading dimensions a TP group spans.
std::string default_topology(const HardwareSpec& hw, std::int64_t chips, std::int64_t tp);

// "tensor parallel 2 x expert parallel 4 x pipeline 2": the degrees above 1 ("" for none).
std::string parallelism_name(std::int64_t tp, std::int64_t ep, std::int64_t pp);

// Memory the experiment needs in HBM (per chip).
MemoryNeed memory_need(const ModelConfig& m, const Experiment& e);

}  // namespace roofsim
