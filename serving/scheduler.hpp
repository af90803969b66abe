#pragma once
// Forms each iteration's batch from the running and waiting requests, under the token budget,
// the batch limit and the KV cache (serving/serving.hpp says what each policy reproduces).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <utility>
#include <vector>

#include "serving/kv_cache.hpp"
#include "serving/batching_policy.hpp"
#include "serving/kv_admission.hpp"
#include "serving/kv_preemption.hpp"
#include "serving/priority_policy.hpp"
#include "serving/serving.hpp"

namespace roofsim {

// A request inside the server.
struct LiveRequest {
  std::int64_t record = 0;       // index into ServingResult::requests
  std::int64_t prompt_tokens = 0;  // the request's prompt
  std::int64_t prompt = 0;       // tokens to prefill: the prompt, or prompt + output so far after a preemption
  std::int64_t output = 0;       // output tokens wanted
  std::int64_t cached = 0;       // tokens in the KV cache
  std::int64_t generated = 0;    // output tokens produced
  std::int64_t blocks = 0;       // KV blocks held
  std::int64_t prefix_id = -1;   // shared prompt prefix (prefix caching); -1: none
  std::int64_t prefix_tokens = 0;
  std::int64_t shared_blocks = 0;  // blocks of a cached prefix it reads (held by the prefix cache)
  bool swapped = false;            // its `cached` tokens wait in host memory (swap preemption)
  bool in_flight = false;          // in an iteration under way (pipeline stages run several at once)
  bool leaving = false;            // finished, holding its slot for one more step (SchedulerConfig::late_release)
  bool in_prefill() const { return cached < prompt; }
};

// One request's work in an iteration: `new_tokens` (a prompt, a chunk, or 1 to decode) whose
// newest attends to `context` keys.
struct ScheduledWork {
  std::int64_t live = 0;    // index into the scheduler's running list when planned
  std::int64_t record = 0;  // the request (LiveRequest::record): other iterations may end first and reorder the list
  std::int64_t new_tokens = 1;
  std::int64_t context = 1;
  bool prefill = false;
  bool drops_token = false;  // a leaving request's extra step (SchedulerConfig::late_release): its token is dropped
};

class Scheduler {
 public:
  Scheduler(const SchedulerConfig& config, const std::string& admission, KvBlockPool& pool, bool prefix_caching = false,
            const std::string& preemption = "recompute")
      : config_(config),
        batching_(&batchings().get(config.policy, "scheduler")),
        priority_(&priorities().get(config.priority, "priority")),
        admission_(&kv_admissions().get(admission, "kv_admission")),
        preemption_(&kv_preemptions().get(preemption, "kv_preemption")),
        pool_(pool),
        prefix_caching_(prefix_caching) {}

  void arrive(LiveRequest r) { waiting_.push_back(r); }
  // A check the owner makes of every planned iteration (attention-DP balancing, which needs
  // the ranks): true holds the iteration's prompts back (they stay admitted and come first in
  // the next plan). Called on every plan, so that it can count iterations.
  void set_prompt_hold(std::function<bool(const std::vector<ScheduledWork>&)> hold) { prompt_hold_ = std::move(hold); }
  // The next iteration's work; admits waiting requests (taking their KV blocks) and, when the
  // cache runs out, preempts (the request goes back to the head of the queue, its blocks
  // freed, to be recomputed or, swapping, copied to the host and back when readmitted).
  // Requests in an iteration still under way (pipelined micro-batches) are left out, and the
  // planned ones are in flight until complete(). Empty when nothing can run.
  std::vector<ScheduledWork> plan();
  // After the iteration: advances every scheduled request by its tokens. Returns the
  // requests that produced a token (first or later), and removes and returns the finished.
  // Iterations may complete in any order relative to plan() calls of later ones.
  struct Progress {
    std::vector<LiveRequest> produced;  // as they are after this iteration
    std::vector<LiveRequest> finished;  // produced their last token in this iteration
    std::vector<LiveRequest> released;  // left, freeing their slot and KV blocks: the finished, or
                                        // with late_release those that finished an iteration before
  };
  // `emitted` (speculative decoding) gives each decode's output tokens, parallel to `work`
  // (prefills' entries unused); without it a decode yields one.
  Progress complete(const std::vector<ScheduledWork>& work, const std::vector<std::int64_t>& emitted = {});

  const std::vector<LiveRequest>& running() const { return running_; }
  const SchedulerConfig& config() const { return config_; }
  // The running request `record`, or nullptr.
  const LiveRequest* find(std::int64_t record) const;
  std::size_t waiting() const { return waiting_.size(); }
  // Prefix caching: requests that found their prefix cached, the prompt tokens they did not
  // compute, and prefixes evicted.
  std::int64_t prefix_hits() const { return prefix_hits_; }
  std::int64_t prefix_tokens_reused() const { return prefix_tokens_reused_; }
  std::int64_t prefix_evictions() const { return prefixes_.evictions(); }
  // Swap preemption: the KV tokens (and their blocks) copied to the host and back since the
  // last call; the iteration about to run waits for those copies.
  struct SwapTraffic {
    std::int64_t out_tokens = 0, out_blocks = 0, in_tokens = 0, in_blocks = 0;
  };
  SwapTraffic take_swap_traffic() { return std::exchange(swap_, SwapTraffic{}); }
  // Preempted requests so far, by record index.
  const std::vector<std::int64_t>& preempted() const { return preempted_; }
  // Preempts the most recently admitted running request not in flight (the engine's way out
  // when nothing can run); false when there is none.
  bool preempt_newest() {
    const std::size_t victim = newest_idle();
    if (victim == running_.size()) return false;
    preempt(victim);
    return true;
  }

 private:
  bool admit_head(std::int64_t first_chunk);
  bool grow(LiveRequest& r, std::int64_t tokens);
  void preempt(std::size_t i);
  std::size_t newest_idle() const;  // the newest running request not in flight; running_.size() if none
  LiveRequest& running_request(const ScheduledWork& w);  // the running request `w` was planned for
  // max_batch limits each iteration; the requests running in all micro-batches together are
  // max_batch times as many.
  bool batch_full(const std::vector<ScheduledWork>& work) const {
    return static_cast<std::int64_t>(work.size()) >= config_.max_batch;
  }
  bool running_below_limit() const {
    return static_cast<std::int64_t>(running_.size()) < config_.max_batch * std::max<std::int64_t>(1, config_.micro_batches);
  }
  void use_cached_prefix(LiveRequest& r);
  void cache_prefix(LiveRequest& r);
  void swap_in(LiveRequest& r);
  void release_prefix(LiveRequest& r);
  void plan_prefill(std::vector<ScheduledWork>& work, std::int64_t& budget);
  void plan_decodes(std::vector<ScheduledWork>& work, std::int64_t& budget);
  void plan_by_priority(std::vector<ScheduledWork>& work);
  bool batch_wait_holds(const std::vector<ScheduledWork>& work);  // TensorRT-LLM's batch waiting holds this plan's prompts

  SchedulerConfig config_;
  const BatchingPolicy* batching_;  // config_.policy's
  const PriorityPolicy* priority_;  // config_.priority's policy
  const KvAdmissionPolicy* admission_;  // the admission's policy
  const KvPreemptionPolicy* preemption_;
  KvBlockPool& pool_;
  std::deque<LiveRequest> waiting_;
  std::vector<LiveRequest> running_;  // in admission order
  std::vector<std::int64_t> preempted_;
  bool prefix_caching_;
  PrefixCache prefixes_;
  std::int64_t prefix_hits_ = 0, prefix_tokens_reused_ = 0;
  std::int64_t batch_wait_count_ = 0;  // iterations in a row whose prompts were held (SchedulerConfig::batch_wait_iters)
  SwapTraffic swap_;
  std::function<bool(const std::vector<ScheduledWork>&)> prompt_hold_;
};

}  // namespace roofsim
