#pragma once
// The API server in front of the engine (trtllm-serve's or vLLM's OpenAI-compatible server):
// one host thread that takes each request in (parse, tokenise) before the scheduler sees it, and
// hands out each request's new tokens after every iteration (detokenise, stream a response)
// before the client sees them. Responses go first: a request is taken in only when no response
// waits, and a request being taken in is finished before the next responses. When the streams
// ask more of the thread than it can do, new requests wait outside the engine, its batch shrinks
// and the clients' TTFT and TPOT grow while the GPUs idle.
#include <cstdint>

namespace roofsim {

struct FrontendConfig {
  double request_s = 0;       // per request taken in
  double prompt_token_s = 0;  // and per prompt token (tokenising)
  double response_s = 0;      // per request and iteration that yields tokens (one streamed response)
  bool enabled() const { return request_s > 0 || prompt_token_s > 0 || response_s > 0; }
};

class Frontend {
 public:
  explicit Frontend(const FrontendConfig& c) : c_(c) {}
  // When the thread is next free.
  double free_at() const { return free_at_; }
  // When a request sent at `sent` would start being taken in.
  double intake_start(double sent) const { return sent > free_at_ ? sent : free_at_; }
  // Takes it in from there: when the engine has it.
  double take_in(double sent, std::int64_t prompt_tokens) {
    return serve(intake_start(sent), c_.request_s + c_.prompt_token_s * static_cast<double>(prompt_tokens));
  }
  // A response with a request's tokens from the iteration that ended at t: when the client has it.
  double respond(double t) { return serve(t > free_at_ ? t : free_at_, c_.response_s); }
  // Share of [0, until] the thread was busy.
  double busy_share(double until) const { return until > 0 ? busy_s_ / until : 0; }

 private:
  double serve(double start, double seconds) {
    free_at_ = start + seconds;
    busy_s_ += seconds;
    return free_at_;
  }
  FrontendConfig c_;
  double free_at_ = 0;
  double busy_s_ = 0;
};

}  // namespace roofsim
