#include "core/parse.hpp"
#include "components/fabric.hpp"

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
      latency_ps_(ceil_ps(hw.links.latency_s)) {
  if (hw.links.count <= 0) {
    // Located as a missing key is: the file at its root table's line.
    throw InputError((hw.source_file.empty() ? hw.name : hw.source_file + ":1") +
                     ": links: missing table [links] (chips without links cannot run collectives)");
  }
  const std::string refusal = topology.family->link_refusal(topology, hw);
  if (!refusal.empty()) throw InputError(refusal);
  links_.resize(topology.family->link_count(topology));
  link_bytes_.assign(links_.size(), 0);
}

int Fabric::neighbour(int chip, int dim, int direction) const {
  std::vector<int> c = coords(chip);
  const int k = topology_.dims[static_cast<std::size_t>(dim)];
  c[static_cast<std::size_t>(dim)] = (c[static_cast<std::size_t>(dim)] + direction + k) % k;
  return chip_at(c);
}

int Fabric::link_index(int chip, int dim, int direction) const {
  return (chip * static_cast<int>(topology_.dims.size()) + dim) * 2 + (direction > 0 ? 0 : 1);
}

void Fabric::set_tracing(bool on) {
  if (on && trace_.tracks().empty()) {
    for (std::size_t i = 0; i < links_.size(); ++i) trace_.add_track(topology_.family->link_name(topology_, i));
  }
  trace_.enabled = on;
}

void Fabric::traced(std::size_t l, const Wire& wire) {
  if (!trace_.enabled || wire.trace_name < 0) return;
  trace_.record(static_cast<int>(l), wire.trace_name, links_[l].last_start(), links_[l].free_at());
}

Picoseconds Fabric::service(std::uint64_t bytes, double bandwidth) const {
  return ceil_ps(static_cast<double>(bytes) / bandwidth);
}

double Fabric::rate(double bandwidth, const Wire& wire) {
  const double r = bandwidth * wire.efficiency;
  return wire.rate_cap > 0 ? std::min(r, wire.rate_cap) : r;
}

void Fabric::send(int from, int dim, int direction, std::uint64_t bytes, Callback done, const Wire& wire) {
  const int l = link_index(from, dim, direction);
  // A torus link carries one of the chip's links; a ring of a switched system is not routed here.
  const Picoseconds end = links_[static_cast<std::size_t>(l)].reserve(now_ps(), service(bytes, rate(link_bandwidth_, wire)));
  link_bytes_[static_cast<std::size_t>(l)] += bytes;
  traced(static_cast<std::size_t>(l), wire);
  events_.at(end + latency_ps_ + ceil_ps(wire.extra_latency_s), std::move(done));
}

void Fabric::send_switched(int from, int to, std::uint64_t bytes, Callback done, const Wire& wire) {
  const std::size_t p = static_cast<std::size_t>(chips());
  Timeline& up = links_[static_cast<std::size_t>(from)];
  Timeline& down = links_[p + static_cast<std::size_t>(to)];
  const Picoseconds s = service(bytes, rate(port_bandwidth(), wire));
  // Cut-through with buffering in the switch: the data leaves through the receiver's port as
  // soon as it arrives and that port is free; a busy output port does not block the input.
  const Picoseconds up_end = up.reserve(now_ps(), s);
  const Picoseconds down_end = down.reserve(up.last_start(), s);
  link_bytes_[static_cast<std::size_t>(from)] += bytes;
  link_bytes_[p + static_cast<std::size_t>(to)] += bytes;
  traced(static_cast<std::size_t>(from), wire);
  traced(p + static_cast<std::size_t>(to), wire);
  // Switch traversal: one link latency into the switch and one out of it, and what the
  // protocol adds.
  events_.at(std::max(up_end, down_end) + 2 * latency_ps_ + ceil_ps(wire.extra_latency_s), std::move(done));
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
  Picoseconds earliest = now_ps(), arrival = now_ps();
  for (const PathLink& h : path) {
    Timeline& l = links_[h.link];
    const Picoseconds end = l.reserve(earliest, service(bytes, rate(h.bandwidth, wire)));
    link_bytes_[h.link] += bytes;
    traced(h.link, wire);
    arrival = std::max(arrival, end + ceil_ps(h.tail_latency_s));
    earliest = l.last_start() + ceil_ps(h.head_delay_s);
  }
  events_.at(arrival + ceil_ps(wire.extra_latency_s), std::move(done));
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
  const std::size_t l = static_cast<std::size_t>(link_index(h.chip, h.dim, h.direction));
  const Picoseconds end = links_[l].reserve(now_ps(), service(bytes, rate(link_bandwidth_, wire)));
  link_bytes_[l] += bytes;
  traced(l, wire);
  if (i + 1 == hops->size()) {
    events_.at(end + latency_ps_ + ceil_ps(wire.extra_latency_s), std::move(done));
    return;
  }
  // Cut-through: the head reaches the next link a latency after this link started sending.
  events_.at(links_[l].last_start() + latency_ps_, [this, hops, i, bytes, wire, done = std::move(done)]() mutable {
    forward(hops, i + 1, bytes, std::move(done), wire);
  });
}

void Fabric::switch_reduce(std::uint64_t bytes, const std::vector<Callback>& done, const std::vector<int>& group,
                           const Wire& wire) {
  // The algorithm refused hardware without it before the kernel started.
  if (!hw_.links.in_switch_reduction) throw std::logic_error("switch_reduce on a switch that cannot reduce");
  const std::size_t p = static_cast<std::size_t>(chips());
  const Picoseconds now = now_ps();
  // The data streams at the slower of the port and the switch's reduction rate.
  const double port = rate(port_bandwidth(), wire);
  const double reduce = hw_.links.switch_reduction_rate > 0 ? std::min(port, hw_.links.switch_reduction_rate) : port;
  const Picoseconds s = service(bytes, reduce);
  // The switch reduces as the data streams in and multicasts the result as it streams out:
  // every member's port in and port out carry the buffer over the same interval.
  std::vector<std::size_t> ports;
  for (int c : group) {
    ports.push_back(static_cast<std::size_t>(c));
    ports.push_back(p + static_cast<std::size_t>(c));
  }
  Picoseconds start = now;
  for (std::size_t i : ports) start = std::max(start, links_[i].free_at());
  for (std::size_t i : ports) {
    links_[i].reserve(start, s);
    link_bytes_[i] += bytes;
    traced(i, wire);
  }
  for (const Callback& d : done) events_.at(start + s + 2 * latency_ps_ + ceil_ps(wire.extra_latency_s), d);
}

std::vector<Fabric::LinkUse> Fabric::link_use() const {
  std::vector<LinkUse> out;
  for (std::size_t i = 0; i < links_.size(); ++i) {
    LinkUse u;
    u.name = topology_.family->link_name(topology_, i);
    u.busy = links_[i].busy_ps();
    u.bytes = link_bytes_[i];
    out.push_back(u);
  }
  return out;
}

std::uint64_t Fabric::link_bytes_total() const {
  std::uint64_t total = 0;
  for (std::uint64_t b : link_bytes_) total += b;
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
  std::vector<Picoseconds> s(links_.size());
  for (std::size_t i = 0; i < links_.size(); ++i) s[i] = links_[i].busy_after(now);
  return s;
}

LinkCounters Fabric::counters() const {
  LinkCounters c;
  c.events = stats_.events;
  c.bytes = link_bytes_;
  for (const Timeline& l : links_) {
    c.busy.push_back(l.busy_ps());
    c.jobs.push_back(l.jobs());
  }
  return c;
}

void Fabric::credit(const LinkDelta& delta) {
  stats_.events += delta.events;
  for (const LinkDelta::Link& l : delta.links) {
    links_[l.index].skip(links_[l.index].free_at(), l.busy, l.jobs);
    link_bytes_[l.index] += l.bytes;
  }
}

void Fabric::skip_to(Picoseconds until, const std::vector<Picoseconds>& end) {
  for (std::size_t i = 0; i < links_.size(); ++i) links_[i].skip(until + end[i], 0, 0);
}

}  // namespace roofsim
