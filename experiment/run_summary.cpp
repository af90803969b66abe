// A run's op and layer tables, step by step (declared in run_summary.hpp).
#include "experiment/run_summary.hpp"

#include <string_view>

namespace roofsim {

namespace {

// "mb3.layer7.qkv" -> "qkv": micro-batch and layer prefixes dropped.
std::string_view base_name(std::string_view name) {
  for (std::string_view prefix : {"mb", "layer"}) {
    const auto dot = name.find('.');
    if (name.substr(0, prefix.size()) == prefix && dot != std::string_view::npos) name = name.substr(dot + 1);
  }
  return name;
}

}  // namespace

std::string op_shape(const OpNode& op) {
  const auto n = [](std::int64_t v) { return std::to_string(v); };
  if (op.is_collective) {
    return n(op.collective_elements) + " " + std::string(dtype_name(op.vector.dtype)) + " values (" +
           std::to_string(op.collective_bytes()) + " B per chip)";
  }
  if (!op.is_gemm) {
    return n(op.vector.elements_in) + " -> " + n(op.vector.elements_out) + " " +
           std::string(dtype_name(op.vector.output_dtype())) + " values";
  }
  const GemmShape& g = op.gemm;
  // M x N x K as BLAS names them; a fused attention's N is the head dim and K the keys.
  std::string s = (g.batch > 1 ? n(g.batch) + " x " : "") + n(g.m) + "x" + n(g.n) + "x" + n(g.k) + " " +
                  std::string(dtype_name(g.a)) + " x " + std::string(dtype_name(g.b));
  return g.fused_attention ? "fused attention " + s : s;
}

EnergyParts RunSummarizer::add_step(int step, double weight, const OpGraph& g, const std::vector<OpBound>& bounds,
                                    const std::vector<OpResult>& results) {
  const bool prefill = step == 0;
  const bool energy = hw_.energy.present;  // without [energy] every op's energy is 0
  EnergyParts step_energy;
  // Per entry of the op table: this step's last instance of it (its class, shape and roof).
  constexpr OpId kNone = static_cast<OpId>(-1);
  std::vector<OpId> last;
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    const OpBound& bound = bounds[v];
    const OpResult& result = results[v];
    const EnergyParts op_parts = energy ? op_energy(hw_, op, result) : EnergyParts{};
    step_energy += op_parts * peers_;
    if (op.layer >= 0) {  // the embedding, the LM head: outside the layers
      LayerSummary& l = layers_[op.layer];
      l.layer = op.layer;
      if (prefill) {
        l.prefill_s += weight * result.seconds();
        l.prefill_bound_s += weight * bound.bound_time_s;
      } else {
        l.decode_s += weight * result.seconds();
        l.decode_bound_s += weight * bound.bound_time_s;
      }
    }
    auto [it, fresh] = index_.try_emplace(Key{prefill, std::string(base_name(op.name))}, ops_.size());
    if (fresh) {
      ops_.emplace_back();
      ops_.back().phase = prefill ? "prefill" : "decode";
      ops_.back().name = it->first.name;
    }
    OpSummary& s = ops_[it->second];
    s.count += weight;
    s.flops += weight * bound.flops;
    s.bytes += weight * bound.bytes;
    s.sim_s += weight * result.seconds();
    s.bound_s += weight * bound.bound_time_s;
    s.sim_bytes += weight * static_cast<double>(result.bytes_read + result.bytes_written);
    s.padded_flops += weight * result.padded_flops;
    s.energy_j += weight * op_parts.dynamic() * peers_;
    if (it->second >= last.size()) last.resize(it->second + 1, kNone);
    last[it->second] = v;
  }
  for (std::size_t entry = 0; entry < last.size(); ++entry) {
    const OpId v = last[entry];
    if (v == kNone) continue;
    const OpNode& op = g.op(v);
    OpSummary& s = ops_[entry];
    s.op_class = op.op_class;
    s.shape = op_shape(op);
    s.roof = op.is_collective ? "link" : (results[v].near_memory ? "near-memory " : "") + roof_name(bounds[v].roof);
  }
  return step_energy;
}

std::vector<LayerSummary> RunSummarizer::layers(int decode_steps) const {
  std::vector<LayerSummary> out;
  for (auto [l, s] : layers_) {
    if (decode_steps > 0) {
      s.decode_s /= decode_steps;
      s.decode_bound_s /= decode_steps;
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace roofsim
