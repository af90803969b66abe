#pragma once
// The serving engine's parts (internal to serving/): a Pool is one kind of serving instance —
// its machine, its simulators and the shapes it has simulated; an EngineInstance is one instance of a
// pool, with its own KV cache and scheduler, running one iteration at a time.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "serving/kv_cache.hpp"
#include "serving/scheduler.hpp"
#include "serving/serving.hpp"

namespace roofsim {

// Per chip: weights, the activations of the largest iteration, and KV bytes per token.
struct MemoryPlan {
  double weights = 0, activations = 0, kv_per_token = 0;
  std::int64_t blocks = 0;
  // Blocks each sequence holds whatever its length: the linear layers' recurrent state (Qwen3-Next,
  // Qwen3.5), rounded up to whole blocks as vLLM's hybrid allocator gives each one a page.
  std::int64_t state_blocks = 0;
};

// Expert parallelism in serving: attention is data parallel over the EP ranks, each request
// pinned to one rank from its first iteration to its last (its KV cache is there), as
// TensorRT-LLM's attention DP and SGLang's DP attention place them: a new request goes to the
// rank holding the fewest requests (then the fewest prompt tokens, then the lowest). All ranks
// meet in every MoE layer's all-to-all, so the busiest rank of an iteration (most tokens, then
// most sequences) sets its time: its work is what is simulated, every rank's MoE traffic taken
// as its own.
class EpRanks {
 public:
  explicit EpRanks(std::int64_t ranks) : requests_(static_cast<std::size_t>(ranks), 0), tokens_(static_cast<std::size_t>(ranks), 0) {}
  std::int64_t ranks() const { return static_cast<std::int64_t>(requests_.size()); }
  // The rank of request `record`, placed now if it has none.
  std::int64_t rank_of(std::int64_t record, std::int64_t prompt_tokens);
  // The request has finished: its rank holds one fewer.
  void release(std::int64_t record);
  // The work of the iteration's busiest rank (all of it with one rank); places new requests.
  std::vector<ScheduledWork> busiest(const std::vector<ScheduledWork>& work, const Scheduler& scheduler);

 private:
  std::vector<std::int64_t> requests_, tokens_;  // per rank: requests placed there and their prompt tokens
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> placed_;  // record -> rank, prompt tokens
};

// A uniform draw in [0, 1) from the top 53 bits: the same on every platform (the standard
// distributions are not).
inline double unit_draw(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

class Pool {
 public:
  // `machine`: the setup's machine with this pool's parallelism. `role` names the pool in
  // shapes and messages ("" when one pool does everything, "prefill", "decode").
  Pool(const ServingSetup& setup, const Experiment& machine, std::string role, ServingResult& r);
  const PassSimulator& target() const { return sim_; }
  const MemoryPlan& memory() const { return memory_; }
  const std::string& role() const { return role_; }
  std::int64_t chips() const { return chips_; }
  std::int64_t stages() const { return stages_; }  // pipeline stages
  std::int64_t ep_ranks() const { return ep_; }    // expert-parallel ranks, attention data parallel over them
  // The index in ServingResult::shapes of the target pass of `work`, simulated the first time.
  int shape_of(const std::vector<ScheduledWork>& work);
  // The draft passes before the target pass of shape `shape`: their time and dynamic energy
  // (both 0 without speculation).
  struct DraftCost {
    double seconds = 0, energy_j = 0;
  };
  DraftCost draft_cost(int shape);
  const PassOutcome& pass(int shape) const { return r_.shapes[static_cast<std::size_t>(shape)].outcome; }
  // Swap preemption's copies between a chip and host memory (serving.hpp, KvCacheConfig::Preemption).
  double swap_seconds(const Scheduler::SwapTraffic& t) const;

 private:
  const ServingSetup& setup_;
  std::string role_;
  ServingResult& r_;
  PassSimulator sim_;
  std::unique_ptr<PassSimulator> draft_;
  MemoryPlan memory_;
  std::int64_t chips_ = 1, stages_ = 1, ep_ = 1;
  std::map<std::vector<std::int64_t>, int> index_;
  std::map<std::vector<std::int64_t>, DraftCost> draft_index_;
};

// With pipeline stages a worker runs up to SchedulerConfig::micro_batches iterations at once:
// a new one starts when the first stage is done with the last one started, each stage takes
// it when done with the one before (the pass's stage spans shifted as a whole: a stage never
// runs two at once), and they end in the order they started.
class EngineInstance {
 public:
  EngineInstance(Pool& pool, const ServingSetup& setup, int id, std::mt19937_64& acceptance_rng);
  EngineInstance(const EngineInstance&) = delete;  // the scheduler holds a reference to the KV pool
  EngineInstance& operator=(const EngineInstance&) = delete;

  Scheduler& scheduler() { return scheduler_; }
  const KvBlockPool& kv() const { return kv_; }
  bool busy() const { return !in_flight_.empty(); }
  // When the iteration under way that ends first ends.
  double end_s() const { return in_flight_.front().end_s; }
  // When the first stage could take another iteration: INFINITY while every micro-batch is
  // under way.
  double next_start_s() const;
  // Requests it holds: running and waiting.
  std::size_t load() const { return scheduler_.running().size() + scheduler_.waiting(); }
  // Plans an iteration from `now` (preempting when running requests block each other and
  // none is under way); false when none can start now: every micro-batch under way, the first
  // stage busy, or nothing to run until more requests come or an iteration ends.
  bool start(double now);
  // Ends the iteration that ends first: each decode keeps its accepted drafts, the record is
  // added to ServingResult::iterations.
  Scheduler::Progress finish(ServingResult& r);

 private:
  Pool& pool_;
  const ServingSetup& setup_;
  int id_;
  std::mt19937_64& rng_;
  KvBlockPool kv_;
  Scheduler scheduler_;
  std::int64_t micro_batches_ = 1;
  struct Iteration {
    std::vector<ScheduledWork> work;
    IterationRecord record;
    double end_s = 0;
  };
  std::deque<Iteration> in_flight_;  // in the order they started, which is the order they end
  std::vector<double> stage_free_;   // per pipeline stage: when it is done with the last iteration started
  std::int64_t started_ = 0;
  EpRanks ranks_;
  // Attention-DP balancing (SchedulerConfig::adp_balance_timeout_iters): iterations since
  // prompts last started (or every rank had one), and iterations held for batching.
  bool holds_for_balance(const std::vector<ScheduledWork>& work);
  std::int64_t per_rank_batch_ = 0;
  std::int64_t adp_waiting_iters_ = 0, adp_batching_iters_ = 0;
};

}  // namespace roofsim
