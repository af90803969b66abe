#include "experiment/energy.hpp"

#include <algorithm>

namespace roofsim {

namespace {

constexpr double kBitsPerByte = 8;

double link_energy_j(const EnergySpec& e, std::uint64_t bytes) { return static_cast<double>(bytes) * kBitsPerByte * e.link_j_per_bit; }

}  // namespace

EnergyParts& EnergyParts::operator+=(const EnergyParts& o) {
  matrix += o.matrix;
  vector += o.vector;
  hbm += o.hbm;
  onchip += o.onchip;
  near_memory += o.near_memory;
  links += o.links;
  idle += o.idle;
  return *this;
}

EnergyParts operator*(EnergyParts p, double factor) {
  p.matrix *= factor;
  p.vector *= factor;
  p.hbm *= factor;
  p.onchip *= factor;
  p.near_memory *= factor;
  p.links *= factor;
  p.idle *= factor;
  return p;
}

EnergyParts op_energy(const HardwareSpec& hw, const OpNode& op, const OpResult& result) {
  const EnergySpec& e = hw.energy;
  EnergyParts p;
  if (!e.present) return p;
  const double onchip_read = static_cast<double>(result.onchip_bytes_read);
  const double read = static_cast<double>(result.bytes_read) - onchip_read;
  const double written = static_cast<double>(result.bytes_written);
  if (result.near_memory) {
    // The near-memory units read their banks without the I/O to the chip, and compute beside
    // them (their MACs counted at the vector units' energy: an assumption).
    p.near_memory = read * kBitsPerByte * e.near_memory_j_per_bit;
    p.hbm = written * kBitsPerByte * e.hbm_j_per_bit;
    p.vector = result.padded_flops * e.vector_j_per_flop;
    return p;
  }
  p.hbm = (read + written) * kBitsPerByte * e.hbm_j_per_bit;
  p.onchip = onchip_read * kBitsPerByte * e.onchip_j_per_bit;
  if (op.is_gemm && !op.is_collective) {
    // A dtype at r times the 16-bit rate does r times the FLOPs per clock at the same power.
    const auto rate = hw.matrix.dtype_rate.find(op.gemm.compute());
    const double r = rate != hw.matrix.dtype_rate.end() && rate->second > 0 ? rate->second : 1.0;
    p.matrix = result.padded_flops * e.matrix_j_per_flop / r;
  } else {
    p.vector = result.padded_flops * e.vector_j_per_flop;
  }
  return p;
}

double pass_dynamic_energy_j(const HardwareSpec& hw, const OpGraph& g, const std::vector<OpResult>& results, double peers,
                             std::uint64_t link_bytes) {
  if (!hw.energy.present) return 0;
  EnergyParts p;
  for (OpId v = 0; v < g.size() && v < results.size(); ++v) p += op_energy(hw, g.op(v), results[v]);
  return p.dynamic() * peers + link_energy_j(hw.energy, link_bytes);
}

RunEnergy run_energy(const ExperimentResult& r) {
  RunEnergy out;
  const EnergySpec& e = r.hw.energy;
  if (!e.present) return out;
  out.modelled = true;
  // The fabric carried every chip's transfers.
  const double chips = static_cast<double>(r.replica_chips());
  // Each simulated step's ops, on the chips that ran them (taken as the step ended).
  std::vector<EnergyParts> step = r.step_op_energy;
  step.resize(r.simulated_steps.size());
  for (std::size_t i = 0; i < step.size(); ++i) {
    if (i < r.step_link_bytes.size()) step[i].links = link_energy_j(e, r.step_link_bytes[i]);
    // Steps run back to back: each starts where the one before ended.
    const double seconds = i == 0 ? r.ttft_s : to_seconds(r.step_end_ps.at(i) - r.step_end_ps.at(i - 1));
    step[i].idle = e.static_w * chips * seconds;
    if (seconds > 0) out.peak_power_w = std::max(out.peak_power_w, step[i].total() / seconds / chips);
    if (i == 0) {
      out.prefill += step[i];
    } else {
      out.decode += step[i] * r.step_weights[i];
    }
  }
  const double total = out.total_j();
  const double requests = static_cast<double>(r.setup.batch);
  const double tokens = requests * static_cast<double>(r.setup.generate);
  out.per_output_token_j = tokens > 0 ? total / tokens : 0;
  out.per_request_j = requests > 0 ? total / requests : 0;
  out.avg_power_w = r.total_s > 0 ? total / r.total_s / chips : 0;
  return out;
}

}  // namespace roofsim
