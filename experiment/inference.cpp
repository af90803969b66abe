#include "experiment/inference.hpp"
#include "experiment/energy.hpp"
#include "experiment/machine_setup.hpp"
#include "experiment/run_checks.hpp"
#include "experiment/step_accounts.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <tuple>

#include <unistd.h>

#include "components/graph_run.hpp"
#include "components/time_intervals.hpp"
#include "components/tiling.hpp"
#include "components/sim_context.hpp"
#include "experiment/collective.hpp"
#include "experiment/run_bounds.hpp"
#include "core/config_reader.hpp"
#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/presets.hpp"
#include "validation/analytic.hpp"
#include "validation/collective_bounds.hpp"
#include "validation/workload_bounds.hpp"
#include "workloads/checkpoint_precision.hpp"
#include "workloads/chip_layout.hpp"

namespace roofsim {

namespace {

// What the run around the driver does with its phases: builds each phase's graph in
// r.graphs before the phase starts, takes each phase's results as it ends (from then on the
// driver no longer needs them), and lets a phase's graph go once its run is gone. Unset: the
// graphs are all built and the results stay in the driver.
struct PhaseHooks {
  std::function<void(std::size_t)> build;
  std::function<void(std::size_t, std::vector<OpResult>&, Picoseconds, Picoseconds)> take;
  std::function<void(std::size_t)> release;
};

// Drives the phases: prefill, then each decode step, each a graph run on the chip.
class InferenceDriver : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(InferenceDriver);
  // `memory`: segments recorded on a machine like this one in earlier simulations (nullptr:
  // this simulation's own).
  InferenceDriver(const sc_core::sc_module_name& name, std::vector<Chip*> chips, Fabric* fabric, ChipLayout layout,
                  ExperimentResult& r, const RunControl& control, ReplayMemory* memory, PhaseHooks hooks)
      : sc_core::sc_module(name), chips_(std::move(chips)), fabric_(fabric), layout_(layout), r_(r), control_(control),
        replay_memory_(memory ? memory : &own_memory_), hooks_(std::move(hooks)) {
    // GraphRun holds its phase's results by reference: they must not move.
    results.reserve(r_.graphs.size());
    SC_METHOD(kickoff);
  }
  // The phases' runs that are over: their results and graphs may go.
  void release_finished(std::size_t before) {
    for (std::size_t p = 0; p < before && p < runs_.size(); ++p) {
      if (!runs_[p]) continue;
      runs_[p].reset();
      if (!hooks_.take) continue;
      std::vector<OpResult>().swap(results[p]);
      if (hooks_.release) hooks_.release(p);
    }
  }
  bool cancelled = false;
  std::vector<std::vector<OpResult>> results;
  std::vector<Picoseconds> phase_start, phase_end;
  std::vector<std::uint64_t> phase_link_bytes;  // bytes over all links during each phase
  int replayed_segments = 0;

 private:
  void kickoff() {
    SimulationContext::guarded([this] { run_phase(0); });
  }

  void run_phase(std::size_t i) {
    if (i > 0 && control_.progress) {
      control_.report(i, r_.graphs.size(), i == 1 ? "prefill" : "decode step " + std::to_string(r_.simulated_steps[i - 1]));
    }
    // Phase i - 1's run is still on the stack (its end called this); the ones before are over.
    if (i >= 2) release_finished(i - 1);
    if (i == r_.graphs.size()) return;
    // Stopping between phases leaves the kernel with nothing to do: sc_start returns.
    if (control_.stop_requested()) {
      cancelled = true;
      return;
    }
    const bool tracing = static_cast<int>(i) < r_.setup.trace_steps;
    for (Chip* c : chips_) {
      c->set_tracing(tracing);
      c->trace_sink().new_step();
    }
    if (fabric_) {
      fabric_->set_tracing(tracing);
      fabric_->trace_sink().new_step();
    }
    if (hooks_.build) hooks_.build(i);
    results.emplace_back();
    phase_start.push_back(now_ps());
    runs_.push_back(std::make_unique<GraphRun>(chips_, r_.graphs[i], results.back(), fabric_, layout_));
    runs_.back()->replay_layers(r_.setup.all_layers ? nullptr : replay_memory_);
    runs_.back()->launch_per_op(r_.launched_per_op.at(i));
    runs_.back()->use_allreduce(r_.setup.allreduce);
    const std::uint64_t link_bytes_before = fabric_ ? fabric_->link_bytes_total() : 0;
    runs_.back()->start([this, i, link_bytes_before] {
      phase_end.push_back(now_ps());
      phase_link_bytes.push_back(fabric_ ? fabric_->link_bytes_total() - link_bytes_before : 0);
      replayed_segments += runs_.back()->replayed_segments();
      if (hooks_.take) hooks_.take(i, results[i], phase_start[i], phase_end[i]);
      run_phase(i + 1);
    });
  }

  std::vector<Chip*> chips_;
  Fabric* fabric_;
  ChipLayout layout_;
  ExperimentResult& r_;
  const RunControl& control_;
  ReplayMemory own_memory_;
  ReplayMemory* replay_memory_;  // segments recorded in this simulation (or earlier ones), replayed in any of its steps
  PhaseHooks hooks_;
  std::vector<std::unique_ptr<GraphRun>> runs_;  // per phase; null once released
};

}  // namespace

std::string default_topology(const HardwareSpec& hw, std::int64_t chips, std::int64_t tp) {
  const std::string fabric = !hw.links.fabric.empty() ? hw.links.fabric : hw.links.kind == "ici" ? "torus" : "switch";
  if (fabric == "switch") return "switch:" + std::to_string(chips);
  if (fabric == "mesh") return "mesh:" + std::to_string(chips);
  // A torus as close to a cube as the chip count allows, among those whose leading dimensions
  // a TP group of `tp` chips spans (its all-reduces need links of their own).
  auto spread = [](const std::vector<std::int64_t>& d) { return *std::max_element(d.begin(), d.end()) - *std::min_element(d.begin(), d.end()); };
  std::vector<std::int64_t> best;
  for (std::int64_t a = 1; a <= chips; ++a) {
    if (chips % a) continue;
    for (std::int64_t b = 1; a * b <= chips; ++b) {
      if ((chips / a) % b) continue;
      const std::vector<std::int64_t> dims{a, b, chips / a / b};
      if (tp != 1 && tp != a && tp != a * b && tp != chips) continue;
      if (best.empty() || spread(dims) < spread(best)) best = dims;
    }
  }
  std::string t;
  for (std::int64_t d : best) {
    if (d > 1) t += (t.empty() ? "" : "x") + std::to_string(d);
  }
  return t.empty() ? std::to_string(chips) : t;
}

namespace {

// `simulate` false: the same checks, steps, graphs and bounds without simulating (analysis);
// a model that does not fit is then not refused (memory says so).
ExperimentResult simulate_experiment(const Experiment& e, const RunControl& control, bool simulate = true);

}  // namespace

ExperimentResult run_experiment(const Experiment& e, const RunControl& control) {
  try {
    return simulate_experiment(e, control);
  } catch (const Cancelled&) {
    throw;
  } catch (const InputError& err) {
    if (e.set_in_file.empty()) throw;
    throw located_in_experiment_file(err, e);
  }
}

namespace {

// What the phases did: per phase, its ops' results and when it started and ended.
struct PhaseResults {
  std::vector<std::vector<OpResult>> results;
  std::vector<Picoseconds> phase_start, phase_end;
  bool cancelled = false;
};

// Runs r.graphs one after another on fresh chips (one per pipeline stage) and the fabric, in a
// fresh SystemC kernel; fills r's counters, traces, link use and step ends. `memory` keeps
// the segments recorded on this machine by earlier simulations (nullptr: none).
PhaseResults execute_phases(ExperimentResult& r, const PreparedMachine& machine, const RunControl& control,
                            ReplayMemory* memory = nullptr, PhaseHooks hooks = {}) {
  const Experiment& e = r.setup;
  const std::unique_ptr<Topology>& topology = machine.topology;
  const ChipLayout layout = machine.layout;
  SimulationContext kernel;  // before the modules, destroyed after them
  auto t0 = std::chrono::steady_clock::now();
  // One simulated chip per pipeline stage (its TP group runs in lockstep).
  std::vector<std::unique_ptr<Chip>> stage_chips;
  std::vector<Chip*> chip_ptrs;
  for (std::int64_t s = 0; s < e.pp; ++s) {
    stage_chips.push_back(std::make_unique<Chip>(("chip" + std::to_string(s)).c_str(), r.hw));
    stage_chips.back()->set_near_memory(e.near_memory);
    chip_ptrs.push_back(stage_chips.back().get());
  }
  std::unique_ptr<Fabric> fabric;
  if (topology) fabric = std::make_unique<Fabric>("fabric", r.hw, *topology);
  InferenceDriver driver("driver", chip_ptrs, fabric.get(), layout, r, control, memory, std::move(hooks));
  kernel.run();
  driver.release_finished(driver.results.size());
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.events = 0;
  r.server_jobs = 0;
  for (const auto& c : stage_chips) {
    r.events += c->stats().events;
    r.server_jobs += c->server_jobs();
  }
  if (fabric) r.events += fabric->stats().events;
  for (const auto& c : stage_chips) r.traces.push_back(c->trace_sink());
  if (fabric) {
    r.links = fabric->link_use();
    r.link_trace = fabric->trace_sink();
  }
  r.step_end_ps = driver.phase_end;
  r.step_link_bytes = driver.phase_link_bytes;
  r.replayed_segments = driver.replayed_segments;

  PhaseResults out;
  out.results = std::move(driver.results);
  out.phase_start = std::move(driver.phase_start);
  out.phase_end = std::move(driver.phase_end);
  out.cancelled = driver.cancelled;
  return out;
}

ExperimentResult simulate_experiment(const Experiment& given, const RunControl& control, bool simulate) {
  const Experiment e = resolve_checkpoint_precision(given);
  // The CLI and experiment files check these too; the library's other callers (Python,
  // sweeps) reach here directly.
  check_experiment_sizes(e);
  ExperimentResult r;
  r.setup = e;
  PreparedMachine machine = prepare_machine(e);
  r.hw = machine.hw;
  r.model = machine.model;
  r.notes = machine.notes;
  const std::unique_ptr<Topology>& topology = machine.topology;
  const ChipLayout layout = machine.layout;
  const std::int64_t chips = e.tp * e.pp * e.ep;
  if (topology) r.topology = topology->name();
  const std::int64_t context = e.prompt + e.generate;
  if (r.model.max_context > 0 && context > r.model.max_context && !e.allow_long_context) {
    throw InputError("${prompt} " + std::to_string(e.prompt) + " + ${gen} " + std::to_string(e.generate) + " = " +
                     std::to_string(context) + " tokens: beyond " + r.model.name + "'s maximum context of " +
                     std::to_string(r.model.max_context) + " (${allow_long_context} simulates it anyway)");
  }
  const Precision& p = e.precision;
  const CommSetup links{topology.get(), layout, e.allreduce};
  // Prefill's graph, built once for the memory estimate, the work guard and the run.
  r.graphs.push_back(build_forward(r.model, pass_for(e, 0), p, e.attention));
  r.memory = memory_need_of(r.model, e, r.graphs[0]);
  if (simulate && r.memory.total() > r.hw.hbm.capacity_bytes) {
    // The settings that decide the need are named with their values (as flags, or at their
    // experiment file's lines): the model (a file is named with its path), the sequences, the
    // context, the chips and the dtypes.
    const std::string model = r.model.name + (!e.model_config ? " (${model} " + e.model + ")" : "");
    const std::string n = std::to_string(e.batch);
    std::string hints = (e.batch > 1 ? "fewer sequences than ${batch} " + n + ", " : std::string()) + "a shorter context than ${prompt} " +
                        std::to_string(e.prompt) + " + ${gen} " + std::to_string(e.generate) + ", more chips (${tp} " +
                        std::to_string(e.tp) + ", ${pp} " + std::to_string(e.pp) + ")";
    hints += ", or smaller ${weights_dtype} " + std::string(dtype_name(p.weights)) + " / ${kv_dtype} " + std::string(dtype_name(p.kv));
    throw InputError(model + " does not fit in " + (chips > 1 ? "each of " + std::to_string(chips) + " x " : std::string("one ")) +
                     r.hw.description + ": it needs " +
                     format_si(r.memory.total(), "B", 2) + " (weights " + format_si(r.memory.weights, "B", 2) +
                     ", KV cache " + format_si(r.memory.kv_cache, "B", 2) + ", activations " +
                     format_si(r.memory.activations, "B", 2) + ") and HBM holds " +
                     format_si(r.hw.hbm.capacity_bytes, "B", 2) + " (hbm.capacity_bytes of " + r.hw.name + "; try " + hints + ")");
  }

  r.decode_steps = static_cast<int>(e.generate - 1);
  r.simulated_steps = {0};
  r.step_weights = {1.0};
  if (r.decode_steps > 0) {
    const std::int64_t stride = e.decode_stride > 0 ? e.decode_stride : (r.decode_steps + 127) / 128;
    for (int i = 1; i <= r.decode_steps; i += static_cast<int>(stride)) r.simulated_steps.push_back(i);
    if (r.simulated_steps.back() != r.decode_steps) r.simulated_steps.push_back(r.decode_steps);
    // Linear interpolation between simulated steps: step i between x_j and x_j+1 counts
    // (1 - t) towards x_j and t towards x_j+1.
    r.step_weights.assign(r.simulated_steps.size(), 0.0);
    r.step_weights[0] = 1.0;
    std::size_t j = 1;
    for (int i = 1; i <= r.decode_steps; ++i) {
      while (j + 1 < r.simulated_steps.size() && r.simulated_steps[j + 1] <= i) ++j;
      if (r.simulated_steps[j] == i || j + 1 == r.simulated_steps.size()) {
        r.step_weights[j] += 1.0;
        continue;
      }
      const double t = static_cast<double>(i - r.simulated_steps[j]) /
                       static_cast<double>(r.simulated_steps[j + 1] - r.simulated_steps[j]);
      r.step_weights[j] += 1.0 - t;
      r.step_weights[j + 1] += t;
    }
  }
  // The first and last decode steps' graphs serve the work guard before the others are built.
  const std::vector<int>& steps = r.simulated_steps;
  auto graph_of = [&](int step) { return build_forward(r.model, pass_for(e, step), p, e.attention); };
  if (steps.size() > 1) r.graphs.push_back(graph_of(steps[1]));
  std::optional<OpGraph> last;
  if (steps.size() > 2) last = graph_of(steps.back());
  if (simulate) {
    r.estimated_work = check_experiment_work(r, e, r.graphs[0], steps.size() > 1 ? &r.graphs[1] : nullptr,
                                  last ? &*last : steps.size() > 1 ? &r.graphs[1] : nullptr);
  }
  // The other steps' graphs are built as their steps start, and go once taken (StepAccounts).
  // (A graph not built yet, or gone, has no ops.)
  r.graphs.resize(steps.size());
  if (last) r.graphs.back() = std::move(*last);
  for (int step : steps) r.launched_per_op.push_back(launches_per_op(e.launch, step == 0));
  // The first steps' op records are kept: the graph drawing's two, and every traced step.
  StepAccounts accounts(r, links, control.keep_every_op ? steps.size() : std::max<std::size_t>(2, static_cast<std::size_t>(std::max(0, e.trace_steps))));
  PhaseHooks hooks;
  hooks.build = [&](std::size_t i) {
    if (r.graphs[i].size() == 0) r.graphs[i] = graph_of(steps[i]);
  };
  hooks.take = [&](std::size_t i, std::vector<OpResult>& results, Picoseconds start, Picoseconds end) { accounts.take(i, results, start, end); };
  hooks.release = [&](std::size_t i) {
    if (i >= accounts.kept()) r.graphs[i] = OpGraph();
  };
  if (simulate) {
    const PhaseResults driver = execute_phases(r, machine, control, nullptr, hooks);
    if (driver.cancelled) throw Cancelled();
    if (driver.phase_end.size() != r.graphs.size()) throw std::logic_error("simulation stopped before the last phase");
  } else {
    // No simulated time: every phase and op starts and ends at 0; where an op would run
    // (near-memory or not) is decided as the chips decide it.
    for (std::size_t i = 0; i < steps.size(); ++i) {
      hooks.build(i);
      const OpGraph& g = r.graphs[i];
      std::vector<OpResult> results(g.size());
      for (OpId v = 0; v < g.size(); ++v) {
        const OpNode& op = g.op(v);
        results[v].near_memory = op.is_gemm && !op.is_collective && runs_near_memory(r.hw, e.near_memory, op.gemm);
      }
      accounts.take(i, results, 0, 0);
      hooks.release(i);
    }
  }
  accounts.finish();
  return r;
}

}  // namespace

struct PassSimulator::Impl {
  Experiment setup;  // with every layer simulated (simulate), and with layer replay (simulate_sampled)
  Experiment replayed;
  PreparedMachine machine;
  // Segments recorded in earlier passes: each pass starts on an idle machine, so most of its
  // GEMMs, norms and collectives start as an earlier pass's did and are replayed.
  ReplayMemory replay_memory;
};

PassSimulator::PassSimulator(const Experiment& e) : impl_(std::make_unique<Impl>()) {
  impl_->setup = resolve_checkpoint_precision(e);
  impl_->setup.trace_steps = 0;
  impl_->setup.all_layers = true;
  impl_->replayed = impl_->setup;
  impl_->replayed.all_layers = false;
  impl_->machine = prepare_machine(impl_->setup);
}

PassSimulator::~PassSimulator() = default;
const HardwareSpec& PassSimulator::hardware() const { return impl_->machine.hw; }
const ModelConfig& PassSimulator::model() const { return impl_->machine.model; }
const std::vector<std::string>& PassSimulator::notes() const { return impl_->machine.notes; }
std::string PassSimulator::topology() const { return impl_->machine.topology ? impl_->machine.topology->name() : ""; }

namespace {

// The analytic bound of a pass's graph, as runs compute it for each phase.
double graph_bound(const Experiment& e, const PreparedMachine& machine, const OpGraph& g) {
  const CommSetup links{machine.topology.get(), machine.layout, e.allreduce};
  const std::vector<OpBound> bounds = op_bounds(g, machine.hw, links, e.near_memory);
  return std::max(critical_path_bound(g, bounds), resource_bound(g, machine.hw, e.near_memory, bounds));
}

PassOutcome simulate_pass(const Experiment& e, const PreparedMachine& machine, const ModelConfig& model, ForwardPass pass,
                          ReplayMemory* memory = nullptr) {
  put_machine(e, pass);  // with ep, a mixed pass's groups are one EP rank's sequences
  pass.microbatches = 1;
  ExperimentResult r;
  r.setup = e;
  r.hw = machine.hw;
  r.model = model;
  r.simulated_steps = {0};
  const bool holds_prefill = pass.groups.empty() ? pass.prefill : std::any_of(pass.groups.begin(), pass.groups.end(), [](const SequenceGroup& g) {
    return g.prefill;
  });
  r.launched_per_op = {launches_per_op(e.launch, holds_prefill)};
  r.graphs.push_back(build_forward(r.model, pass, e.precision, e.attention));
  const PhaseResults phases = execute_phases(r, machine, RunControl{}, memory);
  if (phases.phase_end.size() != 1) throw std::logic_error("simulation stopped before the pass ended");
  PassOutcome out;
  out.seconds = to_seconds(phases.phase_end[0] - phases.phase_start[0]);
  out.flops = r.graphs[0].total_flops();
  out.bytes = r.graphs[0].total_bytes();
  const Picoseconds start = phases.phase_start[0];
  std::vector<Picoseconds> first(static_cast<std::size_t>(e.pp), phases.phase_end[0]), last(static_cast<std::size_t>(e.pp), start);
  for (OpId v = 0; v < r.graphs[0].size(); ++v) {
    const OpNode& op = r.graphs[0].op(v);
    const OpResult& res = phases.results[0][v];
    if (op.is_collective) out.comm_s += res.seconds();
    if (op.send_to_next) continue;
    const std::size_t stage = static_cast<std::size_t>(op.device);
    first[stage] = std::min(first[stage], res.start_ps);
    last[stage] = std::max(last[stage], res.end_ps);
  }
  for (std::size_t s = 0; s < first.size(); ++s) {
    out.stages.push_back({to_seconds(std::min(first[s], last[s]) - start), to_seconds(last[s] - start)});
  }
  out.events = r.events;
  out.server_jobs = r.server_jobs;
  out.wall_s = r.wall_s;
  out.replayed_segments = r.replayed_segments;
  out.bound_s = graph_bound(e, machine, r.graphs[0]);
  out.energy_j = pass_dynamic_energy_j(r.hw, r.graphs[0], phases.results[0], static_cast<double>(r.stage_chips()),
                                       r.step_link_bytes.empty() ? 0 : r.step_link_bytes[0]);
  out.launched_per_op = r.launched_per_op[0];
  return out;
}

}  // namespace

PassOutcome PassSimulator::simulate(ForwardPass pass) const {
  return simulate_pass(impl_->setup, impl_->machine, impl_->machine.model, std::move(pass));
}

PassOutcome PassSimulator::simulate_sampled(const ForwardPass& pass) const {
  // Layer replay is exact: the same outcome as simulate(), without simulating every layer.
  return simulate_pass(impl_->replayed, impl_->machine, impl_->machine.model, pass, &impl_->replay_memory);
}

std::string parallelism_name(std::int64_t tp, std::int64_t ep, std::int64_t pp) {
  std::string out;
  for (const auto& [n, what] : {std::pair{tp, "tensor parallel "}, {ep, "expert parallel "}, {pp, "pipeline "}}) {
    if (n > 1) out += (out.empty() ? "" : " x ") + std::string(what) + std::to_string(n);
  }
  return out;
}

ExperimentResult analyze_experiment(const Experiment& e) { return simulate_experiment(e, RunControl{}, false); }

Experiment resolve_checkpoint_precision(Experiment e) {
  if (e.precision_given) return e;
  try {
    const ModelConfig m = e.model_config ? *e.model_config : load_model(e.model);
    if (m.quantization.empty()) return e;
    const HardwareSpec hw = e.hardware ? *e.hardware : load_hardware(e.hw);
    std::vector<std::string> notes;
    e.precision = checkpoint_precision(m, hw, e.precision, notes);
    e.precision_given = true;
    e.precision_source = "weights as the checkpoint declares them (" + m.quantization + ")";
    for (const std::string& n : notes) e.precision_source += "; " + n;
  } catch (const InputError&) {
    // The run refuses the model or hardware with its own message (prepare_machine).
  }
  return e;
}

}  // namespace roofsim
