// NCCL on a switch (NVLink/NVSwitch): ring with the LL, LL128 and Simple protocols, NVLS
// (in-switch reduction), point-to-point all-to-all; `nccl` picks the fastest by the same
// mechanisms' closed forms as NCCL's tuner does with its cost model (nccl_model.hpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "components/collective_algorithms/nccl_model.hpp"

namespace roofsim {

namespace nccl {

std::string proto_name(Proto p) {
  switch (p) {
    case Proto::ll: return "LL";
    case Proto::ll128: return "LL128";
    case Proto::simple: return "Simple";
  }
  return "?";
}

std::string plan_name(const Plan& p) {
  switch (p.route) {
    case Route::ring: return "ring/" + proto_name(p.proto);
    case Route::nvls: return "NVLS/Simple";
    case Route::p2p: return "p2p/" + proto_name(p.proto);
  }
  return "?";
}

namespace {
double efficiency(const CollectiveKernelSpec& c, Proto pr) {
  return pr == Proto::ll ? c.ll_efficiency : pr == Proto::ll128 ? c.ll128_efficiency : c.simple_efficiency;
}
double step_s(const CollectiveKernelSpec& c, Proto pr) {
  return pr == Proto::ll ? c.ll_step_s : pr == Proto::ll128 ? c.ll128_step_s : c.simple_step_s;
}
double channel_bytes(const CollectiveKernelSpec& c, Proto pr) {
  return pr == Proto::ll ? c.ll_channel_bytes : pr == Proto::ll128 ? c.ll128_channel_bytes : c.simple_channel_bytes;
}
double switch_latency(const HardwareSpec& hw) { return 2 * hw.links.latency_s; }
double share(double bytes, int p) { return std::ceil(bytes / p); }
Proto p2p_proto(const CollectiveKernelSpec& c, double per_peer) {
  return per_peer <= c.p2p_ll_max_bytes ? Proto::ll : Proto::simple;
}
Wire p2p_wire(const CollectiveKernelSpec& c, Proto pr) {
  Wire w;
  w.efficiency = c.p2p_efficiency * efficiency(c, pr);
  w.extra_latency_s = pr == Proto::simple && c.p2p_simple_step_s > 0 ? c.p2p_simple_step_s : step_s(c, pr);
  return w;
}
}  // namespace

double ring_copy_s(const CollectiveKernelSpec& c, CollectiveKind k, int p, double bytes) {
  if (c.ring_copy_bandwidth <= 0 || p < 2) return 0;
  const bool ring_op = k == CollectiveKind::allgather || k == CollectiveKind::reducescatter || k == CollectiveKind::allreduce;
  return ring_op ? share(bytes, p) / c.ring_copy_bandwidth : 0;
}

int channels(const CollectiveKernelSpec& c, Proto pr, double bytes) {
  if (c.channels <= 0) return 0;  // no limit
  const double per = channel_bytes(c, pr);
  const double n = per > 0 ? std::floor(bytes / per) : static_cast<double>(c.channels);
  return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(c.channels)));
}

Wire wire(const CollectiveKernelSpec& c, Proto pr, double bytes) {
  Wire w;
  w.efficiency = efficiency(c, pr);
  const int n = channels(c, pr, bytes);
  if (n > 0 && c.channel_bandwidth > 0) w.rate_cap = n * c.channel_bandwidth;
  w.extra_latency_s = step_s(c, pr);
  return w;
}

double port_rate(const HardwareSpec& hw, const Wire& w) {
  const double port = hw.links.bandwidth_per_direction * hw.links.efficiency * static_cast<double>(hw.links.count) * w.efficiency;
  return w.rate_cap > 0 ? std::min(port, w.rate_cap) : port;
}

double ring_s(const HardwareSpec& hw, CollectiveKind k, int p, double bytes, Proto pr) {
  if (p < 2) return 0;
  const CollectiveKernelSpec& c = hw.collectives;
  const Wire w = wire(c, pr, bytes);
  const int steps = collective_detail::ring_rounds(k) * (p - 1);
  return c.launch_s + steps * (switch_latency(hw) + w.extra_latency_s + share(bytes, p) / port_rate(hw, w)) +
         ring_copy_s(c, k, p, bytes);
}

double nvls_s(const HardwareSpec& hw, int p, double bytes) {
  if (p < 2) return 0;
  const CollectiveKernelSpec& c = hw.collectives;
  Wire w;
  w.efficiency = c.simple_efficiency;
  double rate = port_rate(hw, w);
  if (hw.links.switch_reduction_rate > 0) rate = std::min(rate, hw.links.switch_reduction_rate);
  // Reduce-scatter by multimem loads (the buffer up, a shard down), then all-gather by
  // multicast stores (a shard up, the buffer down): every port carries buffer + shard.
  return c.launch_s + c.nvls_latency_s + (bytes + share(bytes, p)) / rate + switch_latency(hw);
}

double p2p_s(const HardwareSpec& hw, CollectiveKind k, int p, double bytes) {
  if (p < 2) return 0;
  const CollectiveKernelSpec& c = hw.collectives;
  const bool all = k == CollectiveKind::alltoall;
  const double each = all ? share(bytes, p) : bytes;
  const int peers = all ? p - 1 : 1;
  const Wire w = p2p_wire(c, p2p_proto(c, each));
  return c.launch_s + peers * c.p2p_peer_s + peers * each / port_rate(hw, w) + switch_latency(hw) + w.extra_latency_s;
}

double plan_s(const HardwareSpec& hw, CollectiveKind k, int p, double bytes, const Plan& plan) {
  switch (plan.route) {
    case Route::ring: return ring_s(hw, k, p, bytes, plan.proto);
    case Route::nvls: return nvls_s(hw, p, bytes);
    case Route::p2p: return p2p_s(hw, k, p, bytes);
  }
  return 0;
}

bool switch_reduces(DType dtype) { return dtype == DType::fp32 || dtype == DType::bf16 || dtype == DType::fp16; }

Plan best_plan(const HardwareSpec& hw, CollectiveKind k, int p, double bytes, DType dtype, bool allow_ring, bool allow_nvls,
               const Proto* only) {
  if (k == CollectiveKind::alltoall || k == CollectiveKind::sendrecv) {
    const double each = k == CollectiveKind::alltoall ? share(bytes, p) : bytes;
    return {Route::p2p, p2p_proto(hw.collectives, each)};
  }
  std::vector<Plan> candidates;
  if (allow_ring) {
    for (Proto pr : {Proto::ll, Proto::ll128, Proto::simple}) {
      if (!only || *only == pr) candidates.push_back({Route::ring, pr});
    }
  }
  if (allow_nvls && k == CollectiveKind::allreduce && hw.links.in_switch_reduction && switch_reduces(dtype)) candidates.push_back({Route::nvls, Proto::simple});
  if (candidates.empty()) return {Route::nvls, Proto::simple};  // nccl_nvls on a format it cannot reduce: refused before
  Plan best = candidates.front();
  double best_s = std::numeric_limits<double>::infinity();
  for (const Plan& c : candidates) {
    const double t = plan_s(hw, k, p, bytes, c);
    if (t < best_s) {  // ties go to the earlier (lower-latency) protocol
      best_s = t;
      best = c;
    }
  }
  return best;
}

std::vector<CollectiveStream> lower(const HardwareSpec& hw, CollectiveKind k, int p, std::uint64_t bytes, const Plan& plan) {
  using Pattern = CollectivePhase::Pattern;
  const CollectiveKernelSpec& c = hw.collectives;
  const double n = static_cast<double>(bytes);
  CollectivePhase launch{Pattern::delay, 0, 0, 1, 0, {}, c.launch_s};
  CollectiveStream s;
  switch (plan.route) {
    case Route::ring:
      s = {launch, {Pattern::ring, 0, +1, collective_detail::ring_rounds(k) * (p - 1), collective_share(bytes, static_cast<std::uint64_t>(p)),
                    wire(c, plan.proto, n), 0}};
      if (const double copy = ring_copy_s(c, k, p, n); copy > 0) s.push_back({Pattern::delay, 0, 0, 1, 0, {}, copy});
      break;
    case Route::nvls: {
      Wire w;
      w.efficiency = c.simple_efficiency;
      launch.seconds += c.nvls_latency_s;
      s = {launch, {Pattern::switch_reduce, -1, 0, 1, bytes + collective_share(bytes, static_cast<std::uint64_t>(p)), w, 0}};
      break;
    }
    case Route::p2p: {
      const bool all = k == CollectiveKind::alltoall;
      const std::uint64_t each = all ? collective_share(bytes, static_cast<std::uint64_t>(p)) : bytes;
      launch.seconds += (all ? p - 1 : 1) * c.p2p_peer_s;  // posting every peer's send and receive
      s = {launch, {all ? Pattern::all_pairs : Pattern::send, -1, 0, 1, each, p2p_wire(c, plan.proto), 0}};
      break;
    }
  }
  return {s};
}

}  // namespace nccl

namespace {
using namespace collective_detail;

// nccl: ring or NVLS, the protocol, as the tuner picks; nccl_ring: ring, the protocol picked;
// nccl_ring_PROTO: ring with one protocol; nccl_nvls: NVLS.
class Nccl : public CollectiveAlgorithm {
 public:
  Nccl(std::string name, bool ring, bool nvls, std::optional<nccl::Proto> only)
      : name_(std::move(name)), ring_(ring), nvls_(nvls), only_(only) {}
  std::string name() const override { return name_; }
  std::string summary() const override {
    if (ring_ && nvls_) return "NCCL as its tuner picks: ring (LL, LL128, Simple) or NVLS, fastest by the protocols' costs";
    if (nvls_) return "NCCL's NVLS all-reduce: reduced and multicast in the switch";
    if (only_) return "NCCL's ring with the " + nccl::proto_name(*only_) + " protocol";
    return "NCCL's ring, the protocol (LL, LL128, Simple) that costs least";
  }
  std::string refusal(const Topology& t, CollectiveKind k, const std::vector<int>& group) const override {
    if (!on_switch(t, group)) return switch_refusal(t);
    if (!ring_ && k != CollectiveKind::allreduce) return "NVLS is an all-reduce";
    if (!nvls_ && (k == CollectiveKind::alltoall || k == CollectiveKind::sendrecv)) {
      return "NCCL's all-to-all and send/receive are point-to-point (nccl)";
    }
    return "";
  }
  std::string hardware_refusal(const HardwareSpec& hw) const override {
    if (ring_ || hw.links.in_switch_reduction) return "";
    return hw.name + ": ${algo} " + name_ + " needs a switch that reduces (links.in_switch_reduction = true)";
  }
  std::vector<CollectiveStream> lower(const CollectiveLowering& l) const override {
    return nccl::lower(l.hw, l.kind, l.members, l.bytes, plan(l.hw, l.kind, l.members, static_cast<double>(l.bytes), l.dtype));
  }
  double bound_s(const CollectiveBoundInputs& in) const override {
    return nccl::plan_s(in.hw, in.kind, in.members, in.bytes, plan(in.hw, in.kind, in.members, in.bytes, in.dtype));
  }

 private:
  nccl::Plan plan(const HardwareSpec& hw, CollectiveKind k, int p, double bytes, DType dtype) const {
    return nccl::best_plan(hw, k, p, bytes, dtype, ring_, nvls_, only_ ? &*only_ : nullptr);
  }
  std::string name_;
  bool ring_, nvls_;
  std::optional<nccl::Proto> only_;
};
}  // namespace

void register_collective_algorithms_nccl(CollectiveAlgorithmRegistry& r) {
  r.add(std::make_unique<Nccl>("nccl", true, true, std::nullopt));
  r.add(std::make_unique<Nccl>("nccl_ring", true, false, std::nullopt));
  r.add(std::make_unique<Nccl>("nccl_ring_ll", true, false, nccl::Proto::ll));
  r.add(std::make_unique<Nccl>("nccl_ring_ll128", true, false, nccl::Proto::ll128));
  r.add(std::make_unique<Nccl>("nccl_ring_simple", true, false, nccl::Proto::simple));
  r.add(std::make_unique<Nccl>("nccl_nvls", false, true, std::nullopt));
}

}  // namespace roofsim
