#pragma once
// Closed forms of collectives (alpha-beta model): n bytes per chip, B bytes/s per link and
// direction (per switch port for switched systems), alpha seconds of latency per step. The
// torus forms assume that concurrent parts of the buffer never share a link, which holds for
// cubic tori; otherwise they are lower bounds.
#include <vector>

namespace roofsim {

// 2 (p - 1) / p * n / B + 2 (p - 1) alpha
double ring_allreduce_s(int p, double n, double B, double alpha);
// Both directions of the ring, half the buffer each.
double bidirectional_ring_allreduce_s(int p, double n, double B, double alpha);
// All-gather (n = output) or reduce-scatter (n = input): (p - 1) / p * n / B + (p - 1) alpha
double ring_gather_s(int p, double n, double B, double alpha);
// Dimension by dimension, both directions; `split` also divides the buffer over the
// dimensions so that every link works at once.
double torus_allreduce_s(const std::vector<int>& dims, double n, double B, double alpha, bool split);
// All-gather (n = output) or reduce-scatter (n = input) the same way: one round per dimension.
double torus_gather_s(const std::vector<int>& dims, double n, double B, double alpha, bool split);
// Every chip sends its share to each other chip through the switch, `phases` times (2 for
// all-reduce, 1 for all-to-all); a switch traversal costs 2 alpha.
double switch_oneshot_s(int p, double n, double B_port, double alpha, int phases);
// In-switch reduction: n up and n down, overlapped.
double switch_reduce_s(double n, double B_port, double alpha);
// A ring over a switch: every step crosses the switch (2 alpha).
double switch_ring_s(int p, double n, double B_port, double alpha, int rounds);

// A point-to-point transfer routed over `hops` links, cut-through: every link carries the
// data once, in a pipeline, and each hop adds its latency: n / B + hops alpha.
double routed_send_s(int hops, double n, double B, double alpha);

// Bus bandwidth factor (NCCL convention): all-reduce 2 (p - 1) / p, gathers (p - 1) / p.
double busbw_factor_allreduce(int p);
double busbw_factor_gather(int p);

}  // namespace roofsim
