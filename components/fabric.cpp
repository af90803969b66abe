#include "core/parse.hpp"
#include "components/fabric.hpp"

#include "components/link_model.hpp"

#include <algorithm>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"

namespace roofsim {

int Topology::chips() const {
  int p = 1;
  for (int d : dims) p *= d;
  return p;
}

std::string Topology::name() const { return family ? family->name_of(*this) : "?"; }

std::vector<int> Topology::coords(int chip) const {
  std::vector<int> c(dims.size());
  for (std::size_t d = 0; d < c.size(); ++d) {
    c[d] = chip % dims[d];
    chip /= dims[d];
  }
  return c;
}

int Topology::chip_at(const std::vector<int>& c) const {
  int chip = 0;
  for (std::size_t d = c.size(); d-- > 0;) chip = chip * dims[d] + c[d];
  return chip;
}

int Topology::spanned_dims(int group) const {
  if (group == chips()) return static_cast<int>(dims.size());
  int product = 1;
  for (std::size_t d = 0; d <= dims.size(); ++d) {
    if (product == group) return static_cast<int>(d);
    if (d < dims.size()) product *= dims[d];
  }
  return -1;
}

std::string Topology::group_sizes() const {
  std::string s = "1";
  int product = 1;
  for (int k : dims) {
    if (k == 1) continue;
    product *= k;
    s += ", " + std::to_string(product);
  }
  return s;
}

Topology Topology::subtorus(int group) const {
  const int k = spanned_dims(group);
  if (k < 0) throw std::logic_error("subtorus of a group that spans no leading dimensions");
  Topology t = *this;
  t.dims.resize(static_cast<std::size_t>(k));
  if (t.dims.empty()) t.dims = {1};  // a group of one chip
  return t;
}

std::vector<Topology::Hop> Topology::route(int from, int to) const {
  std::vector<Hop> hops;
  std::vector<int> at = coords(from);
  const std::vector<int> target = coords(to);
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const int k = dims[d];
    const int ahead = (target[d] - at[d] + k) % k;  // hops in the + direction
    const int direction = ahead <= k - ahead ? +1 : -1;
    for (int steps = std::min(ahead, k - ahead); steps > 0; --steps) {
      hops.push_back({chip_at(at), static_cast<int>(d), direction});
      at[d] = (at[d] + direction + k) % k;
    }
  }
  return hops;
}

Topology parse_topology(const std::string& text) {
  std::optional<Topology> parsed;
  for (const TopologyFamily* f : topology_families().all()) {
    if ((parsed = f->parse(text))) break;
  }
  if (!parsed) throw InputError("${topology} '" + text + "': expected " + topology_syntax_list() + ", with positive sizes");
  const Topology& t = *parsed;
  if (t.chips() < 2) throw InputError("${topology} '" + text + "': needs at least two chips");
  if (t.chips() > 65536) throw InputError("${topology} '" + text + "': at most 65536 chips");
  return t;
}

Fabric::Fabric(const sc_core::sc_module_name& name, const HardwareSpec& hw, const Topology& topology)
    : sc_core::sc_module(name), hw_(hw), topology_(topology), events_("link_events", stats_),
      link_bandwidth_(hw.links.bandwidth_per_direction * hw.links.efficiency),
      latency_ps_(ceil_ps(hw.links.latency_s)), port_("transfers") {
  if (hw.links.count <= 0) {
    // Located as a missing key is: the file at its root table's line.
    throw InputError((hw.source_file.empty() ? hw.name : hw.source_file + ":1") +
                     ": links: missing table [links] (chips without links cannot run collectives)");
  }
  const std::string refusal = topology.family->link_refusal(topology, hw);
  if (!refusal.empty()) throw InputError(refusal);
  // The links, as the hardware file's [links] model names them.
  links_ = build_links("links", static_cast<std::size_t>(topology.family->link_count(topology)), hw);
  port_.bind(*links_);
  links_->trace_into(trace_);
}

int Fabric::neighbour(int chip, int dim, int direction) const {
  // The chip's coordinate along `dim` moves by one (wrapping); the others stay: in the chip
  // number (x fastest, Topology::coords), that coordinate's place value times the change.
  int stride = 1;
  for (int d = 0; d < dim; ++d) stride *= topology_.dims[static_cast<std::size_t>(d)];
  const int k = topology_.dims[static_cast<std::size_t>(dim)];
  const int c = (chip / stride) % k;
  return chip + ((c + direction + k) % k - c) * stride;
}

int Fabric::link_index(int chip, int dim, int direction) const {
  return (chip * static_cast<int>(topology_.dims.size()) + dim) * 2 + (direction > 0 ? 0 : 1);
}

void Fabric::set_tracing(bool on) {
  if (on && trace_.tracks().empty()) {
    for (std::size_t i = 0; i < links_->links(); ++i) trace_.add_track(topology_.family->link_name(topology_, i));
    // The TLM transport calls of the fabric's transfers to its links.
    port_.trace_into(trace_, "transfers", "links");
  }
  trace_.enabled = on;
}

double Fabric::rate(double bandwidth, const Wire& wire) {
  const double r = bandwidth * wire.efficiency;
  return wire.rate_cap > 0 ? std::min(r, wire.rate_cap) : r;
}

void Fabric::send(int from, int dim, int direction, std::uint64_t bytes, Callback done, const Wire& wire) {
  // A torus link carries one of the chip's links; a ring of a switched system is not routed here.
  const LinkHop hop{static_cast<std::size_t>(link_index(from, dim, direction)), rate(link_bandwidth_, wire), 0, latency_ps_};
  events_.at(port_.transport(&hop, 1, bytes, wire.trace_name).arrival + ceil_ps(wire.extra_latency_s), std::move(done));
}

void Fabric::send_switched(int from, int to, std::uint64_t bytes, Callback done, const Wire& wire) {
  const std::size_t p = static_cast<std::size_t>(chips());
  const double r = rate(port_bandwidth(), wire);
  // Cut-through with buffering in the switch: the data leaves through the receiver's port as
  // soon as it arrives and that port is free; a busy output port does not block the input.
  // Switch traversal: one link latency into the switch and one out of it, and what the
  // protocol adds.
  const LinkHop hops[2] = {{static_cast<std::size_t>(from), r, 0, 2 * latency_ps_}, {p + static_cast<std::size_t>(to), r, 0, 2 * latency_ps_}};
  events_.at(port_.transport(hops, 2, bytes, wire.trace_name).arrival + ceil_ps(wire.extra_latency_s), std::move(done));
}

void Fabric::send_direct(int from, int to, std::uint64_t bytes, Callback done, const Wire& wire) {
  if (from == to) {
    at_now(std::move(done));
    return;
  }
  const int p = chips();
  const std::size_t l = static_cast<std::size_t>(from * (p - 1) + (to < from ? to : to - 1));
  // The pair's links work as one wider link (a transfer is striped over them): a path of one.
  const double pair = link_bandwidth_ * static_cast<double>(mesh_links_per_peer(p, hw_.links.count));
  send_path({PathLink{l, pair, 0.0, hw_.links.latency_s}}, bytes, std::move(done), wire);
}

void Fabric::send_path(const std::vector<PathLink>& path, std::uint64_t bytes, Callback done, const Wire& wire) {
  std::vector<LinkHop> hops;
  hops.reserve(path.size());
  for (const PathLink& h : path) hops.push_back({h.link, rate(h.bandwidth, wire), ceil_ps(h.head_delay_s), ceil_ps(h.tail_latency_s)});
  events_.at(port_.transport(hops.data(), hops.size(), bytes, wire.trace_name).arrival + ceil_ps(wire.extra_latency_s), std::move(done));
}

void Fabric::send_to(int from, int to, std::uint64_t bytes, Callback done, const Wire& wire) {
  topology_.family->send_to(*this, from, to, bytes, std::move(done), wire);
}

void Fabric::send_routed(int from, int to, std::uint64_t bytes, Callback done, const Wire& wire) {
  auto hops = std::make_shared<const std::vector<Topology::Hop>>(topology_.route(from, to));
  if (hops->empty()) {
    at_now(std::move(done));
    return;
  }
  forward(hops, 0, bytes, std::move(done), wire);
}

void Fabric::forward(std::shared_ptr<const std::vector<Topology::Hop>> hops, std::size_t i, std::uint64_t bytes,
                     Callback done, const Wire& wire) {
  // Each link is claimed when the head of the data reaches it, so that a link serves
  // transfers in the order they arrive; claiming a whole route up front would hold links
  // idle for transfers still queued elsewhere.
  const Topology::Hop& h = (*hops)[i];
  const LinkHop hop{static_cast<std::size_t>(link_index(h.chip, h.dim, h.direction)), rate(link_bandwidth_, wire), 0, latency_ps_};
  const LinkTransfer& sent = port_.transport(&hop, 1, bytes, wire.trace_name);
  if (i + 1 == hops->size()) {
    events_.at(sent.arrival + ceil_ps(wire.extra_latency_s), std::move(done));
    return;
  }
  // Cut-through: the head reaches the next link a latency after this link started sending.
  events_.at(sent.last_start + latency_ps_, [this, hops, i, bytes, wire, done = std::move(done)]() mutable {
    forward(hops, i + 1, bytes, std::move(done), wire);
  });
}

void Fabric::switch_reduce(std::uint64_t bytes, const std::vector<Callback>& done, const std::vector<int>& group,
                           const Wire& wire) {
  // The algorithm refused hardware without it before the kernel started.
  if (!hw_.links.in_switch_reduction) throw std::logic_error("switch_reduce on a switch that cannot reduce");
  const std::size_t p = static_cast<std::size_t>(chips());
  // The data streams at the slower of the port and the switch's reduction rate.
  const double port = rate(port_bandwidth(), wire);
  const double reduce = hw_.links.switch_reduction_rate > 0 ? std::min(port, hw_.links.switch_reduction_rate) : port;
  // The switch reduces as the data streams in and multicasts the result as it streams out:
  // every member's port in and port out carry the buffer over the same interval.
  std::vector<LinkHop> ports;
  for (int c : group) {
    ports.push_back({static_cast<std::size_t>(c), reduce, 0, 2 * latency_ps_});
    ports.push_back({p + static_cast<std::size_t>(c), reduce, 0, 2 * latency_ps_});
  }
  const Picoseconds arrival = port_.transport(ports.data(), ports.size(), bytes, wire.trace_name, true).arrival;
  for (const Callback& d : done) events_.at(arrival + ceil_ps(wire.extra_latency_s), d);
}

std::vector<Fabric::LinkUse> Fabric::link_use() const {
  std::vector<LinkUse> out;
  for (std::size_t i = 0; i < links_->links(); ++i) {
    LinkUse u;
    u.name = topology_.family->link_name(topology_, i);
    u.busy = links_->server(i).busy_ps();
    u.bytes = links_->bytes()[i];
    out.push_back(u);
  }
  return out;
}

std::uint64_t Fabric::link_bytes_total() const {
  std::uint64_t total = 0;
  for (std::uint64_t b : links_->bytes()) total += b;
  return total;
}

LinkDelta operator-(const LinkCounters& after, const LinkCounters& before) {
  LinkDelta d;
  d.events = after.events - before.events;
  for (std::size_t i = 0; i < after.jobs.size(); ++i) {
    if (after.jobs[i] == before.jobs[i]) continue;
    d.links.push_back({i, after.busy[i] - before.busy[i], after.jobs[i] - before.jobs[i], after.bytes[i] - before.bytes[i]});
  }
  return d;
}

std::vector<Picoseconds> Fabric::state(Picoseconds now) const {
  std::vector<Picoseconds> s(links_->links());
  for (std::size_t i = 0; i < links_->links(); ++i) s[i] = links_->server(i).busy_after(now);
  return s;
}

LinkCounters Fabric::counters() const {
  LinkCounters c;
  c.events = stats_.events;
  c.bytes = links_->bytes();
  for (std::size_t i = 0; i < links_->links(); ++i) {
    c.busy.push_back(links_->server(i).busy_ps());
    c.jobs.push_back(links_->server(i).jobs());
  }
  return c;
}

void Fabric::credit(const LinkDelta& delta) {
  stats_.events += delta.events;
  for (const LinkDelta::Link& l : delta.links) {
    Timeline& link = links_->server(l.index);
    link.skip(link.free_at(), l.busy, l.jobs);
    links_->bytes(l.index) += l.bytes;
  }
}

void Fabric::skip_to(Picoseconds until, const std::vector<Picoseconds>& end) {
  for (std::size_t i = 0; i < links_->links(); ++i) links_->server(i).skip(until + end[i], 0, 0);
}

}  // namespace roofsim
