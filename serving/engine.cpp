// The serving clock: arrivals and iterations in time order; each iteration's pass simulated on
// the chip model (once per distinct bucketed shape).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <functional>
#include <memory>
#include <queue>
#include <random>

#include "core/error.hpp"
#include "core/format.hpp"
#include "serving/instance_routing.hpp"
#include "serving/kv_transfer.hpp"
#include "serving/pool.hpp"
#include "serving/scheduler.hpp"
#include "serving/serving.hpp"
#include "serving/setup_checks.hpp"

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

// Arrivals: the requests in arrival order; in a closed loop each client sends its next request
// when its previous one finishes (every client's first at 0).
class ArrivalClock {
 public:
  ArrivalClock(const ServingSetup& setup, const std::vector<RequestSpec>& specs)
      : specs_(specs), closed_(setup.workload.arrivals.kind == roofsim::Arrivals::Kind::closed_loop) {
    if (closed_) {
      const std::size_t clients = std::min<std::size_t>(specs.size(), static_cast<std::size_t>(setup.workload.arrivals.concurrency));
      for (std::size_t i = 0; i < clients; ++i) {
        sends_.push(setup.workload.arrivals.ramp_s * static_cast<double>(i) / static_cast<double>(setup.workload.arrivals.concurrency));
      }
    }
  }
  double next_s() const {
    if (next_ >= specs_.size()) return INFINITY;
    if (closed_) return sends_.empty() ? INFINITY : sends_.top();
    return specs_[next_].arrival_s;
  }
  bool all_sent() const { return next_ >= specs_.size(); }
  // The next request, arriving at next_s(): its index.
  std::size_t take() {
    if (closed_) sends_.pop();
    return next_++;
  }
  void finished(double t) {
    // The client sends its next request at once; sends are taken in time order (a ramp's first
    // sends can come after early finishes).
    if (closed_) sends_.push(t);
  }

 private:
  const std::vector<RequestSpec>& specs_;
  bool closed_;
  std::size_t next_ = 0;
  // The clients' next send times, earliest on top (a heap: a sorted vector cost O(clients) per
  // request, minutes at 400,000 clients).
  std::priority_queue<double, std::vector<double>, std::greater<double>> sends_;
};

class ServingEngine {
 public:
  ServingEngine(const ServingSetup& setup, const RunControl& control, ServingResult& r)
      : setup_(setup), control_(control), r_(r), acceptance_rng_(setup.workload.seed ^ UINT64_C(0x5bec0de5bec0de5)) {}

  void run() {
    const auto t0 = Clock::now();
    if (setup_.disaggregation.enabled) {
      run_disaggregated();
    } else {
      run_colocated();
    }
    r_.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  }

 private:
  // The result's machine description from a pool.
  void describe(Pool& pool) {
    r_.hw = pool.target().hardware();
    r_.model = pool.target().model();
    r_.topology = pool.target().topology();
    r_.notes = pool.target().notes();
    const MemoryPlan& memory = pool.memory();
    r_.kv_blocks = memory.blocks;
    r_.kv_bytes_per_block = memory.kv_per_token * static_cast<double>(setup_.kv.block_tokens);
    r_.weights_bytes = memory.weights;
    r_.activations_bytes = memory.activations;
  }

  void add_records(const std::vector<RequestSpec>& specs) {
    for (const RequestSpec& s : specs) {
      RequestRecord rec;
      rec.spec = s;
      r_.requests.push_back(rec);
    }
  }

  LiveRequest live_request(std::size_t index) const {
    const RequestRecord& rec = r_.requests[index];
    LiveRequest live;
    live.record = static_cast<std::int64_t>(index);
    live.prompt_tokens = live.prompt = rec.spec.prompt_tokens;
    live.output = rec.spec.output_tokens;
    live.prefix_id = rec.spec.prefix_id;
    live.prefix_tokens = rec.spec.prefix_tokens;
    return live;
  }

  void add_prefix_counts(const Scheduler& s) {
    r_.prefix_hits += s.prefix_hits();
    r_.prefix_tokens_reused += s.prefix_tokens_reused();
    r_.prefix_evictions += s.prefix_evictions();
  }

  void report(std::size_t finished, std::size_t n) {
    control_.report(finished, n, "requests finished");
    if (control_.stop_requested()) throw Cancelled();
  }

  // One instance does prefill and decode: the serving clock alternates between arrivals and
  // its iterations.
  void run_colocated() {
    Pool pool(setup_, setup_.machine, "", r_);
    describe(pool);
    r_.chips = pool.chips();
    EngineInstance worker(pool, setup_, 0, acceptance_rng_);
    const std::vector<RequestSpec> specs = generate_requests(setup_.workload);
    check_serving_requests(setup_, specs, r_.model, worker.kv(), pool.ep_ranks());
    add_records(specs);
    ArrivalClock arrivals(setup_, specs);
    Frontend frontend(setup_.frontend);
    // Requests the API server has taken in, in the order the engine gets them.
    struct Intake {
      double ready_s;
      std::size_t record;
    };
    std::deque<Intake> intake;
    // The API server takes in the next request sent.
    auto take_in_next = [&] {
      const double sent = arrivals.next_s();
      const std::size_t i = arrivals.take();
      r_.requests[i].arrival_s = sent;
      intake.push_back({frontend.take_in(sent, r_.requests[i].spec.prompt_tokens), i});
    };
    const std::size_t n = specs.size();
    double now = 0;
    std::size_t finished = 0;
    // Scheduling ahead (SchedulerConfig::schedule_ahead): the batch that starts when an iteration
    // ends was formed when that iteration started, from the requests the engine had before then
    // (a response handed out as an iteration ends comes after that start's fetch: the client's
    // next request misses it).
    double fetched_s = 0;
    bool batch_formed_ahead = false;
    while (finished < n) {
      auto fetched = [&](double ready_s) { return batch_formed_ahead ? ready_s < fetched_s : ready_s <= now; };
      while (!intake.empty() && fetched(intake.front().ready_s)) {
        worker.scheduler().arrive(live_request(intake.front().record));
        intake.pop_front();
      }
      // Start what can start now: one iteration, or with pipeline stages one per free
      // micro-batch while the first stage is free.
      bool started = false;
      while (worker.start(now)) started = true;
      // An engine that started nothing keeps fetching (its loop spins, or blocks on the queue).
      if (started) fetched_s = now;
      batch_formed_ahead = false;
      if (!worker.busy()) {
        // Idle: the next request to reach the engine, taken in one at a time.
        if (intake.empty()) {
          if (!std::isfinite(arrivals.next_s())) throw std::logic_error("serving: requests wait but none can be admitted");
          // Every request the API server can start at that moment (a closed loop's clients all
          // send at 0) reaches the engine before it starts.
          const double start = frontend.intake_start(arrivals.next_s());
          do {
            take_in_next();
          } while (std::isfinite(arrivals.next_s()) && frontend.intake_start(arrivals.next_s()) <= start);
        }
        now = std::max(now, intake.front().ready_s);
        continue;
      }
      // While the chips run, the requests it can start before the iteration's responses come
      // (they go first).
      while (std::isfinite(arrivals.next_s()) && frontend.intake_start(arrivals.next_s()) < worker.end_s()) take_in_next();
      // Pipeline stages: a free micro-batch may start before the earliest iteration ends, when
      // the first stage is done or, if it is and nothing could start, when a request reaches
      // the engine.
      const double another = worker.next_start_s();
      double next = worker.end_s();
      if (another > now) {
        next = std::min(next, another);
      } else if (std::isfinite(another) && !intake.empty()) {
        next = std::min(next, intake.front().ready_s);
      }
      if (next < worker.end_s()) {
        now = next;
        continue;
      }
      now = worker.end_s();
      batch_formed_ahead = setup_.schedule_ahead();
      const Scheduler::Progress p = worker.finish(r_);
      // Each request with new tokens gets one response; the client has a token when it has it.
      for (const LiveRequest& l : p.produced) {
        RequestRecord& rec = r_.requests[static_cast<std::size_t>(l.record)];
        const double delivered = frontend.respond(now);
        if (rec.first_token_s < 0) rec.first_token_s = delivered;
        if (l.generated >= l.output) {
          rec.finish_s = delivered;
          ++finished;
          arrivals.finished(delivered);
        }
      }
      if (!p.finished.empty()) report(finished, n);
    }
    for (std::int64_t id : worker.scheduler().preempted()) ++r_.requests[static_cast<std::size_t>(id)].preemptions;
    add_prefix_counts(worker.scheduler());
    r_.frontend_busy_share = frontend.busy_share(now);
    r_.simulated_s = now;
  }

  void run_disaggregated() {
    const DisaggregationConfig& d = setup_.disaggregation;
    Experiment prefill_machine = setup_.machine, decode_machine = setup_.machine;
    prefill_machine.tp = d.prefill_tp > 0 ? d.prefill_tp : setup_.machine.tp;
    decode_machine.tp = d.decode_tp > 0 ? d.decode_tp : setup_.machine.tp;
    if (d.prefill_ep > 0) prefill_machine.ep = d.prefill_ep;
    if (d.decode_ep > 0) decode_machine.ep = d.decode_ep;
    if (d.prefill_moe_tp > 0 || d.prefill_ep > 0) prefill_machine.moe_tp = d.prefill_moe_tp;
    if (d.decode_moe_tp > 0 || d.decode_ep > 0) decode_machine.moe_tp = d.decode_moe_tp;
    for (Experiment* m : {&prefill_machine, &decode_machine}) {
      const std::int64_t gpus = m->tp * m->pp * m->ep;
      if (d.gpus_per_node > 0 && gpus > d.gpus_per_node) m->nodes = (gpus + d.gpus_per_node - 1) / d.gpus_per_node;
    }
    Pool prefill(setup_, prefill_machine, "prefill", r_), decode(setup_, decode_machine, "decode", r_);
    describe(decode);
    r_.prefill_kv_blocks = prefill.memory().blocks;
    r_.chips = d.prefill_instances * prefill.chips() + d.decode_instances * decode.chips();
    std::vector<std::unique_ptr<EngineInstance>> prefills, decodes;
    for (std::int64_t i = 0; i < d.prefill_instances; ++i) {
      prefills.push_back(std::make_unique<EngineInstance>(prefill, setup_, static_cast<int>(i), acceptance_rng_));
    }
    for (std::int64_t i = 0; i < d.decode_instances; ++i) {
      decodes.push_back(std::make_unique<EngineInstance>(decode, setup_, static_cast<int>(d.prefill_instances + i), acceptance_rng_));
    }
    const std::vector<RequestSpec> specs = generate_requests(setup_.workload);
    check_serving_requests(setup_, specs, r_.model, decodes.front()->kv(), decode.ep_ranks());
    // With expert parallelism a prompt lives on one EP rank of the prefill instance.
    const std::int64_t prefill_rank_blocks = prefills.front()->kv().capacity() / prefill.ep_ranks();
    for (const RequestSpec& s : specs) {
      if (prefills.front()->kv().blocks_for(s.prompt_tokens + 1) > prefill_rank_blocks) {
        throw InputError(serving_request_name(setup_, s) + ": its prompt needs more KV blocks than a prefill instance holds (" +
                         std::to_string(prefill_rank_blocks) + (prefill.ep_ranks() > 1 ? " on each EP rank" : "") + ")");
      }
    }
    add_records(specs);
    KvTransfer transfer(r_.hw, prefill_machine.tp, decode_machine.tp, r_.model.kv_bytes_per_token(setup_.machine.precision.kv));
    r_.transfer_topology = transfer.topology();
    // KV caches on their way to a decode instance.
    struct InFlight {
      double at;
      std::size_t record;
      std::size_t to;
    };
    std::deque<InFlight> in_flight;  // by arrival time, in the order sent when equal
    std::vector<std::size_t> bound_for(decodes.size(), 0);  // in flight per decode instance
    std::vector<std::int64_t> decode_iterations(specs.size(), 0);  // each request's on its decode instance
    // Each instance's requests not yet fetched by its engine loop. An overlapped loop (schedule
    // ahead: the decode pool's SchedulerConfig::schedule_ahead, the prefill pool's
    // DisaggregationConfig::prefill_schedule_ahead) forms the batch that starts when an
    // iteration ends from the requests it had when that iteration started; an idle one takes
    // them at once, as the colocated engine does.
    struct Fetch {
      std::deque<std::pair<double, LiveRequest>> waiting;  // (reached the instance at, request)
      double fetched_s = 0;
      bool formed_ahead = false;
    };
    std::vector<Fetch> prefill_fetch(prefills.size()), decode_fetch(decodes.size());
    const bool prefill_ahead = d.prefill_schedule_ahead, decode_ahead = setup_.schedule_ahead();
    auto start_instance = [](EngineInstance& w, Fetch& f, double at) {
      for (int pass = 0; pass < 2 && !w.busy(); ++pass) {
        while (!f.waiting.empty() && (f.formed_ahead ? f.waiting.front().first < f.fetched_s : f.waiting.front().first <= at)) {
          w.scheduler().arrive(f.waiting.front().second);
          f.waiting.pop_front();
        }
        if (w.start(at)) f.fetched_s = at;
        f.formed_ahead = false;
      }
    };
    // Load for least-loaded routing counts what waits to be fetched (and, for decode
    // instances, the KV caches on their way).
    std::vector<std::size_t> prefill_extra(prefills.size(), 0), decode_extra(decodes.size(), 0);
    auto extra = [](const std::vector<Fetch>& fetch, const std::vector<std::size_t>* more, std::vector<std::size_t>& out) {
      for (std::size_t i = 0; i < fetch.size(); ++i) out[i] = fetch[i].waiting.size() + (more ? (*more)[i] : 0);
      return &out;
    };
    // Each pool's counter for the routing policy (round robin: the next instance in turn).
    std::size_t next_prefill = 0, next_decode = 0;
    const InstanceRouting& routing = instance_routings().get(d.routing, "instance_routing");
    std::vector<std::size_t> loads;
    auto pick = [&](const std::vector<std::unique_ptr<EngineInstance>>& workers, const std::vector<std::size_t>* extra, std::size_t& turn) {
      loads.resize(workers.size());
      for (std::size_t i = 0; i < workers.size(); ++i) loads[i] = workers[i]->load() + (extra ? (*extra)[i] : 0);
      return routing.pick(loads, turn);
    };
    ArrivalClock arrivals(setup_, specs);
    const std::size_t n = specs.size();
    double now = 0;
    std::size_t finished = 0;
    auto finish_request = [&](std::size_t record) {
      r_.requests[record].finish_s = now;
      ++finished;
      arrivals.finished(now);
    };
    while (finished < n) {
      while (arrivals.next_s() <= now) {
        const double t = arrivals.next_s();
        const std::size_t i = arrivals.take();
        r_.requests[i].arrival_s = t;
        LiveRequest live = live_request(i);
        live.output = 1;  // the prefill instance produces the first token
        prefill_fetch[pick(prefills, extra(prefill_fetch, nullptr, prefill_extra), next_prefill)].waiting.emplace_back(t, live);
      }
      // KV caches that have arrived join their decode instance's queue, ready to decode.
      while (!in_flight.empty() && in_flight.front().at <= now) {
        const InFlight f = in_flight.front();
        in_flight.pop_front();
        --bound_for[f.to];
        LiveRequest live = live_request(f.record);
        live.cached = live.prompt;
        live.generated = 1;
        decode_fetch[f.to].waiting.emplace_back(f.at, live);
      }
      double next = std::min(arrivals.next_s(), in_flight.empty() ? INFINITY : in_flight.front().at);
      for (std::size_t i = 0; i < prefills.size(); ++i) start_instance(*prefills[i], prefill_fetch[i], now);
      for (std::size_t i = 0; i < decodes.size(); ++i) start_instance(*decodes[i], decode_fetch[i], now);
      for (auto* workers : {&prefills, &decodes}) {
        for (auto& w : *workers) {
          if (w->busy()) next = std::min(next, w->end_s());
        }
      }
      if (!std::isfinite(next)) throw std::logic_error("serving: requests wait but none can be admitted");
      now = next;
      for (std::size_t wi = 0; wi < prefills.size(); ++wi) {
        auto& w = prefills[wi];
        if (!w->busy() || w->end_s() > now) continue;
        prefill_fetch[wi].formed_ahead = prefill_ahead;
        const Scheduler::Progress p = w->finish(r_);
        // The prompts done in this iteration send their KV caches together.
        std::int64_t tokens = 0;
        for (const LiveRequest& l : p.finished) {
          RequestRecord& rec = r_.requests[static_cast<std::size_t>(l.record)];
          if (d.first_token == DisaggregationConfig::FirstToken::prefill || rec.spec.output_tokens == 1) rec.first_token_s = now;
          if (rec.spec.output_tokens == 1) {
            finish_request(static_cast<std::size_t>(l.record));
          } else {
            // Sliding-window layers hold at most their window: the cache sent is the capped one,
            // counted in tokens of every layer's KV.
            const DType kv = setup_.machine.precision.kv;
            tokens += static_cast<std::int64_t>(std::ceil(r_.model.kv_cache_bytes(kv, rec.spec.prompt_tokens) /
                                                          r_.model.kv_bytes_per_token(kv)));
          }
        }
        if (tokens == 0) continue;
        // With expert parallelism the prompts are spread over the prefill instance's EP ranks,
        // each sending its own share from its chips at once: the busiest (an even share,
        // rounded up) sets the time, and the bytes are all of them.
        const std::int64_t ranks = prefill.ep_ranks(), share = (tokens + ranks - 1) / ranks;
        const KvTransferOutcome& sent = transfer.of(bucket_tokens(share, setup_.buckets_per_octave));
        const double senders = static_cast<double>(tokens) / static_cast<double>(share);
        ++r_.kv_transfers;
        r_.kv_transfer_bytes += sent.bytes * senders;
        r_.kv_link_bytes += sent.link_bytes * senders;
        r_.kv_transfer_s += sent.seconds;
        for (const LiveRequest& l : p.finished) {
          RequestRecord& rec = r_.requests[static_cast<std::size_t>(l.record)];
          if (rec.spec.output_tokens == 1) continue;
          rec.kv_arrival_s = now + sent.seconds;
          const std::size_t to = pick(decodes, extra(decode_fetch, &bound_for, decode_extra), next_decode);
          ++bound_for[to];
          const InFlight f{rec.kv_arrival_s, static_cast<std::size_t>(l.record), to};
          in_flight.insert(std::upper_bound(in_flight.begin(), in_flight.end(), f,
                                            [](const InFlight& a, const InFlight& b) { return a.at < b.at; }),
                           f);
        }
      }
      for (std::size_t wi = 0; wi < decodes.size(); ++wi) {
        auto& w = decodes[wi];
        if (!w->busy() || w->end_s() > now) continue;
        decode_fetch[wi].formed_ahead = decode_ahead;
        const Scheduler::Progress p = w->finish(r_);
        for (const LiveRequest& l : p.produced) {
          const std::size_t i = static_cast<std::size_t>(l.record);
          if (r_.requests[i].first_token_s < 0 && (++decode_iterations[i] >= d.decode_first_response || l.generated >= l.output)) {
            r_.requests[i].first_token_s = now;
          }
        }
        for (const LiveRequest& l : p.finished) finish_request(static_cast<std::size_t>(l.record));
        if (!p.finished.empty()) report(finished, n);
      }
    }
    for (auto* workers : {&prefills, &decodes}) {
      for (auto& w : *workers) {
        for (std::int64_t id : w->scheduler().preempted()) ++r_.requests[static_cast<std::size_t>(id)].preemptions;
        add_prefix_counts(w->scheduler());
      }
    }
    r_.simulated_s = now;
  }

  const ServingSetup& setup_;
  const RunControl& control_;
  ServingResult& r_;
  // Acceptance draws of speculative decoding: their own stream of the workload's seed, in the
  // order of the work.
  std::mt19937_64 acceptance_rng_;
};

}  // namespace

ServingResult run_serving(const ServingSetup& given, const RunControl& control) {
  ServingSetup setup = given;
  setup.machine = resolve_checkpoint_precision(given.machine);
  check_serving_setup(setup);
  ServingResult r;
  r.setup = setup;
  ServingEngine(setup, control, r).run();
  r.summary = summarize(r);
  return r;
}

}  // namespace roofsim
