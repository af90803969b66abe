// The serving engine's parts: pools of identical instances and their workers.
#include "serving/pool.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/error.hpp"
#include "core/format.hpp"
#include "serving/kv_preemption.hpp"

namespace roofsim {

namespace {

using Clock = std::chrono::steady_clock;

// The pass of an iteration as the simulator gets it: prefill chunks each a group of their own
// (identical ones merged), and the decodes one group at their mean context. Decode attention
// kernels (flash-decoding, XQA) run every sequence of a batch in one launch whatever its
// length, and the mean keeps the keys read exact (to a token). Bucketed shapes round every
// token count and context, the decodes' mean included, to the grid.
std::vector<SequenceGroup> iteration_groups(const std::vector<ScheduledWork>& work, int buckets) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> prefills;
  std::int64_t decode_count = 0, decode_context_sum = 0, decode_tokens = 1;
  for (const ScheduledWork& w : work) {
    if (w.prefill) {
      const std::int64_t n = bucket_tokens(w.new_tokens, buckets);
      const std::int64_t c = std::max(n, bucket_tokens(w.context, buckets));
      ++prefills[{n, c}];
    } else {
      ++decode_count;
      decode_context_sum += w.context;
      decode_tokens = w.new_tokens;  // the same for every decode: 1, or k + 1 to verify
    }
  }
  std::vector<SequenceGroup> groups;
  for (const auto& [shape, count] : prefills) groups.push_back({count, shape.first, shape.second, true});
  if (decode_count > 0) {
    const std::int64_t mean = (decode_context_sum + decode_count / 2) / decode_count;
    groups.push_back({decode_count, decode_tokens, std::max(decode_tokens, bucket_tokens(mean, buckets)), false});
  }
  return groups;
}

// The draft passes before a speculative step: the first takes the iteration's prefill chunks
// (the draft keeps its own KV cache of the prompt) and one token of every decode; each further
// one drafts the next token of the decodes.
std::vector<std::vector<SequenceGroup>> draft_passes(const std::vector<SequenceGroup>& target, std::int64_t k) {
  std::vector<SequenceGroup> first;
  const SequenceGroup* decodes = nullptr;
  for (const SequenceGroup& g : target) {
    if (g.prefill) {
      first.push_back(g);
    } else {
      decodes = &g;
    }
  }
  // The decodes' context at the first draft: the target's less the k drafts it verifies.
  const std::int64_t context = decodes ? decodes->context - k : 0;
  if (decodes) first.push_back({decodes->count, 1, context, false});
  std::vector<std::vector<SequenceGroup>> passes;
  if (!first.empty()) passes.push_back(first);
  for (std::int64_t j = 1; decodes && j < k; ++j) passes.push_back({{decodes->count, 1, context + j, false}});
  return passes;
}

std::vector<std::int64_t> shape_key(const std::vector<SequenceGroup>& groups) {
  std::vector<std::int64_t> key;
  for (const SequenceGroup& g : groups) key.insert(key.end(), {g.count, g.new_tokens, g.context, g.prefill ? 1 : 0});
  return key;
}


// The draft of speculative decoding: the target's next-token head as one more of its layers
// with its LM head ("mtp"), or a model of its own on the same chips. With expert parallelism
// the MTP head is one more of the target's layers, its experts spread as theirs; a model of its
// own runs whole on each EP rank's chips (TP-split), on that rank's sequences. With pipeline
// stages either runs whole on the last stage's chips.
Experiment draft_experiment(const ServingSetup& s, const Experiment& machine, const ModelConfig& target) {
  Experiment e = machine;
  e.pp = 1;
  if (s.speculative.draft == "mtp") {
    ModelConfig m = target;
    m.layers = 1;
    m.name = target.name + " MTP head";
    e.model_config = m;
  } else {
    e.model = s.speculative.draft;
    e.model_config.reset();
    e.ep = 1;
  }
  e.batch = e.ep;  // the machine is checked with one sequence on each EP rank
  return e;
}

// What the draft adds per chip: weights and KV bytes per token. An MTP head shares the
// target's embedding and LM head, so it adds one layer's weights and KV. With pipeline stages
// the draft sits on the last stage's chips; the per-chip plan counts it on every stage's.
MemoryNeed draft_memory(const ServingSetup& s, const ModelConfig& draft, const Experiment& machine) {
  Experiment e = machine;
  e.pp = 1;
  if (s.speculative.draft != "mtp") {
    Experiment own = e;  // whole on each EP rank: one sequence on its chips
    own.ep = 1;
    own.batch = 1;
    return memory_need(draft, own);
  }
  ModelConfig two = draft;
  two.layers = 2;
  const MemoryNeed one_layer = memory_need(draft, e), two_layers = memory_need(two, e);
  return {two_layers.weights - one_layer.weights, two_layers.kv_cache - one_layer.kv_cache, 0};
}

MemoryPlan plan_memory(const ServingSetup& s, const Experiment& machine, const HardwareSpec& hw, const ModelConfig& model,
                       const ModelConfig* draft) {
  Experiment e = machine;
  e.batch = machine.ep;  // one sequence on each EP rank: the per-chip figures of one
  e.prompt = std::max<std::int64_t>(1, std::min<std::int64_t>(s.scheduler.max_tokens, kMaxTokens));
  e.generate = 0;
  MemoryNeed need;
  try {
    need = memory_need(model, e);
  } catch (const InputError& error) {
    // The activations are planned for a pass of max_tokens tokens: one too large for the chip
    // model is the flag's fault, not an internal op's.
    throw InputError("${max_tokens} " + std::to_string(s.scheduler.max_tokens) + ": an iteration of that many tokens of " + model.name +
                     " is beyond what roofsim models (" + error.what() + "); give fewer");
  }
  double state = 0;  // per chip and sequence
  if (model.local_attention()) {
    // Sliding-window and chunked layers: need.kv_cache is capped at the window or chunk; a
    // block holds block_tokens tokens of every layer (KvBlockPool::blocks_for counts the cap),
    // so the per-token rate is the uncapped one. Linear layers hold a state per sequence instead.
    const DType kv = machine.precision.kv;
    const double held = model.kv_cache_bytes(kv, e.prompt);
    const double states = model.linear ? static_cast<double>(model.linear_layer_count()) * model.linear->state_bytes() : 0.0;
    state = need.kv_cache * states / held;
    need.kv_cache *= model.kv_bytes_per_token(kv) * static_cast<double>(e.prompt) / held;
  }
  if (draft) {
    const MemoryNeed d = draft_memory(s, *draft, e);
    need.weights += d.weights;
    need.kv_cache += d.kv_cache;
  }
  MemoryPlan m;
  m.weights = need.weights;
  m.activations = need.activations;
  m.kv_per_token = need.kv_cache / static_cast<double>(e.prompt);
  const double left = hw.hbm.capacity_bytes - m.weights - m.activations;
  const double block_bytes = m.kv_per_token * static_cast<double>(s.kv.block_tokens);
  if (s.kv.blocks > 0) {
    m.blocks = s.kv.blocks;
  } else {
    if (left <= 0) {
      const std::string with_draft = draft ? " with its draft " + draft->name : "";
      throw InputError(model.name + with_draft + " does not fit in " + hw.description + " for serving: weights " + format_si(m.weights, "B", 2) +
                       " and activations " + format_si(m.activations, "B", 2) + " per chip leave nothing of " +
                       format_si(hw.hbm.capacity_bytes, "B", 2) + " for the KV cache (more ${tp}, smaller weights, or a "
                       "smaller ${max_tokens})");
    }
    m.blocks = static_cast<std::int64_t>(std::floor(left * s.kv.memory_fraction / block_bytes));
  }
  m.state_blocks = static_cast<std::int64_t>(std::ceil(state / block_bytes));
  return m;
}

}  // namespace

std::int64_t EpRanks::rank_of(std::int64_t record, std::int64_t prompt_tokens) {
  auto found = placed_.find(record);
  if (found != placed_.end()) return found->second.first;
  std::size_t least = 0;
  for (std::size_t i = 1; i < requests_.size(); ++i) {
    if (std::make_pair(requests_[i], tokens_[i]) < std::make_pair(requests_[least], tokens_[least])) least = i;
  }
  ++requests_[least];
  tokens_[least] += prompt_tokens;
  placed_.emplace(record, std::make_pair(static_cast<std::int64_t>(least), prompt_tokens));
  return static_cast<std::int64_t>(least);
}

void EpRanks::release(std::int64_t record) {
  auto found = placed_.find(record);
  if (found == placed_.end()) return;
  const auto r = static_cast<std::size_t>(found->second.first);
  --requests_[r];
  tokens_[r] -= found->second.second;
  placed_.erase(found);
}

std::vector<ScheduledWork> EpRanks::busiest(const std::vector<ScheduledWork>& work, const Scheduler& scheduler) {
  if (ranks() <= 1) return work;
  std::vector<std::int64_t> rank(work.size());
  std::vector<std::pair<std::int64_t, std::int64_t>> load(requests_.size(), {0, 0});  // tokens, sequences
  for (std::size_t i = 0; i < work.size(); ++i) {
    auto placed = placed_.find(work[i].record);
    if (placed != placed_.end()) {
      rank[i] = placed->second.first;
    } else {  // a new request: its prompt weighs in its placement
      const LiveRequest* live = scheduler.find(work[i].record);
      rank[i] = rank_of(work[i].record, live ? live->prompt_tokens : 0);
    }
    load[static_cast<std::size_t>(rank[i])].first += work[i].new_tokens;
    ++load[static_cast<std::size_t>(rank[i])].second;
  }
  const auto busiest = static_cast<std::int64_t>(std::max_element(load.begin(), load.end()) - load.begin());
  std::vector<ScheduledWork> share;
  for (std::size_t i = 0; i < work.size(); ++i) {
    if (rank[i] == busiest) share.push_back(work[i]);
  }
  return share;
}

namespace {

// A disaggregated pool's TP is its own setting (${prefill_tp}, ${decode_tp}), not ${tp}.
PassSimulator pool_simulator(Experiment machine, const std::string& role) {
  // The machine is checked with one sequence on each EP rank; iterations bring their own.
  machine.batch = machine.ep;
  try {
    return PassSimulator(machine);
  } catch (const InputError& e) {
    if (role.empty()) throw;
    throw renamed_setting(e, "tp", role + "_tp");
  }
}

}  // namespace

Pool::Pool(const ServingSetup& setup, const Experiment& machine, std::string role, ServingResult& r)
    : setup_(setup), role_(std::move(role)), r_(r), sim_(pool_simulator(machine, role_)) {
  chips_ = machine.tp * machine.pp * machine.ep;
  stages_ = machine.pp;
  ep_ = machine.ep;
  if (setup.speculative.tokens > 0) {
    try {
      draft_ = std::make_unique<PassSimulator>(draft_experiment(setup, machine, sim_.model()));
    } catch (const InputError& e) {
      throw renamed_setting(e, "model", "draft");
    }
    if (draft_->model().vocab != sim_.model().vocab) {
      throw InputError("${draft} " + draft_->model().name + " has a vocabulary of " + std::to_string(draft_->model().vocab) +
                       " tokens and " + sim_.model().name + " one of " + std::to_string(sim_.model().vocab) +
                       ": a draft must share the target's tokenizer");
    }
  }
  memory_ = plan_memory(setup, machine, sim_.hardware(), sim_.model(), draft_ ? &draft_->model() : nullptr);
  if (kv_preemptions().get(setup.kv.preemption, "kv_preemption").preempted_kv() == PreemptedKv::copied_to_host &&
      !(sim_.hardware().host_link_bandwidth > 0)) {
    throw InputError("${kv_preemption} " + setup.kv.preemption + ": " + sim_.hardware().name + " describes no host link (host.link_gb_per_s in " +
                     sim_.hardware().source_file + "); give one, or preempt by recomputing");
  }
}

int Pool::shape_of(const std::vector<ScheduledWork>& work) {
  const std::vector<SequenceGroup> groups = iteration_groups(work, setup_.buckets_per_octave);
  std::vector<std::int64_t> key = shape_key(groups);
  auto found = index_.find(key);
  if (found != index_.end()) {
    ++r_.shapes[static_cast<std::size_t>(found->second)].uses;
    return found->second;
  }
  IterationShape s;
  s.groups = groups;
  s.pool = role_;
  const auto t0 = Clock::now();
  s.outcome = setup_.sample_layers ? sim_.simulate_sampled(mixed_pass(groups)) : sim_.simulate(mixed_pass(groups));
  r_.sim_wall_s += std::chrono::duration<double>(Clock::now() - t0).count();
  s.uses = 1;
  r_.shapes.push_back(std::move(s));
  const int index = static_cast<int>(r_.shapes.size() - 1);
  index_.emplace(std::move(key), index);
  return index;
}

// Each block of each layer's keys and values is one copy (vLLM's swap_blocks issues them so),
// one after another on one stream: the copies' fixed costs plus the bytes at the link's rate.
// The KV bytes are one chip's share; every chip copies its own share over its own link, all at
// once: a pipeline stage's chips their stage's layers (the largest share of the layers), an EP
// rank's chips their rank's requests (an even share of the blocks, rounded up: new requests go
// to the rank holding the fewest).
double Pool::swap_seconds(const Scheduler::SwapTraffic& t) const {
  const std::int64_t blocks = (t.out_blocks + t.in_blocks + ep_ - 1) / ep_;
  if (blocks == 0) return 0;
  const HardwareSpec& hw = sim_.hardware();
  const std::int64_t layers = (sim_.model().layers + stages_ - 1) / stages_;
  const double copies = static_cast<double>(blocks) * 2.0 * static_cast<double>(layers);
  const double tokens = std::ceil(static_cast<double>(t.out_tokens + t.in_tokens) / static_cast<double>(ep_));
  return copies * hw.host_link_latency_s + tokens * memory_.kv_per_token / hw.host_link_bandwidth;
}

Pool::DraftCost Pool::draft_cost(int shape) {
  DraftCost total;
  if (!draft_) return total;
  for (const std::vector<SequenceGroup>& pass : draft_passes(r_.shapes[static_cast<std::size_t>(shape)].groups, setup_.speculative.tokens)) {
    const std::vector<std::int64_t> key = shape_key(pass);
    auto found = draft_index_.find(key);
    if (found == draft_index_.end()) {
      const auto t0 = Clock::now();
      const PassOutcome o = setup_.sample_layers ? draft_->simulate_sampled(mixed_pass(pass)) : draft_->simulate(mixed_pass(pass));
      r_.sim_wall_s += std::chrono::duration<double>(Clock::now() - t0).count();
      found = draft_index_.emplace(key, DraftCost{o.seconds, o.energy_j}).first;
    }
    total.seconds += found->second.seconds;
    total.energy_j += found->second.energy_j;
  }
  return total;
}

namespace {

SchedulerConfig worker_scheduling(const ServingSetup& setup, const Pool& pool) {
  SchedulerConfig c = setup.scheduler;
  if (pool.role() == "prefill") {
    const DisaggregationConfig& d = setup.disaggregation;
    if (d.prefill_max_batch > 0) c.max_batch = d.prefill_max_batch;
    if (d.prefill_max_tokens > 0) c.max_tokens = d.prefill_max_tokens;
  }
  c.verify_tokens = 1 + setup.speculative.tokens;
  c.micro_batches = c.micro_batches_on(pool.stages());
  // A prefill instance's requests leave with their prompt's KV cache, not by a decode step.
  c.late_release = setup.late_release() && pool.role() != "prefill";
  // TensorRT-LLM holds prompts back for batching only without attention data parallelism, and
  // balances them over the ranks only with it (EngineInstance::holds_for_balance).
  if (pool.ep_ranks() > 1) c.batch_wait_iters = 0;
  if (pool.ep_ranks() <= 1) c.adp_balance_timeout_iters = c.adp_batching_wait_iters = 0;
  // One scheduler plans for every rank: limits that are each rank's count once per rank.
  if (c.limits_per_rank && pool.ep_ranks() > 1) {
    const std::int64_t ranks = pool.ep_ranks();
    c.max_batch *= ranks;
    c.max_tokens *= ranks;
    c.max_prompts *= ranks;  // 0 (no limit) stays 0
  }
  return c;
}

}  // namespace

EngineInstance::EngineInstance(Pool& pool, const ServingSetup& setup, int id, std::mt19937_64& acceptance_rng)
    : pool_(pool), setup_(setup), id_(id), rng_(acceptance_rng), kv_(pool.memory().blocks * pool.ep_ranks(), setup.kv.block_tokens),
      scheduler_(worker_scheduling(setup, pool), setup.kv.admission, kv_, setup.kv.prefix_caching, setup.kv.preemption),
      micro_batches_(setup.scheduler.micro_batches_on(pool.stages())),
      stage_free_(static_cast<std::size_t>(pool.stages()), 0.0),
      ranks_(pool.ep_ranks()) {
  const SchedulerConfig& c = scheduler_.config();
  if (c.adp_balance_timeout_iters > 0 || c.adp_batching_wait_iters > 0) {
    // Each rank's batch limit: a share of the one scheduler's (worker_scheduling multiplied it
    // by the ranks where each rank has its own).
    per_rank_batch_ = std::max<std::int64_t>(1, c.max_batch / ranks_.ranks());
    scheduler_.set_prompt_hold([this](const std::vector<ScheduledWork>& work) { return holds_for_balance(work); });
  }
  const ModelConfig& m = pool.target().model();
  // Sliding layers stop growing at the window, chunked ones (Llama 4) at a chunk: the blocks a
  // sequence holds at its fullest (ModelConfig::cached_tokens; no shipped model has both).
  const std::int64_t cap = m.sliding_window > 0 ? m.sliding_window : m.attention_chunk;
  if (cap > 0) {
    std::int64_t capped = 0;
    for (std::int64_t l = 0; l < m.layers; ++l) capped += m.sliding_layer(l) || m.chunked_layer(l) ? 1 : 0;
    kv_.set_sliding(cap, capped, m.layers);
  }
  kv_.set_state_blocks(pool.memory().state_blocks);
}

// PyExecutor._balance_adp_requests with enable_balance: prompts start when every rank has one
// and a free slot (after adp_batching_wait_iters when every rank also decodes); otherwise they
// wait, and the count of such iterations runs until the timeout or a rank with nothing to decode
// lets them go. The count runs on iterations without prompts too, as TensorRT-LLM's does.
bool EngineInstance::holds_for_balance(const std::vector<ScheduledWork>& work) {
  const auto ranks = static_cast<std::size_t>(ranks_.ranks());
  std::vector<std::int64_t> prompts(ranks, 0), decodes(ranks, 0);
  for (const ScheduledWork& w : work) {
    const LiveRequest* live = scheduler_.find(w.record);
    const auto rank = static_cast<std::size_t>(ranks_.rank_of(w.record, live ? live->prompt_tokens : 0));
    ++(w.prefill ? prompts : decodes)[rank];
  }
  const bool every_rank_prompts = std::all_of(prompts.begin(), prompts.end(), [](std::int64_t n) { return n > 0; });
  const bool every_rank_has_room = std::all_of(decodes.begin(), decodes.end(), [&](std::int64_t n) { return n < per_rank_batch_; });
  const bool every_rank_decodes = std::all_of(decodes.begin(), decodes.end(), [](std::int64_t n) { return n > 0; });
  const SchedulerConfig& c = scheduler_.config();
  if (every_rank_prompts && every_rank_has_room) {
    adp_waiting_iters_ = 0;
    if (!every_rank_decodes) return false;
    if (adp_batching_iters_ < c.adp_batching_wait_iters) {
      ++adp_batching_iters_;
      return true;
    }
    adp_batching_iters_ = 0;
    return false;
  }
  ++adp_waiting_iters_;
  if (adp_waiting_iters_ >= c.adp_balance_timeout_iters || !every_rank_decodes) {
    adp_waiting_iters_ = 0;
    return false;
  }
  return true;
}

double EngineInstance::next_start_s() const {
  return static_cast<std::int64_t>(in_flight_.size()) < micro_batches_ ? stage_free_.front() : INFINITY;
}

bool EngineInstance::start(double now) {
  if (static_cast<std::int64_t>(in_flight_.size()) >= micro_batches_ || now < stage_free_.front()) return false;
  std::vector<ScheduledWork> work;
  while (true) {
    work = scheduler_.plan();
    if (!work.empty()) break;
    // Running requests hold the cache but none can take a step: give way, newest first
    // (unless an iteration under way will free or advance some).
    if (busy() || !scheduler_.preempt_newest()) return false;
  }
  // With expert parallelism the busiest rank's work is simulated; without, all of it (no copy).
  std::vector<ScheduledWork> busiest_rank;
  if (ranks_.ranks() > 1) busiest_rank = ranks_.busiest(work, scheduler_);
  const std::vector<ScheduledWork>& simulated = ranks_.ranks() > 1 ? busiest_rank : work;
  const int shape = pool_.shape_of(simulated);
  const Pool::DraftCost draft = pool_.draft_cost(shape);
  const double draft_s = draft.seconds;
  IterationRecord record;
  const double host_s = setup_.iteration_overhead_s + setup_.sequence_overhead_s * static_cast<double>(work.size());
  // Swap preemption: the pass waits for this iteration's KV copies to and from the host.
  const Scheduler::SwapTraffic swap = scheduler_.take_swap_traffic();
  record.swap_seconds = pool_.swap_seconds(swap);
  record.swap_out_tokens = swap.out_tokens;
  record.swap_in_tokens = swap.in_tokens;
  const PassOutcome& pass = pool_.pass(shape);
  // With the overlap scheduler the host work of a graph-launched iteration runs beside the
  // pass before it (ServingSetup::overlap_host).
  const bool overlapped = setup_.overlap_host && !pass.launched_per_op;
  const double before_pass = (overlapped ? 0.0 : host_s) + record.swap_seconds;
  // Each stage takes the pass when done with the iteration before; the pass starts late
  // enough for every stage. The draft passes run on the last stage's chips, where the target's
  // last hidden states and sampled tokens are: with one stage before the pass, with several
  // after its last stage (an MTP head runs right after the layers it extends, drafting this
  // micro-batch's next step), so the last stage is busy for them too. The iteration's time is
  // the same either way.
  double launch = now;
  for (std::size_t s = 0; s < stage_free_.size(); ++s) launch = std::max(launch, stage_free_[s] - before_pass - pass.stages[s].begin_s);
  record.start_s = launch;
  record.seconds = before_pass + draft_s + (overlapped ? std::max(pass.seconds, host_s) : pass.seconds);
  const double end = launch + record.seconds;
  // (A stage is done at the latest when the iteration is: the same sum, rounded the same way.)
  for (std::size_t s = 0; s < stage_free_.size(); ++s) {
    const double drafts = s + 1 == stage_free_.size() ? draft_s : 0.0;
    stage_free_[s] = std::min(end, launch + before_pass + pass.stages[s].end_s + drafts);
  }
  record.draft_seconds = draft_s;
  record.draft_energy_j = draft.energy_j;
  record.shape = shape;
  record.worker = id_;
  record.micro_batch = static_cast<std::int32_t>(started_++ % micro_batches_);
  record.waiting = static_cast<std::int32_t>(scheduler_.waiting());
  for (const ScheduledWork& w : work) {
    if (w.prefill) {
      ++record.prefill_sequences;
      record.prefill_tokens += w.new_tokens;
    } else {
      ++record.decode_sequences;
    }
  }
  record.kv_blocks_used = kv_.used();
  for (const ScheduledWork& w : work) record.tokens += w.new_tokens;
  for (const ScheduledWork& w : simulated) record.busiest_rank_tokens += w.new_tokens;
  in_flight_.push_back({std::move(work), record, end});
  return true;
}

Scheduler::Progress EngineInstance::finish(ServingResult& r) {
  Iteration it = std::move(in_flight_.front());
  in_flight_.pop_front();
  // Each decode keeps its drafts up to the first rejected one, and the target's own token
  // (without drafts: one, which a running request always still wants, unless it finished a
  // step before and only holds its slot: SchedulerConfig::late_release).
  std::vector<std::int64_t> emitted(it.work.size(), 1);
  for (std::size_t i = 0; i < it.work.size(); ++i) {
    if (it.work[i].prefill) continue;
    if (it.work[i].drops_token) {  // finished a step before: its token is dropped
      emitted[i] = 0;
      continue;
    }
    if (setup_.speculative.tokens > 0) {
      std::int64_t accepted = 0;
      while (accepted < setup_.speculative.tokens && unit_draw(rng_) < setup_.speculative.accept_chance(accepted)) ++accepted;
      const LiveRequest& live = *scheduler_.find(it.work[i].record);
      emitted[i] = std::min(1 + accepted, live.output - live.generated);
    }
    it.record.decode_tokens += emitted[i];
  }
  r.iterations.push_back(it.record);
  Scheduler::Progress p = scheduler_.complete(it.work, emitted);
  for (const LiveRequest& l : p.released) ranks_.release(l.record);
  return p;
}

}  // namespace roofsim
