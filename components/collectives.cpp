#include "components/collectives.hpp"

#include <stdexcept>

#include "core/error.hpp"

namespace roofsim {

namespace {
constexpr int kMaxRoutedAllToAll = 512;
const char* kKinds[] = {"allreduce", "allgather", "reducescatter", "alltoall", "sendrecv"};
const char* kAlgos[] = {"ring", "bidirectional_ring", "torus", "torus_split", "switch_oneshot", "switch_reduce", "routed"};
}  // namespace

namespace {
// Finds `s` among `names` and stores its index as the enum `E`.
template <typename E, std::size_t N>
bool parse_name(const std::string& s, const char* const (&names)[N], E& out) {
  for (std::size_t i = 0; i < N; ++i) {
    if (s == names[i]) {
      out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}
}  // namespace

bool parse_collective_kind(const std::string& s, CollectiveKind& out) { return parse_name(s, kKinds, out); }
bool parse_collective_algo(const std::string& s, CollectiveAlgo& out) { return parse_name(s, kAlgos, out); }
std::string collective_kind_name(CollectiveKind k) { return kKinds[static_cast<int>(k)]; }
std::string collective_algo_name(CollectiveAlgo a) { return kAlgos[static_cast<int>(a)]; }

bool is_subtorus(const Topology& t, const std::vector<int>& group) {
  if (group.empty()) return true;
  const int p = static_cast<int>(group.size());
  if (t.spanned_dims(p) < 0 || group.front() % p != 0) return false;
  for (int i = 0; i < p; ++i) {
    if (group[static_cast<std::size_t>(i)] != group.front() + i) return false;
  }
  return true;
}

CollectiveAlgo default_algo(const Topology& t, CollectiveKind k, const std::vector<int>& group) {
  if (t.kind == Topology::Kind::switched) return k == CollectiveKind::alltoall ? CollectiveAlgo::switch_oneshot : CollectiveAlgo::ring;
  if (k == CollectiveKind::alltoall) return CollectiveAlgo::routed;
  if (k == CollectiveKind::sendrecv || !is_subtorus(t, group)) return CollectiveAlgo::ring;
  if (t.kind == Topology::Kind::torus) return CollectiveAlgo::torus_split;
  return k == CollectiveKind::allreduce ? CollectiveAlgo::bidirectional_ring : CollectiveAlgo::ring;
}

void check_algo(const Topology& t, CollectiveKind k, CollectiveAlgo a, const std::vector<int>& group) {
  const bool sw = t.kind == Topology::Kind::switched;
  auto fail = [&](const std::string& why) {
    throw InputError("${algo} " + collective_algo_name(a) + " for " + collective_kind_name(k) + " on " + t.name() + ": " + why);
  };
  if ((a == CollectiveAlgo::switch_oneshot || a == CollectiveAlgo::switch_reduce) && !sw) fail("needs a switch topology (switch:N)");
  if ((a == CollectiveAlgo::torus || a == CollectiveAlgo::torus_split || a == CollectiveAlgo::bidirectional_ring) && sw) {
    fail("a switch has no ring or torus links");
  }
  if ((a == CollectiveAlgo::torus || a == CollectiveAlgo::torus_split) &&
      (k == CollectiveKind::alltoall || k == CollectiveKind::sendrecv)) {
    fail("torus algorithms are lowered for all-reduce, all-gather and reduce-scatter");
  }
  if (a == CollectiveAlgo::switch_reduce && k != CollectiveKind::allreduce) fail("in-switch reduction is an all-reduce");
  if (a == CollectiveAlgo::routed && sw) fail("a switch has no routes of links (use switch_oneshot)");
  if (a == CollectiveAlgo::routed && k != CollectiveKind::alltoall) fail("routed is an all-to-all algorithm");
  if (k == CollectiveKind::alltoall && a != CollectiveAlgo::switch_oneshot && a != CollectiveAlgo::routed) {
    fail(sw ? "all-to-all on a switch is switch_oneshot" : "all-to-all on a ring or torus is routed");
  }
  if (sw || k == CollectiveKind::sendrecv || k == CollectiveKind::alltoall) return;
  if (!is_subtorus(t, group)) {
    if (a != CollectiveAlgo::ring) {
      fail("a group of " + std::to_string(group.size()) + " chips that spans no whole leading dimensions of " + t.name() +
           " (sizes that do: " + t.group_sizes() + ") has no links of its own: it runs a ring routed between its members (${algo} ring)");
    }
    return;
  }
  if (t.kind == Topology::Kind::torus && (a == CollectiveAlgo::ring || a == CollectiveAlgo::bidirectional_ring)) {
    fail("on a multi-dimensional torus use torus or torus_split");
  }
}

// One sequence of ring phases over part of the buffer. A phase runs rings along one dimension
// (or the switch ring) for `steps` steps of `chunk` bytes; the stream's next phase starts when
// every chip has finished this one.
struct CollectiveRun::Stream {
  struct Phase {
    int dim = 0;
    int direction = +1;
    int steps = 0;
    std::uint64_t chunk = 0;
  };
  std::vector<Phase> phases;
  std::size_t phase = 0;
  std::vector<int> received;  // per chip, steps received in the current phase
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
  if (t.kind != Topology::Kind::switched && spec.kind != CollectiveKind::sendrecv && spec.algo != CollectiveAlgo::routed) {
    // A sub-torus runs on its own links; any other group runs a ring whose steps are routed
    // from member to member over the links of the whole torus (check_algo allowed only that).
    if (is_subtorus(t, members_)) {
      dims_ = t.spanned_dims(members());
    } else {
      routed_ring_ = true;
    }
  }
  if (spec.algo == CollectiveAlgo::routed && members() > kMaxRoutedAllToAll) {
    // Every pair is a routed transfer with an event per hop: 4096 chips would be 16.8 M
    // transfers and 200 M events (minutes, gigabytes).
    throw InputError("a routed all-to-all over " + std::to_string(members()) + " chips: at most " +
                     std::to_string(kMaxRoutedAllToAll) + " (every pair of chips is a transfer of its own)");
  }
  const std::uint64_t n = spec.bytes;
  const int p = members();
  // Chunks round up: every byte of the buffer moves, at worst a few bytes more.
  auto share = [](std::uint64_t bytes, std::uint64_t parts) { return (bytes + parts - 1) / parts; };
  auto ring_stream = [&](int dim, int direction, std::uint64_t bytes, int k, int rounds) {
    auto s = std::make_unique<Stream>();
    s->phases.push_back({dim, direction, rounds * (k - 1), share(bytes, static_cast<std::uint64_t>(k))});
    return s;
  };
  switch (spec.algo) {
    case CollectiveAlgo::ring:
    case CollectiveAlgo::bidirectional_ring: {
      const int rounds = spec.kind == CollectiveKind::allreduce ? 2 : 1;
      if (spec.kind == CollectiveKind::sendrecv) {
        auto s = std::make_unique<Stream>();
        s->phases.push_back({0, +1, 1, n});
        streams_.push_back(std::move(s));
        break;
      }
      if (spec.algo == CollectiveAlgo::ring) {
        streams_.push_back(ring_stream(0, +1, n, p, rounds));
      } else {
        streams_.push_back(ring_stream(0, +1, share(n, 2), p, rounds));
        streams_.push_back(ring_stream(0, -1, share(n, 2), p, rounds));
      }
      break;
    }
    case CollectiveAlgo::torus:
    case CollectiveAlgo::torus_split: {
      const int dims = dims_;  // the spanned dimensions only: a sub-torus has links of its own there
      const int parts = spec.algo == CollectiveAlgo::torus_split ? dims : 1;
      for (int part = 0; part < parts; ++part) {
        for (int direction : {+1, -1}) {
          auto s = std::make_unique<Stream>();
          std::uint64_t bytes = share(n, static_cast<std::uint64_t>(2 * parts));
          std::vector<int> order;
          for (int d = 0; d < dims; ++d) order.push_back((part + d) % dims);
          // Reduce-scatter dimension by dimension, the shard shrinking each time; then
          // all-gather back in reverse order.
          std::vector<Stream::Phase> rs;
          for (int d : order) {
            const int k = t.dims[static_cast<std::size_t>(d)];
            if (k == 1) continue;
            bytes = share(bytes, static_cast<std::uint64_t>(k));
            rs.push_back({d, direction, k - 1, bytes});
          }
          // All-reduce: both halves; reduce-scatter: the first; all-gather: the second.
          if (spec.kind != CollectiveKind::allgather) s->phases = rs;
          if (spec.kind != CollectiveKind::reducescatter) {
            for (auto it = rs.rbegin(); it != rs.rend(); ++it) s->phases.push_back(*it);
          }
          streams_.push_back(std::move(s));
        }
      }
      break;
    }
    case CollectiveAlgo::routed:
    case CollectiveAlgo::switch_oneshot:
    case CollectiveAlgo::switch_reduce: {
      // Represented as phases with dim -1: every chip sends its share to every other chip.
      auto s = std::make_unique<Stream>();
      const std::uint64_t each = share(n, static_cast<std::uint64_t>(p));
      const int phases = spec.algo == CollectiveAlgo::switch_reduce ? 1
                         : spec.kind == CollectiveKind::allreduce   ? 2 : 1;
      for (int i = 0; i < phases; ++i) s->phases.push_back({-1, 0, 1, spec.algo == CollectiveAlgo::switch_reduce ? n : each});
      streams_.push_back(std::move(s));
      break;
    }
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
  start_phase(s);
}

void CollectiveRun::start_phase(std::size_t s) {
  Stream& st = *streams_[s];
  const Stream::Phase& ph = st.phases[st.phase];
  const int p = members();
  std::fill(st.received.begin(), st.received.end(), 0);
  st.chips_done = 0;
  if (ph.dim < 0) {
    if (spec_.algo == CollectiveAlgo::switch_reduce) {
      std::vector<Callback> done;
      for (int c = 0; c < p; ++c) done.push_back([this, s, c] { chip_received(s, c, 0); });
      fabric_.switch_reduce(ph.chunk, done, members_);
      return;
    }
    // One-shot: every chip sends its share to each other chip, in shifted rounds (round k:
    // chip i to chip i + k) so that no two chips aim at the same port at once; a chip has
    // finished the phase when it has received p - 1 shares. Routed (ring or torus): the same
    // rounds, each share along its dimension-order route over the links of the whole torus.
    for (int k = 1; k < p; ++k) {
      for (int from = 0; from < p; ++from) {
        const int to = (from + k) % p;
        fabric_.send_to(members_[static_cast<std::size_t>(from)], members_[static_cast<std::size_t>(to)], ph.chunk, [this, s, to, p] {
          Stream& st2 = *streams_[s];
          if (++st2.received[static_cast<std::size_t>(to)] == p - 1) chip_received(s, to, 0);
        });
      }
    }
    return;
  }
  if (spec_.kind == CollectiveKind::sendrecv) {
    auto arrived = [this, s] {
      streams_[s]->chips_done = members() - 1;
      chip_received(s, 1, 0);
    };
    fabric_.send_to(members_[0], members_[1 % members_.size()], ph.chunk, arrived);
    return;
  }
  for (int c = 0; c < p; ++c) send_step(s, c, 0);
}

void CollectiveRun::send_step(std::size_t s, int chip, int step) {
  const Stream::Phase& ph = streams_[s]->phases[streams_[s]->phase];
  if (fabric_.topology().kind == Topology::Kind::switched || routed_ring_) {
    // `chip` is a position in the group's ring; the step goes through the switch, or is routed
    // over the torus to the next member.
    const int to = (chip + ph.direction + members()) % members();
    fabric_.send_to(members_[static_cast<std::size_t>(chip)], members_[static_cast<std::size_t>(to)], ph.chunk,
                    [this, s, to, step] { chip_received(s, to, step); });
  } else {
    // `chip` is a position in the sub-torus; the ring along `dim` stays inside it.
    const int from = members_[static_cast<std::size_t>(chip)];
    const int to = position(fabric_.neighbour(from, ph.dim, ph.direction));
    fabric_.send(from, ph.dim, ph.direction, ph.chunk, [this, s, to, step] { chip_received(s, to, step); });
  }
}

void CollectiveRun::chip_received(std::size_t s, int chip, int step) {
  Stream& st = *streams_[s];
  const Stream::Phase& ph = st.phases[st.phase];
  if (ph.dim >= 0 && spec_.kind != CollectiveKind::sendrecv) {
    // What a chip receives at step s it forwards (reduced) at step s + 1.
    if (step + 1 < ph.steps) {
      send_step(s, chip, step + 1);
      return;
    }
  }
  if (++st.chips_done < members()) return;
  if (++st.phase < st.phases.size()) {
    start_phase(s);
  } else {
    stream_done();
  }
}

void CollectiveRun::stream_done() {
  if (--streams_left_ == 0 && done_) done_();
}

}  // namespace roofsim
