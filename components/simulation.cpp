#include "components/simulation.hpp"

#include <chrono>
#include <memory>

#include "components/sim_context.hpp"
#include "core/error.hpp"
#include "core/format.hpp"

namespace roofsim {

namespace {

// Starts its chip's ops at time zero and chains each to the completion of the previous one.
class OpSequence : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(OpSequence);
  OpSequence(const sc_core::sc_module_name& name, Chip& chip, const std::vector<OpSpec>& ops, const std::vector<double>& launched_at_s)
      : sc_core::sc_module(name), chip_(chip), ops_(ops), launched_at_s_(launched_at_s), results_(ops.size()) {
    SC_METHOD(kickoff);  // runs once at initialization, time 0
  }
  const std::vector<OpResult>& results() const { return results_; }
  Picoseconds end_ps() const { return end_ps_; }

 private:
  void kickoff() {
    SimulationContext::guarded([this] { start(0); });
  }
  void start(std::size_t i) {
    if (i == ops_.size()) {
      end_ps_ = now_ps();
      return;
    }
    if (i < launched_at_s_.size()) {
      const Picoseconds launched = ceil_ps(launched_at_s_[i]);
      if (launched > now_ps()) {  // the chip waits for the host
        chip_.matrix_events().at(launched, [this, i] { start(i); });
        return;
      }
    }
    const OpSpec& op = ops_[i];
    results_[i].name = op.name;
    auto next = [this, i] { start(i + 1); };
    if (op.is_gemm) {
      chip_.run_gemm(op.gemm, results_[i], next);
    } else {
      chip_.run_vector(op.vector, results_[i], next);
    }
  }

  Chip& chip_;
  const std::vector<OpSpec>& ops_;
  const std::vector<double>& launched_at_s_;
  std::vector<OpResult> results_;
  Picoseconds end_ps_ = 0;
};

}  // namespace

SimulationOutcome simulate(const std::vector<ChipJob>& jobs, double max_events) {
  // Plans are checked before elaboration so that bad input never reaches the kernel.
  double events = 0, requests = 0;
  for (const ChipJob& job : jobs) {
    TilingLimits lim = tiling_limits(job.hw);
    const double request_bytes = std::max(1.0, job.hw.dma.request_bytes);
    for (const OpSpec& op : job.ops) {
      // The op's steps and unit jobs, and its memory requests (counted apart for the message).
      std::int64_t steps = 0, jobs_per_step = 0;
      double op_requests = 0;
      if (op.is_gemm) {
        check_shape(op.gemm, op.name);
        const GemmPlan plan = plan_gemm(op.gemm, job.hw.matrix, lim);
        steps = plan.steps();
        jobs_per_step = plan.tiles_per_block() * plan.bb;
        op_requests = static_cast<double>(plan.traffic_bytes()) / request_bytes;
      } else {
        check_shape(op.vector, op.name);
        const VectorPlan plan = plan_vector(op.vector, lim);
        steps = plan.steps();
        jobs_per_step = job.hw.vector.units;
        op_requests = static_cast<double>(plan.traffic_bytes()) / request_bytes;
      }
      events += estimated_op_events(steps, jobs_per_step, op_requests);
      requests += op_requests;
    }
  }
  if (max_events > 0 && events > max_events) {
    // Where most of the events are memory requests, the request size is what to change.
    const std::string why = requests > 0.5 * events ? "; " + format_si(requests, "", 1) + " of them memory requests of dma.request_bytes = " +
                                                          format_si(jobs.front().hw.dma.request_bytes, "B", 0)
                                                    : "";
    throw InputError("this simulation would take about " + format_si(events, "", 1) + " events (jobs counted as a tenth" + why +
                     "), more than the limit of " + format_si(max_events, "", 1) + ": raise ${max_events} (0: no limit)");
  }

  SimulationContext kernel;  // before the modules, destroyed after them
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<Chip>> chips;
  std::vector<std::unique_ptr<OpSequence>> sequences;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string n = "chip" + std::to_string(i);
    chips.push_back(std::make_unique<Chip>(n.c_str(), jobs[i].hw, jobs[i].granularity));
    chips.back()->set_near_memory(jobs[i].near_memory);
    if (!jobs[i].launched_at_s.empty() && jobs[i].launched_at_s.size() != jobs[i].ops.size()) {
      throw std::logic_error("simulate: launch times for " + std::to_string(jobs[i].launched_at_s.size()) + " of " +
                             std::to_string(jobs[i].ops.size()) + " ops");
    }
    sequences.push_back(std::make_unique<OpSequence>((n + "_ops").c_str(), *chips.back(), jobs[i].ops, jobs[i].launched_at_s));
  }
  auto t1 = std::chrono::steady_clock::now();
  kernel.run();
  auto t2 = std::chrono::steady_clock::now();

  SimulationOutcome out;
  out.elaboration_s = std::chrono::duration<double>(t1 - t0).count();
  out.wall_s = std::chrono::duration<double>(t2 - t1).count();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    ChipOutcome c;
    c.ops = sequences[i]->results();
    c.stats = chips[i]->stats();
    c.end_ps = sequences[i]->end_ps();
    c.server_jobs = chips[i]->server_jobs();
    out.events += c.stats.events;
    out.server_jobs += c.server_jobs;
    out.chips.push_back(std::move(c));
  }
  return out;
}

}  // namespace roofsim
