#include "components/collectives.hpp"

#include <stdexcept>

#include "core/error.hpp"

namespace roofsim {

namespace {
constexpr int kMaxRoutedAllToAll = 512;
}  // namespace

CollectiveAlgo default_algo(const Topology& t, CollectiveKind k, const std::vector<int>& group) {
  // On a switch, NCCL as its tuner chooses (components/collective_algorithms/nccl.cpp); so too
  // a group inside one node of several.
  if (t.switched(group)) return k == CollectiveKind::sendrecv ? CollectiveAlgo::ring : CollectiveAlgo{"nccl"};
  // On a full mesh, every share on its own pair's links (components/collective_algorithms/mesh_oneshot.cpp
  // says why rather than RCCL's rings).
  if (t.direct_pairs()) return k == CollectiveKind::sendrecv ? CollectiveAlgo::ring : CollectiveAlgo{"mesh_oneshot"};
  if (t.networked()) {
    // Across nodes, NCCL's hierarchy (hierarchical.cpp); a group it cannot split evenly over
    // its nodes runs one ring through its members, and a send is one transfer.
    const CollectiveAlgo h{"hierarchical"};
    if (k != CollectiveKind::sendrecv && collective_algorithms().get(h.name, "algo").refusal(t, k, group).empty()) return h;
    return CollectiveAlgo::ring;
  }
  if (!t.rings()) return CollectiveAlgo::ring;  // over whatever links the family sends on
  if (k == CollectiveKind::alltoall) return CollectiveAlgo::routed;
  if (k == CollectiveKind::sendrecv || !is_subtorus(t, group)) return CollectiveAlgo::ring;
  if (t.multi_dimensional()) return CollectiveAlgo::torus_split;
  return k == CollectiveKind::allreduce ? CollectiveAlgo::bidirectional_ring : CollectiveAlgo::ring;
}

CollectiveKind collective_kind_of(const OpNode& op) {
  if (op.all_to_all) return CollectiveKind::alltoall;
  if (op.ep_exchange == OpNode::EpExchange::allgather) return CollectiveKind::allgather;
  if (op.ep_exchange == OpNode::EpExchange::reducescatter) return CollectiveKind::reducescatter;
  return CollectiveKind::allreduce;
}

CollectiveAlgo framework_algo(const Topology& t, CollectiveKind k, const std::vector<int>& group, const std::string& allreduce) {
  if (k == CollectiveKind::allreduce && !allreduce.empty() && allreduce != "nccl") {
    const CollectiveAlgo own{allreduce};
    if (collective_algorithms().get(own.name, "algo").refusal(t, k, group).empty()) return own;
  }
  return default_algo(t, k, group);
}

const std::vector<std::string>& allreduce_kernel_names() {
  static const std::vector<std::string> names{"nccl", "trtllm_custom", "vllm_custom"};
  return names;
}

void check_algo(const Topology& t, CollectiveKind k, CollectiveAlgo a, const std::vector<int>& group) {
  const std::string why = collective_algorithms().get(a.name, "algo").refusal(t, k, group);
  if (!why.empty()) throw InputError("${algo} " + a.name + " for " + collective_kind_name(k) + " on " + t.name() + ": " + why);
}

// One stream of phases over part of the buffer (CollectivePhase); the stream's next phase
// starts when every member has finished this one.
struct CollectiveRun::Stream {
  CollectiveStream phases;
  std::size_t phase = 0;
  bool running = false;  // its current phase has started
  std::size_t finished = 0;  // phases finished
  std::vector<int> received;  // per chip, steps (ring) or shares (all pairs) received in the current phase
  int chips_done = 0;
};

CollectiveRun::CollectiveRun(Fabric& fabric, const CollectiveSpec& spec) : fabric_(fabric), spec_(spec) {
  check_algo(fabric.topology(), spec.kind, spec.algo, spec.group);
  const Topology& t = fabric.topology();
  members_ = spec.group;
  if (members_.empty()) {
    for (int c = 0; c < fabric.chips(); ++c) members_.push_back(c);
  }
  for (int c : members_) {
    if (c < 0 || c >= fabric.chips()) throw std::logic_error("a collective's group names a chip the fabric lacks");
  }
  if (t.rings() && spec.kind != CollectiveKind::sendrecv) {
    // A sub-torus runs its rings on its own links; any other group's ring steps are routed
    // from member to member over the links of the whole torus (check_algo allowed only that).
    if (is_subtorus(t, members_)) {
      dims_ = t.spanned_dims(members());
    } else {
      routed_ring_ = true;
    }
  }
  const int p = members();
  const CollectiveLowering lowering{fabric.hw(), t, spec.kind, spec.bytes, p, dims_, spec.dtype, spec.group};
  for (CollectiveStream& phases : collective_algorithms().get(spec.algo.name, "algo").lower(lowering)) {
    for (const CollectivePhase& ph : phases) {
      if (ph.pattern == CollectivePhase::Pattern::all_pairs && t.rings() && p > kMaxRoutedAllToAll) {
        // Every pair is a routed transfer with an event per hop: 4096 chips would be 16.8 M
        // transfers and 200 M events (minutes, gigabytes).
        throw InputError("a routed all-to-all over " + std::to_string(p) + " chips: at most " +
                         std::to_string(kMaxRoutedAllToAll) + " (every pair of chips is a transfer of its own)");
      }
    }
    for (CollectivePhase& ph : phases) ph.wire.trace_name = spec.trace_name;
    auto s = std::make_unique<Stream>();
    s->phases = std::move(phases);
    streams_.push_back(std::move(s));
  }
  for (auto& s : streams_) s->received.assign(static_cast<std::size_t>(p), 0);
  if (p == 1) streams_.clear();  // a group of one has nothing to exchange
}

CollectiveRun::~CollectiveRun() = default;

void CollectiveRun::start(Callback done) {
  done_ = std::move(done);
  streams_left_ = streams_.size();
  if (streams_.empty()) {
    fabric_.at_now(std::move(done_));
    return;
  }
  for (std::size_t s = 0; s < streams_.size(); ++s) start_stream(s);
}

void CollectiveRun::start_stream(std::size_t s) {
  if (streams_[s]->phases.empty()) {
    stream_done();
    return;
  }
  try_start(s);
}

void CollectiveRun::try_start(std::size_t s) {
  Stream& st = *streams_[s];
  if (st.running || st.phase >= st.phases.size()) return;
  // A pipelined phase waits for the stream `depth` before it to have finished the same phase.
  const std::size_t depth = static_cast<std::size_t>(st.phases[st.phase].pipeline_depth);
  if (depth > 0 && s >= depth && streams_[s - depth]->finished <= st.phase) return;
  st.running = true;
  start_phase(s);
}

void CollectiveRun::start_phase(std::size_t s) {
  Stream& st = *streams_[s];
  const CollectivePhase& ph = st.phases[st.phase];
  const int p = members();
  std::fill(st.received.begin(), st.received.end(), 0);
  st.chips_done = 0;
  switch (ph.pattern) {
    case CollectivePhase::Pattern::switch_reduce: {
      std::vector<Callback> done;
      for (int c = 0; c < p; ++c) done.push_back([this, s, c] { chip_received(s, c, 0); });
      fabric_.switch_reduce(ph.chunk, done, members_, ph.wire);
      return;
    }
    case CollectivePhase::Pattern::delay:
      // A fixed cost of the kernel: every member finishes the phase together.
      fabric_.after(ph.seconds, [this, s] {
        streams_[s]->chips_done = members() - 1;
        chip_received(s, 0, 0);
      });
      return;
    case CollectivePhase::Pattern::all_pairs:
      // Every chip sends its share to each other chip, in shifted rounds (round k: chip i to
      // chip i + k) so that no two chips aim at the same port at once; a chip has finished the
      // phase when it has received p - 1 shares. Through the switch, or each share along its
      // dimension-order route over the links of the whole torus.
      for (int k = 1; k < p; ++k) {
        for (int from = 0; from < p; ++from) {
          const int to = (from + k) % p;
          fabric_.send_to(
              members_[static_cast<std::size_t>(from)], members_[static_cast<std::size_t>(to)], ph.chunk,
              [this, s, to, p] {
                Stream& st2 = *streams_[s];
                if (++st2.received[static_cast<std::size_t>(to)] == p - 1) chip_received(s, to, 0);
              },
              ph.wire);
        }
      }
      return;
    case CollectivePhase::Pattern::send: {
      auto arrived = [this, s] {
        streams_[s]->chips_done = members() - 1;
        chip_received(s, 1, 0);
      };
      fabric_.send_to(members_[0], members_[1 % members_.size()], ph.chunk, arrived, ph.wire);
      return;
    }
    case CollectivePhase::Pattern::ring:
      for (int c = 0; c < p; ++c) send_step(s, c, 0);
      return;
  }
}

void CollectiveRun::send_step(std::size_t s, int chip, int step) {
  const CollectivePhase& ph = streams_[s]->phases[streams_[s]->phase];
  if (!fabric_.topology().rings() || routed_ring_) {
    // `chip` is a position in the group's ring (or in one of the phase's rings); the step goes
    // through the switch, over the mesh's direct link, is routed over the torus, or crosses
    // the network to the member `stride` on (mesh rings) or the next one in its ring.
    const int p = members();
    int to = ((chip + ph.direction * ph.stride) % p + p) % p;
    if (ph.ring_size > 0) {
      const int at = (chip / ph.ring_stride) % ph.ring_size;
      to = chip + ((at + ph.direction + ph.ring_size) % ph.ring_size - at) * ph.ring_stride;
    }
    fabric_.send_to(
        members_[static_cast<std::size_t>(chip)], members_[static_cast<std::size_t>(to)], ph.chunk,
        [this, s, to, step] { chip_received(s, to, step); }, ph.wire);
  } else {
    // `chip` is a position in the sub-torus; the ring along `dim` stays inside it.
    const int from = members_[static_cast<std::size_t>(chip)];
    const int to = position(fabric_.neighbour(from, ph.dim, ph.direction));
    fabric_.send(from, ph.dim, ph.direction, ph.chunk, [this, s, to, step] { chip_received(s, to, step); }, ph.wire);
  }
}

void CollectiveRun::chip_received(std::size_t s, int chip, int step) {
  Stream& st = *streams_[s];
  const CollectivePhase& ph = st.phases[st.phase];
  if (ph.pattern == CollectivePhase::Pattern::ring) {
    // What a chip receives at step s it forwards (reduced) at step s + 1.
    if (step + 1 < ph.steps) {
      send_step(s, chip, step + 1);
      return;
    }
  }
  if (++st.chips_done < members()) return;
  st.running = false;
  ++st.finished;
  if (++st.phase < st.phases.size()) {
    try_start(s);
  } else {
    stream_done();
  }
  // Pipelined streams that waited for this phase.
  for (std::size_t later = s + 1; later < streams_.size(); ++later) try_start(later);
}

void CollectiveRun::stream_done() {
  if (--streams_left_ == 0 && done_) done_();
}

}  // namespace roofsim
