// The serving clock: arrivals and iterations in time order; each iteration's pass simulated on
// the chip model (once per distinct bucketed shape).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <random>

#include "core/error.hpp"
#include "core/format.hpp"
#include "serving/scheduler.hpp"
#include "serving/serving.hpp"

namespace roofsim {

std::int64_t bucket_tokens(std::int64_t v, int buckets_per_octave) {
  if (buckets_per_octave <= 0 || v <= buckets_per_octave) return v;
  // The grid step: the largest power of two at most v / buckets_per_octave.
  std::int64_t step = 1;
  while (step * 2 * buckets_per_octave <= v) step *= 2;
  return std::max<std::int64_t>(step, (v + step / 2) / step * step);
}

namespace {

using Clock = std::chrono::steady_clock;

// A uniform draw in [0, 1) from the top 53 bits: the same on every platform (the standard
// distributions are not).
double unit_draw(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

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

// Per chip: weights, the activations of the largest iteration, and KV bytes per token.
struct MemoryPlan {
  double weights = 0, activations = 0, kv_per_token = 0;
  std::int64_t blocks = 0;
};

// The draft of speculative decoding: the target's next-token head as one more of its layers
// with its LM head ("mtp"), or a model of its own on the same chips.
Experiment draft_experiment(const ServingSetup& s, const ModelConfig& target) {
  Experiment e = s.machine;
  if (s.speculative.draft == "mtp") {
    ModelConfig m = target;
    m.layers = 1;
    m.name = target.name + " MTP head";
    e.model_config = m;
  } else {
    e.model = s.speculative.draft;
    e.model_config.reset();
  }
  return e;
}

// What the draft adds per chip: weights and KV bytes per token. An MTP head shares the
// target's embedding and LM head, so it adds one layer's weights and KV.
MemoryNeed draft_memory(const ServingSetup& s, const ModelConfig& draft, const Experiment& e) {
  if (s.speculative.draft != "mtp") return memory_need(draft, e);
  ModelConfig two = draft;
  two.layers = 2;
  const MemoryNeed one_layer = memory_need(draft, e), two_layers = memory_need(two, e);
  return {two_layers.weights - one_layer.weights, two_layers.kv_cache - one_layer.kv_cache, 0};
}

MemoryPlan plan_memory(const ServingSetup& s, const HardwareSpec& hw, const ModelConfig& model, const ModelConfig* draft) {
  Experiment e = s.machine;
  e.batch = 1;
  e.prompt = std::max<std::int64_t>(1, std::min<std::int64_t>(s.scheduler.max_tokens, kMaxTokens));
  e.generate = 0;
  MemoryNeed need = memory_need(model, e);
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
      throw InputError(model.name + " does not fit in " + hw.description + " for serving: weights " + format_si(m.weights, "B", 2) +
                       " and activations " + format_si(m.activations, "B", 2) + " per chip leave nothing of " +
                       format_si(hw.hbm.capacity_bytes, "B", 2) + " for the KV cache (more ${tp}, smaller weights, or a "
                       "smaller ${max_tokens})");
    }
    m.blocks = static_cast<std::int64_t>(std::floor(left * s.kv.memory_fraction / block_bytes));
  }
  return m;
}

void check_setup(const ServingSetup& s) {
  const SchedulerConfig& c = s.scheduler;
  if (c.max_batch < 1 || c.max_batch > kMaxBatch) throw InputError("${max_batch} must be between 1 and " + std::to_string(kMaxBatch));
  if (c.max_tokens < 1 || c.max_tokens > kMaxTokens) throw InputError("${max_tokens} must be between 1 and " + std::to_string(kMaxTokens));
  if (s.kv.block_tokens < 1 || s.kv.block_tokens > 65536) throw InputError("${block_tokens} must be between 1 and 65536");
  if (!(s.kv.memory_fraction > 0 && s.kv.memory_fraction <= 1)) throw InputError("${kv_memory_fraction} must be in (0, 1]");
  if (s.kv.blocks < 0) throw InputError("${kv_blocks} must not be negative");
  if (!(s.iteration_overhead_s >= 0 && s.iteration_overhead_s < 1)) throw InputError("${iteration_overhead} must be in [0, 1) s");
  if (s.buckets_per_octave < 0 || s.buckets_per_octave > 4096) throw InputError("${buckets} must be between 0 and 4096");
  if (!(s.slo_ttft_s >= 0 && std::isfinite(s.slo_ttft_s)) || !(s.slo_tpot_s >= 0 && std::isfinite(s.slo_tpot_s))) {
    throw InputError("SLOs must be finite and not negative");
  }
  if (s.machine.ep != 1) throw InputError("${ep}: serving runs without expert parallelism so far");
  if (s.warmup_requests < 0) throw InputError("${warmup} must not be negative");
  const SpeculativeConfig& d = s.speculative;
  if (d.tokens < 0 || d.tokens > kMaxVerifyTokens - 1) {
    throw InputError("${speculative_tokens} must be between 0 and " + std::to_string(kMaxVerifyTokens - 1));
  }
  if (!(d.acceptance >= 0 && d.acceptance <= 1)) throw InputError("${acceptance} must be in [0, 1]");
  if (!d.position_acceptance.empty() && static_cast<std::int64_t>(d.position_acceptance.size()) != d.tokens) {
    throw InputError("${acceptance} gives " + std::to_string(d.position_acceptance.size()) + " per-position chances for " +
                     std::to_string(d.tokens) + " drafted tokens: one per drafted token");
  }
  for (double p : d.position_acceptance) {
    if (!(p >= 0 && p <= 1)) throw InputError("${acceptance}: every per-position chance must be in [0, 1]");
  }
}

// Every request must be servable on its own: within the model's context, its prompt within the
// token budget (unless chunked), its KV blocks within the cache.
void check_requests(const ServingSetup& s, const std::vector<RequestSpec>& requests, const ModelConfig& model,
                    const KvBlockPool& pool) {
  if (s.warmup_requests >= static_cast<std::int64_t>(requests.size())) {
    throw InputError("${warmup} " + std::to_string(s.warmup_requests) + " leaves none of the " +
                     std::to_string(requests.size()) + " requests to count");
  }
  for (const RequestSpec& r : requests) {
    const std::string who = "request " + std::to_string(r.id) + " (" + std::to_string(r.prompt_tokens) + " prompt + " +
                            std::to_string(r.output_tokens) + " output tokens)";
    // Verifying drafts may write keys for k tokens beyond the last one kept.
    const std::int64_t context = r.prompt_tokens + r.output_tokens + s.speculative.tokens;
    if (model.max_context > 0 && context > model.max_context && !s.machine.allow_long_context) {
      throw InputError(who + ": beyond " + model.name + "'s maximum context of " + std::to_string(model.max_context) +
                       " (${allow_long_context} simulates it anyway)");
    }
    if (!s.scheduler.chunked_prefill && r.prompt_tokens > s.scheduler.max_tokens) {
      throw InputError(who + ": its prompt exceeds the ${max_tokens} budget of " + std::to_string(s.scheduler.max_tokens) +
                       " tokens per iteration; raise it or use ${chunked_prefill}");
    }
    if (pool.blocks_for(context) > pool.capacity()) {
      throw InputError(who + ": needs " + std::to_string(pool.blocks_for(context)) + " KV blocks of " +
                       std::to_string(pool.block_tokens()) + " tokens and the cache holds " + std::to_string(pool.capacity()) +
                       " (more chips, a smaller KV dtype, or shorter requests)");
    }
  }
}

class ServingEngine {
 public:
  ServingEngine(const ServingSetup& setup, const RunControl& control, ServingResult& r)
      : setup_(setup), control_(control), r_(r), sim_(setup.machine) {
    if (setup.speculative.tokens > 0) {
      try {
        draft_ = std::make_unique<PassSimulator>(draft_experiment(setup, sim_.model()));
      } catch (const InputError& e) {
        // The draft's model setting is ${draft}, not the target's ${model}.
        std::string message = e.raw();
        for (std::size_t at = message.find("${model}"); at != std::string::npos; at = message.find("${model}", at)) {
          message.replace(at, 8, "${draft}");
        }
        throw InputError(message);
      }
      if (draft_->model().vocab != sim_.model().vocab) {
        throw InputError("${draft} " + draft_->model().name + " has a vocabulary of " + std::to_string(draft_->model().vocab) +
                         " tokens and " + sim_.model().name + " one of " + std::to_string(sim_.model().vocab) +
                         ": a draft must share the target's tokenizer");
      }
    }
  }

  void run() {
    const auto t0 = Clock::now();
    r_.hw = sim_.hardware();
    r_.model = sim_.model();
    r_.topology = sim_.topology();
    r_.notes = sim_.notes();
    r_.chips = setup_.machine.tp * setup_.machine.pp;
    const MemoryPlan memory = plan_memory(setup_, r_.hw, r_.model, draft_ ? &draft_->model() : nullptr);
    r_.kv_blocks = memory.blocks;
    r_.kv_bytes_per_block = memory.kv_per_token * static_cast<double>(setup_.kv.block_tokens);
    r_.weights_bytes = memory.weights;
    r_.activations_bytes = memory.activations;
    KvBlockPool pool(memory.blocks, setup_.kv.block_tokens);
    const std::vector<RequestSpec> specs = generate_requests(setup_.workload);
    check_requests(setup_, specs, r_.model, pool);
    for (const RequestSpec& s : specs) {
      RequestRecord rec;
      rec.spec = s;
      r_.requests.push_back(rec);
    }
    SchedulerConfig scheduling = setup_.scheduler;
    scheduling.verify_tokens = 1 + setup_.speculative.tokens;
    Scheduler scheduler(scheduling, setup_.kv.admission, pool);
    // Acceptance draws: their own stream of the workload's seed, in the order of the work.
    std::mt19937_64 acceptance_rng(setup_.workload.seed ^ UINT64_C(0x5bec0de5bec0de5));
    const bool closed = setup_.workload.arrivals.kind == Arrivals::Kind::closed_loop;
    const std::size_t n = specs.size();
    std::size_t next = 0;  // next request to arrive
    // Closed loop: every client sends its first request at 0.
    std::vector<double> sends;
    if (closed) sends.assign(std::min<std::size_t>(n, static_cast<std::size_t>(setup_.workload.arrivals.concurrency)), 0.0);
    auto next_arrival = [&]() -> double {
      if (next >= n) return INFINITY;
      if (closed) return sends.empty() ? INFINITY : sends.front();
      return specs[next].arrival_s;
    };
    auto arrive = [&](double t) {
      RequestRecord& rec = r_.requests[next];
      rec.arrival_s = t;
      LiveRequest live;
      live.record = static_cast<std::int64_t>(next);
      live.prompt_tokens = live.prompt = rec.spec.prompt_tokens;
      live.output = rec.spec.output_tokens;
      scheduler.arrive(live);
      ++next;
    };

    double now = 0;
    std::size_t finished = 0;
    while (finished < n) {
      while (next < n && next_arrival() <= now) {
        const double t = next_arrival();
        if (closed) sends.erase(sends.begin());
        arrive(t);
      }
      std::vector<ScheduledWork> work = scheduler.plan();
      if (work.empty()) {
        if (!scheduler.running().empty()) {
          // Running requests hold the cache but none can take a step: give way, newest first.
          scheduler.preempt_newest();
          continue;
        }
        if (next >= n || !std::isfinite(next_arrival())) {
          throw std::logic_error("serving: requests wait but none can be admitted");
        }
        now = std::max(now, next_arrival());
        continue;
      }
      const std::vector<SequenceGroup> groups = iteration_groups(work, setup_.buckets_per_octave);
      const int shape = shape_of(groups);
      const double draft_s = draft_ ? draft_seconds(groups) : 0.0;
      const double seconds = setup_.iteration_overhead_s + draft_s + r_.shapes[static_cast<std::size_t>(shape)].outcome.seconds;
      IterationRecord it;
      it.start_s = now;
      it.seconds = seconds;
      it.draft_seconds = draft_s;
      it.shape = shape;
      it.waiting = static_cast<std::int32_t>(scheduler.waiting());
      for (const ScheduledWork& w : work) {
        if (w.prefill) {
          ++it.prefill_sequences;
          it.prefill_tokens += w.new_tokens;
        } else {
          ++it.decode_sequences;
        }
      }
      it.kv_blocks_used = pool.used();
      // Each decode keeps its drafts up to the first rejected one, and the target's own token.
      std::vector<std::int64_t> emitted(work.size(), 1);
      for (std::size_t i = 0; i < work.size(); ++i) {
        if (work[i].prefill) continue;
        std::int64_t accepted = 0;
        while (accepted < setup_.speculative.tokens && unit_draw(acceptance_rng) < setup_.speculative.accept_chance(accepted)) {
          ++accepted;
        }
        const LiveRequest& live = scheduler.running()[static_cast<std::size_t>(work[i].live)];
        emitted[i] = std::min(1 + accepted, live.output - live.generated);
      }
      now += seconds;
      const Scheduler::Progress p = scheduler.complete(work, emitted);
      for (std::size_t i = 0; i < work.size(); ++i) {
        if (!work[i].prefill) it.decode_tokens += emitted[i];
      }
      r_.iterations.push_back(it);
      for (const LiveRequest& l : p.produced) {
        RequestRecord& rec = r_.requests[static_cast<std::size_t>(l.record)];
        if (rec.first_token_s < 0) rec.first_token_s = now;
      }
      for (const LiveRequest& l : p.finished) {
        r_.requests[static_cast<std::size_t>(l.record)].finish_s = now;
        ++finished;
        if (closed) sends.push_back(now);  // the client sends its next request at once
      }
      if (!p.finished.empty()) {
        control_.report(finished, n, "requests finished");
        if (control_.stop_requested()) throw Cancelled();
      }
    }
    for (std::int64_t id : scheduler.preempted()) ++r_.requests[static_cast<std::size_t>(id)].preemptions;
    r_.simulated_s = now;
    r_.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  }

 private:
  // The index of a shape in r_.shapes, simulating it the first time it occurs.
  int shape_of(const std::vector<SequenceGroup>& groups) {
    const std::vector<std::int64_t> key = shape_key(groups);
    auto found = index_.find(key);
    if (found != index_.end()) {
      ++r_.shapes[static_cast<std::size_t>(found->second)].uses;
      return found->second;
    }
    IterationShape s;
    s.groups = groups;
    const auto t0 = Clock::now();
    s.outcome = setup_.sample_layers ? sim_.simulate_sampled(mixed_pass(groups)) : sim_.simulate(mixed_pass(groups));
    r_.sim_wall_s += std::chrono::duration<double>(Clock::now() - t0).count();
    s.uses = 1;
    r_.shapes.push_back(std::move(s));
    const int index = static_cast<int>(r_.shapes.size() - 1);
    index_.emplace(key, index);
    return index;
  }

  // The draft passes' time before the target's pass of `groups`, each distinct one simulated once.
  double draft_seconds(const std::vector<SequenceGroup>& groups) {
    double total = 0;
    for (const std::vector<SequenceGroup>& pass : draft_passes(groups, setup_.speculative.tokens)) {
      const std::vector<std::int64_t> key = shape_key(pass);
      auto found = draft_index_.find(key);
      if (found == draft_index_.end()) {
        const auto t0 = Clock::now();
        const PassOutcome o = setup_.sample_layers ? draft_->simulate_sampled(mixed_pass(pass)) : draft_->simulate(mixed_pass(pass));
        r_.sim_wall_s += std::chrono::duration<double>(Clock::now() - t0).count();
        found = draft_index_.emplace(key, o.seconds).first;
      }
      total += found->second;
    }
    return total;
  }

  const ServingSetup& setup_;
  const RunControl& control_;
  ServingResult& r_;
  PassSimulator sim_;
  std::unique_ptr<PassSimulator> draft_;  // speculative decoding's draft model
  std::map<std::vector<std::int64_t>, int> index_;
  std::map<std::vector<std::int64_t>, double> draft_index_;
};

}  // namespace

ServingResult run_serving(const ServingSetup& setup, const RunControl& control) {
  check_setup(setup);
  ServingResult r;
  r.setup = setup;
  ServingEngine(setup, control, r).run();
  r.summary = summarize(r);
  return r;
}

}  // namespace roofsim
