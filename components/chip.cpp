#include "components/chip.hpp"

#include "components/matrix_unit.hpp"
#include "components/unit_model.hpp"
#include "components/memory_model.hpp"
#include "components/op_run.hpp"
#include "components/pim_run.hpp"

#include <tuple>

namespace roofsim {

Chip::Chip(const sc_core::sc_module_name& name, const HardwareSpec& hw, Granularity granularity)
    : sc_core::sc_module(name), hw_(hw), granularity_(granularity), limits_(tiling_limits(hw_)),
      matrix_events_("matrix_events", stats_), vector_events_("vector_events", stats_),
      memory_events_("memory_events", stats_), launcher_events_("launcher_events", stats_),
      matrix_port_("matrix_port"), vector_port_("vector_port") {
  // The unit families, as the hardware file's [matrix] and [vector] model name them.
  matrix_ = build_units("matrix_units", UnitFamily::matrix, hw_);
  vector_ = build_units("vector_units", UnitFamily::vector, hw_);
  matrix_port_.bind(*matrix_);
  vector_port_.bind(*vector_);
  hbm_ = std::make_unique<HbmChannels>("hbm", hw_.hbm, memory_events_);
  if (hw_.pim.present) {
    near_memory_units_ = std::make_unique<NearMemoryUnits>("near_memory_units", hw_.pim, hbm_->channel_count());
    near_memory_port_ = std::make_unique<ComputePort>("near_memory_port");
    near_memory_port_->bind(*near_memory_units_);
  }
  hbm_->attach_trace(&trace_, static_cast<int>(matrix_units() + vector_units()));
  dma_ = std::make_unique<DmaEngine>("dma", hw_.dma, hw_.hbm, hw_.tile_buffer_memory(), memory_events_, stats_);
  // The DMA engine reaches HBM through the memory model the hardware file names.
  front_memory_ = memory_model_of(hw_).build("memory", hw_, *hbm_);
  dma_->bind(front_memory_ ? *front_memory_ : static_cast<MemoryTarget&>(*hbm_));
  if (granularity_ == Granularity::fine) dma_->set_request_bytes(dma_->request_bytes() / 8);
  launcher_ = std::make_unique<QueuedResource>("launcher", stats_);
}

Chip::~Chip() = default;

void Chip::set_tracing(bool on) {
  // The tracks are named when a step is first traced: most simulations trace nothing, and a
  // serving run builds a chip per pass.
  if (on && trace_.tracks().empty()) {
    for (std::size_t i = 0; i < matrix_units(); ++i) trace_.add_track("matrix unit " + std::to_string(i));
    for (std::size_t i = 0; i < vector_units(); ++i) trace_.add_track("vector unit " + std::to_string(i));
    for (std::int64_t s = 0; s < hw_.hbm.stacks; ++s) trace_.add_track("HBM stack " + std::to_string(s));
    matrix_->trace_into(trace_, matrix_track(0));
    vector_->trace_into(trace_, vector_track(0));
    // The TLM transport calls: the DMA engine's to the memory it is bound to, the op runs' to
    // the unit families.
    dma_->trace_into(trace_, hw_.memory.model == "hbm" ? "HBM" : "memory model " + hw_.memory.model);
    matrix_port_.trace_into(trace_, "ops", "matrix units");
    vector_port_.trace_into(trace_, "ops", "vector units");
  }
  trace_.enabled = on;
}

std::uint64_t Chip::server_jobs() const {
  std::uint64_t jobs = skipped_jobs_ + launcher_->timeline().jobs();
  for (std::size_t i = 0; i < matrix_->units(); ++i) jobs += matrix_->server(i).jobs();
  for (std::size_t i = 0; i < vector_->units(); ++i) jobs += vector_->server(i).jobs();
  for (std::size_t c = 0; c < hbm_->channel_count(); ++c) jobs += hbm_->channel(c).jobs();
  for (std::size_t i = 0; near_memory_units_ && i < near_memory_units_->units(); ++i) jobs += near_memory_units_->server(i).jobs();
  jobs += dma_->resident_server().jobs();
  if (front_memory_) {
    for (const Timeline* t : front_memory_->servers()) jobs += t->jobs();
  }
  return jobs;
}

std::uint64_t Chip::allocate(std::uint64_t bytes) {
  const std::uint64_t address = next_address_;
  const std::uint64_t page = 4096;
  next_address_ += (bytes + page - 1) / page * page;
  return address;
}

void Chip::run_gemm(const GemmShape& g, OpResult& result, Callback done, const std::string& name) {
  check_shape(g, "gemm");
  if (runs_near_memory(hw_, near_memory_, g)) {
    auto run = std::make_unique<PimRun>(*this, g);
    result.near_memory = true;
    result.steps = run->step_count();
    result.plan = "near-memory units, " + std::to_string(run->step_count()) + " steps";
    launch(std::move(run), result, std::move(done));
    return;
  }
  const GemmPlan& plan = gemm_plan(g);
  result.steps = plan.steps();
  result.plan = "block " + std::to_string(plan.bm) + "x" + std::to_string(plan.bn) + "x" +
                std::to_string(plan.bk) + ", unit tile " + std::to_string(plan.tm) + "x" +
                std::to_string(plan.tn) + ", " + std::to_string(plan.steps()) + " steps, " + std::to_string(plan.stages) + " stages" +
                (plan.n_outer ? ", n outer" : "") + (plan.swap_ab ? ", A and B swapped" : "") +
                (plan.whole_tiles ? ", whole tiles at the edges" : "") + (plan.edge_rows_loaded ? ", edge boxes load past the last row" : "") +
                (g.scale_block_k > 0 ? ", accumulators promoted per " + std::to_string(g.scale_block_k) + " of K" : "") +
                (g.reads_resident ? ", operands resident in the " + hw_.tile_buffer : "");
  if (const std::int64_t padding = padding_tile_rows(g, plan.tm); padding > 0) {
    result.plan += ", " + std::to_string(padding) + " padding row" + (padding > 1 ? "s" : "") + " of tiles (clusters of " +
                   std::to_string(g.kernel_cluster_m) + " along M)";
  }
  // The plan is shared by every shape with the same key; the run takes this op's own shape
  // (its kernel's CTA counts, schedule and clusters are not in the key).
  GemmPlan op_plan = plan;
  op_plan.shape = g;
  auto run = std::make_unique<GemmRun>(*this, op_plan);
  run->set_reads_resident(g.reads_resident);
  run->trace_name = trace_.enabled ? trace_.intern(name) : -1;
  const std::int64_t parts = plan.reduce_parts;
  if (parts == 0) {
    launch(std::move(run), result, std::move(done));
    return;
  }
  // Split-K: each of the `parts` jobs of a tile leaves an fp32 partial tile; a second kernel
  // reads them all and writes the output. The op ends when that kernel does.
  result.plan += ", split-K " + std::to_string(parts) + ", partials reduced by a second kernel";
  VectorShape reduce = plan.reduction();
  // The partials were written just now: where they fit the L2, the second kernel reads them there.
  reduce.reads_resident = static_cast<double>(tensor_bytes(reduce.elements_in, reduce.dtype)) <= hw_.tile_buffer_memory().resident_capacity();
  auto partials = std::make_shared<OpResult>();
  OpResult* res = &result;
  launch(std::move(run), result, [this, res, partials, reduce, name, done = std::move(done)]() mutable {
    run_vector(reduce, *partials, [res, partials, done = std::move(done)] {
      res->end_ps = partials->end_ps;
      res->bytes_read += partials->bytes_read;
      res->bytes_written += partials->bytes_written;
      res->onchip_bytes_read += partials->onchip_bytes_read;
      res->events += partials->events;
      if (done) done();
    }, name + " split-K reduction");
  });
}

const GemmPlan& Chip::gemm_plan(const GemmShape& g) {
  // A kernel that counts its CTAs keeps a context FMHA's CTAs whole, and a decode kernel's do
  // not: both change the plan (components/tiling.cpp, candidate); so do a library without
  // split-K and a path's fixed tile.
  const GemmPlanKey key{g.batch, g.m, g.n, g.k, static_cast<int>(g.a), static_cast<int>(g.b), static_cast<int>(g.c),
                        g.fused_attention, g.v_n, g.shared_kv, g.kernel_k_splits, g.scale_block_k, g.kernel_ctas > 0, g.decode_kernel, g.grouped,
                        g.kernel_no_split_k, g.kernel_tile_m, g.kernel_tile_n, g.kernel_mma_sync, g.kernel_swap_ab, g.kernel_k_bytes,
                        g.kernel_tuned_m};
  auto it = plans_.find(key);
  if (it == plans_.end()) it = plans_.emplace(key, plan_gemm(g, hw_.matrix, limits_)).first;
  return it->second;
}

void Chip::run_vector(const VectorShape& v, OpResult& result, Callback done, const std::string& name) {
  check_shape(v, "vector op");
  VectorPlan plan = plan_vector(v, limits_);
  result.steps = plan.steps();
  result.plan = "chunk " + std::to_string(plan.chunk_elements) + " elements, " +
                std::to_string(plan.steps()) + " steps" + (v.reads_resident ? ", input resident in the " + hw_.tile_buffer : "");
  auto run = std::make_unique<VectorRun>(*this, plan);
  run->set_reads_resident(v.reads_resident);
  run->trace_name = trace_.enabled ? trace_.intern(name) : -1;
  launch(std::move(run), result, std::move(done));
}

void Chip::launch(std::unique_ptr<OpRun> run, OpResult& result, Callback done) {
  OpRun* r = run.get();
  runs_.emplace(r, std::move(run));
  ++in_flight_;
  result.start_ps = now_ps();
  OpResult* res = &result;
  auto finish = [this, r, res, done = std::move(done)] {
    res->end_ps = now_ps();
    res->flops = r->flops;
    res->padded_flops = r->padded_flops;
    res->bytes_read = r->bytes_read;
    res->bytes_written = r->bytes_written;
    res->onchip_bytes_read = r->onchip_bytes_read;
    res->events = r->events + 1;  // + the launch
    --in_flight_;
    // The run is freed by a later callback: this one is still executing inside it.
    ++pending_cleanups_;
    launcher_events_.at(now_ps(), [this, r] {
      --pending_cleanups_;
      runs_.erase(r);
    });
    if (done) done();
  };
  launcher_->submit(ceil_ps(hw_.op_overhead_s), 0, [r, finish = std::move(finish)]() mutable {
    r->start(std::move(finish));
  });
}

bool ChipState::operator==(const ChipState& o) const {
  return std::tie(matrix, vector, channels, near_memory, resident, memory, launcher, address_phase, cleanups) ==
         std::tie(o.matrix, o.vector, o.channels, o.near_memory, o.resident, o.memory, o.launcher, o.address_phase, o.cleanups);
}

ChipCounters ChipCounters::operator-(const ChipCounters& o) const {
  return {events - o.events, bytes_read - o.bytes_read, bytes_written - o.bytes_written, jobs - o.jobs,
          matrix_turns - o.matrix_turns, vector_turns - o.vector_turns, address - o.address};
}

ChipCounters& ChipCounters::operator+=(const ChipCounters& o) {
  events += o.events;
  bytes_read += o.bytes_read;
  bytes_written += o.bytes_written;
  jobs += o.jobs;
  matrix_turns += o.matrix_turns;
  vector_turns += o.vector_turns;
  address += o.address;
  return *this;
}

bool Chip::quiescent() const {
  return in_flight_ == 0 && matrix_events_.empty() && vector_events_.empty() && memory_events_.empty() &&
         launcher_->events().empty() && launcher_events_.size() == pending_cleanups_ && dma_->idle();
}

namespace {
// Where the next job lands among `n` interchangeable resources: the first of the list.
template <typename Busy>
std::vector<Picoseconds> from_next(std::size_t first, std::size_t n, Busy busy) {
  std::vector<Picoseconds> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = busy((first + i) % n);
  return out;
}
}  // namespace

ChipState Chip::state(Picoseconds now) const {
  ChipState s;
  const std::uint64_t granule = hbm_->interleave_bytes(), channels = hbm_->channel_count();
  const ComputeTarget &matrix = *matrix_, &vector = *vector_;
  s.matrix = from_next(next_matrix_ % matrix.units(), matrix.units(), [&](std::size_t i) { return matrix.server(i).busy_after(now); });
  s.vector = from_next(next_vector_ % vector.units(), vector.units(), [&](std::size_t i) { return vector.server(i).busy_after(now); });
  s.channels = from_next((next_address_ / granule) % channels, channels, [&](std::size_t i) { return hbm_->channel(i).busy_after(now); });
  for (std::size_t i = 0; near_memory_units_ && i < near_memory_units_->units(); ++i) s.near_memory.push_back(near_memory_units_->server(i).busy_after(now));
  s.resident = dma_->resident_server().busy_after(now);
  if (front_memory_) {
    for (const Timeline* t : front_memory_->servers()) s.memory.push_back(t->busy_after(now));
  }
  s.launcher = launcher_->timeline().busy_after(now);
  // Near-memory units split their weights over the channels by position, not by address: with
  // them, channels are not interchangeable and the address must fall on the same channel.
  const bool near_memory = hw_.pim.present && near_memory_ != NearMemory::off;
  s.address_phase = next_address_ % (near_memory ? granule * channels : granule);
  s.cleanups = pending_cleanups_;
  return s;
}

ChipCounters Chip::counters() const {
  return {stats_.events, stats_.bytes_read, stats_.bytes_written, server_jobs(), next_matrix_, next_vector_, next_address_};
}

void Chip::skip_to(Picoseconds until, const ChipState& end, const ChipCounters& delta) {
  stats_.events += delta.events - pending_cleanups_;  // the queued clean-ups count when they run
  stats_.bytes_read += delta.bytes_read;
  stats_.bytes_written += delta.bytes_written;
  skipped_jobs_ += delta.jobs;
  next_matrix_ += delta.matrix_turns;
  next_vector_ += delta.vector_turns;
  next_address_ += delta.address;
  const std::size_t units_m = matrix_->units(), units_v = vector_->units();
  const std::size_t m = next_matrix_ % units_m, v = next_vector_ % units_v;
  const std::size_t c = (next_address_ / hbm_->interleave_bytes()) % hbm_->channel_count();
  for (std::size_t i = 0; i < units_m; ++i) matrix_->server((m + i) % units_m).skip(until + end.matrix[i], 0, 0);
  for (std::size_t i = 0; i < units_v; ++i) vector_->server((v + i) % units_v).skip(until + end.vector[i], 0, 0);
  for (std::size_t i = 0; i < hbm_->channel_count(); ++i) {
    hbm_->channel((c + i) % hbm_->channel_count()).skip(until + end.channels[i], 0, 0);
  }
  for (std::size_t i = 0; near_memory_units_ && i < near_memory_units_->units(); ++i) near_memory_units_->server(i).skip(until + end.near_memory[i], 0, 0);
  dma_->resident_server().skip(until + end.resident, 0, 0);
  if (front_memory_) {
    const std::vector<Timeline*> servers = front_memory_->servers();
    for (std::size_t i = 0; i < servers.size(); ++i) servers[i]->skip(until + end.memory[i], 0, 0);
  }
  launcher_->timeline().skip(until + end.launcher, 0, 0);
}

void Chip::queue_cleanups(std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    ++pending_cleanups_;
    launcher_events_.at(now_ps(), [this] { --pending_cleanups_; });
  }
}

EventQueue& Chip::queue(int i) {
  EventQueue* queues[kQueues] = {&matrix_events_, &vector_events_, &memory_events_, &launcher_events_, &launcher_->events()};
  return *queues[i];
}

int Chip::dispatching_queue() const {
  const EventQueue* queues[kQueues] = {&matrix_events_, &vector_events_, &memory_events_, &launcher_events_, &launcher_->events()};
  for (int i = 0; i < kQueues; ++i) {
    if (queues[i]->dispatching()) return i;
  }
  return -1;
}

}  // namespace roofsim
