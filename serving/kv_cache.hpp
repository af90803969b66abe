#pragma once
// A paged KV cache as the scheduler sees it: a pool of equal blocks of `block_tokens` tokens
// (per chip: every chip of a TP group holds its share of each block). Requests hold whole
// blocks; which blocks they are does not change any timing, so only counts are kept.
#include <cstdint>
#include <map>

namespace roofsim {

class KvBlockPool {
 public:
  KvBlockPool(std::int64_t blocks, std::int64_t block_tokens) : capacity_(blocks), block_tokens_(block_tokens) {}
  // A model with sliding-window layers: `sliding` of `layers` layers hold at most `window`
  // tokens. A block is block_tokens tokens of every layer; a sequence's sliding layers stop
  // growing at the window, so a long one needs fewer blocks than its tokens fill.
  void set_sliding(std::int64_t window, std::int64_t sliding, std::int64_t layers) {
    window_ = window;
    sliding_ = sliding;
    layers_ = layers;
  }
  // A model with linear (recurrent) layers: each sequence also holds `blocks` for their state.
  void set_state_blocks(std::int64_t blocks) { state_blocks_ = blocks; }
  std::int64_t blocks_for(std::int64_t tokens) const {
    if (window_ == 0 || tokens <= window_) return (tokens + block_tokens_ - 1) / block_tokens_ + state_blocks_;
    // Token-layers held, in blocks of block_tokens x layers, rounded up.
    const std::int64_t held = tokens * (layers_ - sliding_) + window_ * sliding_;
    return (held + block_tokens_ * layers_ - 1) / (block_tokens_ * layers_) + state_blocks_;
  }
  // Takes n blocks when that many are free; false (nothing taken) otherwise.
  bool try_take(std::int64_t n) {
    if (n > capacity_ - used_) return false;
    used_ += n;
    return true;
  }
  void give_back(std::int64_t n) { used_ -= n; }
  std::int64_t used() const { return used_; }
  std::int64_t free() const { return capacity_ - used_; }
  std::int64_t capacity() const { return capacity_; }
  std::int64_t block_tokens() const { return block_tokens_; }

 private:
  std::int64_t capacity_, block_tokens_, used_ = 0;
  std::int64_t window_ = 0, sliding_ = 0, layers_ = 1, state_blocks_ = 0;
};

// Prefix caching (vLLM's automatic prefix caching, TensorRT-LLM's KV cache reuse): the whole
// blocks of a shared prompt prefix stay in the cache after the request that computed them, and
// later requests with the same prefix use them instead of computing them again. Blocks of a
// prefix no running request uses are evicted, least recently used first, when the pool runs out.
class PrefixCache {
 public:
  struct Entry {
    std::int64_t blocks = 0;  // held in the pool on the prefix's behalf
    std::int64_t users = 0;   // running requests reading it
    std::uint64_t last_use = 0;
  };
  // The resident prefix `id`, or nullptr.
  Entry* find(std::int64_t id) {
    auto found = entries_.find(id);
    return found == entries_.end() ? nullptr : &found->second;
  }
  Entry& add(std::int64_t id, std::int64_t blocks) {
    Entry& e = entries_[id];
    e.blocks = blocks;
    return e;
  }
  void touch(Entry& e) { e.last_use = ++clock_; }
  // Frees the least recently used prefix no request reads; the blocks freed (0: none could go).
  std::int64_t evict_one() {
    auto victim = entries_.end();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->second.users == 0 && (victim == entries_.end() || it->second.last_use < victim->second.last_use)) victim = it;
    }
    if (victim == entries_.end()) return 0;
    const std::int64_t blocks = victim->second.blocks;
    entries_.erase(victim);
    ++evictions_;
    return blocks;
  }
  std::int64_t evictions() const { return evictions_; }

 private:
  std::map<std::int64_t, Entry> entries_;
  std::uint64_t clock_ = 0;
  std::int64_t evictions_ = 0;
};

}  // namespace roofsim
