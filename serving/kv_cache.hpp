#pragma once
// A paged KV cache as the scheduler sees it: a pool of equal blocks of `block_tokens` tokens
// (per chip: every chip of a TP group holds its share of each block). Requests hold whole
// blocks; which blocks they are does not change any timing, so only counts are kept.
#include <cstdint>

namespace roofsim {

class KvBlockPool {
 public:
  KvBlockPool(std::int64_t blocks, std::int64_t block_tokens) : capacity_(blocks), block_tokens_(block_tokens) {}
  std::int64_t blocks_for(std::int64_t tokens) const { return (tokens + block_tokens_ - 1) / block_tokens_; }
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
};

}  // namespace roofsim
