#include "serving/scheduler.hpp"

#include <algorithm>
#include <stdexcept>

namespace roofsim {

LiveRequest& Scheduler::running_request(const ScheduledWork& w) {
  // Where it was planned, unless iterations that ended since removed requests before it.
  const std::size_t planned = static_cast<std::size_t>(w.live);
  if (planned < running_.size() && running_[planned].record == w.record) return running_[planned];
  const LiveRequest* r = find(w.record);
  if (!r) throw std::logic_error("serving: an iteration's request is no longer running");
  return running_[static_cast<std::size_t>(r - running_.data())];
}

const LiveRequest* Scheduler::find(std::int64_t record) const {
  for (const LiveRequest& r : running_) {
    if (r.record == record) return &r;
  }
  return nullptr;
}

std::size_t Scheduler::newest_idle() const {
  for (std::size_t i = running_.size(); i-- > 0;) {
    if (!running_[i].in_flight && !running_[i].leaving) return i;
  }
  return running_.size();
}

// Takes the KV blocks `r` needs to hold `tokens` tokens (on-demand admission; a reserving
// request already holds them all).
bool Scheduler::grow(LiveRequest& r, std::int64_t tokens) {
  const std::int64_t need = pool_.blocks_for(tokens) - r.shared_blocks - r.blocks;
  if (need <= 0) return true;
  // Cached prefixes nobody reads give way first.
  while (!pool_.try_take(need)) {
    const std::int64_t freed = prefixes_.evict_one();
    if (freed == 0) return false;
    pool_.give_back(freed);
  }
  r.blocks += need;
  return true;
}

// A request about to prefill from scratch skips the whole blocks of its prefix when they are
// cached (at least one prompt token is always computed: its logits give the first token).
void Scheduler::use_cached_prefix(LiveRequest& r) {
  if (!prefix_caching_ || r.prefix_id < 0 || r.cached > 0 || r.shared_blocks > 0) return;
  PrefixCache::Entry* e = prefixes_.find(r.prefix_id);
  if (!e) return;
  const std::int64_t tokens = std::min(e->blocks * pool_.block_tokens(), r.prompt - 1);
  if (tokens <= 0) return;
  ++e->users;
  prefixes_.touch(*e);
  r.shared_blocks = e->blocks;
  r.cached = tokens;
  ++prefix_hits_;
  prefix_tokens_reused_ += tokens;
}

// After a request has computed its prompt: the whole blocks of its prefix go to the cache (it
// keeps reading them) unless they are there already.
void Scheduler::cache_prefix(LiveRequest& r) {
  if (!prefix_caching_ || r.prefix_id < 0 || r.shared_blocks > 0 || prefixes_.find(r.prefix_id)) return;
  const std::int64_t blocks = std::min(r.prefix_tokens, r.prompt_tokens) / pool_.block_tokens();
  if (blocks <= 0 || blocks > r.blocks) return;
  PrefixCache::Entry& e = prefixes_.add(r.prefix_id, blocks);
  e.users = 1;
  prefixes_.touch(e);
  r.blocks -= blocks;
  r.shared_blocks = blocks;
}

// A request leaving (finished or preempted) stops reading its cached prefix.
void Scheduler::release_prefix(LiveRequest& r) {
  if (r.shared_blocks == 0) return;
  if (PrefixCache::Entry* e = prefixes_.find(r.prefix_id)) --e->users;
  r.shared_blocks = 0;
}

// Preempts running_[i]: its blocks are freed and it waits at the head of the queue. What its
// cached tokens become is the preemption policy's (serving/kv_preemptions/): dropped, it
// prefills its prompt and what it has generated so far again; copied to the host (a cached
// prefix it read included), they come back when it is readmitted.
void Scheduler::preempt(std::size_t i) {
  LiveRequest r = running_[i];
  running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
  pool_.give_back(r.blocks);
  r.blocks = 0;
  release_prefix(r);
  if (preemption_->preempted_kv() == PreemptedKv::copied_to_host && r.cached > 0) {
    r.swapped = true;
    swap_.out_tokens += r.cached;
    swap_.out_blocks += pool_.blocks_for(r.cached);
  } else {
    r.prompt = r.prompt_tokens + r.generated;
    r.cached = 0;
  }
  preempted_.push_back(r.record);
  waiting_.push_front(r);
}

// A swapped request readmitted: its cached tokens come back from the host.
void Scheduler::swap_in(LiveRequest& r) {
  if (!r.swapped) return;
  r.swapped = false;
  swap_.in_tokens += r.cached;
  swap_.in_blocks += pool_.blocks_for(r.cached);
}

// Admits the request at the head of the queue if the blocks its admission policy asks for are
// free (serving/kv_admissions/).
bool Scheduler::admit_head(std::int64_t first_chunk) {
  LiveRequest& r = waiting_.front();
  // Verifying drafts writes up to verify_tokens - 1 keys beyond the last one kept.
  const std::int64_t tokens = admission_->tokens_at_admission(
      {r.prompt, r.output - r.generated, config_.verify_tokens - 1, r.cached, first_chunk});
  if (!grow(r, tokens)) return false;
  swap_in(r);
  running_.push_back(r);
  waiting_.pop_front();
  return true;
}

void Scheduler::plan_decodes(std::vector<ScheduledWork>& work, std::int64_t& budget) {
  // Oldest first; when the cache is full, the newest running request not in flight gives way
  // (it has not been planned yet: everything planned is older).
  for (std::size_t i = 0; i < running_.size() && budget > 0 && !batch_full(work);) {
    if (running_[i].in_prefill() || running_[i].in_flight) {
      ++i;
      continue;
    }
    // The tokens fed this step join the cache; on demand, they may need a new block.
    const std::int64_t fed = config_.verify_tokens;
    if (running_[i].leaving) {  // its step's tokens are dropped: no block needed
      work.push_back({static_cast<std::int64_t>(i), running_[i].record, fed, running_[i].cached + fed, false, true});
      budget -= fed;
      ++i;
      continue;
    }
    bool preempted_self = false;
    while (!grow(running_[i], running_[i].cached + fed)) {
      const std::size_t victim = newest_idle();
      preempt(victim);
      if (victim == i) {
        preempted_self = true;
        break;
      }
    }
    if (preempted_self) break;  // it was the newest: nothing comes after it
    work.push_back({static_cast<std::int64_t>(i), running_[i].record, fed, running_[i].cached + fed, false});
    budget -= fed;
    ++i;
  }
}

void Scheduler::plan_prefill(std::vector<ScheduledWork>& work, std::int64_t& budget) {
  auto chunk_of = [&](const LiveRequest& r) -> std::int64_t {
    const std::int64_t left = r.prompt - r.cached;
    if (left <= budget) return left;
    return config_.chunked_prefill ? budget : 0;
  };
  // Running requests part-way through their prompt (chunked prefill) go first.
  for (std::size_t i = 0; i < running_.size() && budget > 0 && !batch_full(work); ++i) {
    LiveRequest& r = running_[i];
    if (!r.in_prefill() || r.in_flight) continue;
    const std::int64_t n = chunk_of(r);
    if (n == 0 || !grow(r, r.cached + n)) continue;
    work.push_back({static_cast<std::int64_t>(i), r.record, n, r.cached + n, true});
    budget -= n;
  }
  // Then new requests, first come first served: a request that does not fit blocks the ones
  // behind it (as TensorRT-LLM's and vLLM's FCFS schedulers do).
  std::int64_t started = 0;  // new prompts this iteration (SchedulerConfig::max_prompts)
  while (!waiting_.empty() && budget > 0 && !batch_full(work) && running_below_limit() &&
         (config_.max_prompts == 0 || started < config_.max_prompts)) {
    // A swapped-out decode at the head waits for blocks to come back in (plan()); first come,
    // first served, nobody passes it.
    if (!waiting_.front().in_prefill()) break;
    use_cached_prefix(waiting_.front());
    const std::int64_t n = chunk_of(waiting_.front());
    if (n == 0 || !admit_head(n)) break;
    const LiveRequest& r = running_.back();
    work.push_back({static_cast<std::int64_t>(running_.size() - 1), r.record, n, r.cached + n, true});
    budget -= n;
    ++started;
  }
}

// TensorRT-LLM's batch waiting: an iteration with decodes starts none of its prompts while its
// tokens stay below the ratio of the budget and fewer than batch_wait_iters iterations in a row
// have held them.
bool Scheduler::batch_wait_holds(const std::vector<ScheduledWork>& work) {
  if (config_.batch_wait_iters <= 0) return false;
  const auto is_prefill = [](const ScheduledWork& w) { return w.prefill; };
  const bool prompts = std::any_of(work.begin(), work.end(), is_prefill);
  const bool decodes = !std::all_of(work.begin(), work.end(), is_prefill);
  if (!prompts || !decodes) return false;  // nothing to hold, or nothing running: no waiting (a dead wait)
  std::int64_t tokens = 0;
  for (const ScheduledWork& w : work) tokens += w.new_tokens;
  const bool stop = batch_wait_count_ >= config_.batch_wait_iters ||
                    static_cast<double>(tokens) >= config_.batch_wait_tokens_ratio * static_cast<double>(config_.max_tokens);
  batch_wait_count_ = stop ? 0 : batch_wait_count_ + 1;
  return !stop;
}

std::vector<ScheduledWork> Scheduler::plan() {
  std::vector<ScheduledWork> work;
  // The batching policy (serving/batchings/) plans the iteration through these steps.
  struct Steps : BatchSteps {
    Scheduler& s;
    std::vector<ScheduledWork>& work;
    Steps(Scheduler& s, std::vector<ScheduledWork>& work) : s(s), work(work) {}
    bool batch_running() const override { return !s.running_.empty(); }
    bool admit_whole_prompt() override {
      if (s.waiting_.empty() || static_cast<std::int64_t>(s.running_.size()) >= s.config_.max_batch) return false;
      s.use_cached_prefix(s.waiting_.front());
      const std::int64_t n = s.waiting_.front().prompt - s.waiting_.front().cached;
      if (!s.admit_head(n)) return false;
      work.push_back({static_cast<std::int64_t>(s.running_.size() - 1), s.running_.back().record, n, s.running_.back().cached + n, true});
      return true;
    }
    void plan_every_decode() override {
      std::int64_t unlimited = static_cast<std::int64_t>(s.running_.size());
      s.plan_decodes(work, unlimited);
    }
    void admit_arrived_caches() override {
      while (!s.waiting_.empty() && !s.waiting_.front().in_prefill() && s.running_below_limit() && s.admit_head(0)) {
      }
    }
    void plan_by_priority() override { s.plan_by_priority(work); }
  } steps(*this, work);
  batching_->plan(steps);
  return work;
}

// The priority policy (serving/priorities/) orders the planning steps within the budget.
void Scheduler::plan_by_priority(std::vector<ScheduledWork>& work) {
  struct Steps : IterationPlanner {
    Scheduler& s;
    std::vector<ScheduledWork>& work;
    std::int64_t budget;
    Steps(Scheduler& s, std::vector<ScheduledWork>& work, std::int64_t budget) : s(s), work(work), budget(budget) {}
    void plan_decodes() override { s.plan_decodes(work, budget); }
    void plan_prefills() override { s.plan_prefill(work, budget); }
    bool nothing_planned() const override { return work.empty(); }
    void drop_prefills_if_held() override {
      // Held prompts stay admitted (their KV blocks taken, as TensorRT-LLM's capacity scheduler
      // fits them) and come back first in the next plan. The two holds never both apply: batch
      // waiting is off with attention DP, the owner's balancing on only with it.
      if (s.batch_wait_holds(work) || (s.prompt_hold_ && s.prompt_hold_(work))) {
        work.erase(std::remove_if(work.begin(), work.end(), [](const ScheduledWork& w) { return w.prefill; }), work.end());
      }
    }
  } steps(*this, work, config_.max_tokens);
  priority_->plan(steps);
  for (const ScheduledWork& w : work) running_[static_cast<std::size_t>(w.live)].in_flight = true;
}

Scheduler::Progress Scheduler::complete(const std::vector<ScheduledWork>& work, const std::vector<std::int64_t>& emitted) {
  Progress p;
  std::vector<std::int64_t> left;  // leaving requests that took their last step: they go now
  for (std::size_t i = 0; i < work.size(); ++i) {
    const ScheduledWork& w = work[i];
    LiveRequest& r = running_request(w);
    r.in_flight = false;
    if (w.drops_token) {  // a leaving request's extra step: it goes now
      left.push_back(r.record);
      continue;
    }
    if (w.prefill) {
      r.cached += w.new_tokens;
      // A prefill that reaches the end of the prompt yields the first token.
      if (r.in_prefill()) continue;
      cache_prefix(r);
      ++r.generated;
    } else {
      // A decode yields its tokens (verified drafts and the target's own), never more than
      // the request wants; the cache keeps their keys, the rejected drafts' are dropped.
      const std::int64_t n = std::min(emitted.empty() ? 1 : emitted[i], r.output - r.generated);
      r.cached += n;
      r.generated += n;
    }
    p.produced.push_back(r);
  }
  std::vector<LiveRequest> still;
  still.reserve(running_.size());
  for (LiveRequest& r : running_) {
    const bool done = r.leaving ? std::find(left.begin(), left.end(), r.record) != left.end() : r.generated >= r.output;
    if (done && !r.leaving) p.finished.push_back(r);
    if (done && config_.late_release && !r.leaving) {
      r.leaving = true;  // the engine learns it after planning the next step: it holds its slot for that one
      still.push_back(r);
    } else if (done) {
      pool_.give_back(r.blocks);
      r.blocks = 0;
      release_prefix(r);
      p.released.push_back(r);
    } else {
      still.push_back(r);
    }
  }
  running_ = std::move(still);
  return p;
}

}  // namespace roofsim
