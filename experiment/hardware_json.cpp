#include "experiment/hardware_json.hpp"

#include "validation/analytic.hpp"

namespace roofsim {

nlohmann::json hardware_summary_json(const HardwareSpec& h) {
  nlohmann::json j;
  j["hardware"] = h.name;
  j["description"] = h.description;
  j["peak_flops"] = nlohmann::json::object();
  j["ridge"] = nlohmann::json::object();
  for (DType t : all_dtypes()) {
    double p = peak_flops(h, t);
    if (p <= 0) continue;
    j["peak_flops"][std::string(dtype_name(t))] = p;
    j["ridge"][std::string(dtype_name(t))] = p / h.hbm.bandwidth;
  }
  j["bandwidth"] = h.hbm.bandwidth;
  j["hbm_capacity_bytes"] = h.hbm.capacity_bytes;
  j["vector_peak_flops"] = h.vector_peak_flops();
  return j;
}

nlohmann::json hardware_json(const HardwareSpec& h) {
  nlohmann::json j = hardware_summary_json(h);
  nlohmann::json p;
  p["chip.description"] = h.description;
  p["chip.tile_buffer"] = h.tile_buffer;
  p["chip.op_overhead_ns"] = h.op_overhead_s * 1e9;
  const MatrixSpec& m = h.matrix;
  p["matrix.kind"] = m.kind;
  p["matrix.units"] = m.units;
  p["matrix.clock_mhz"] = m.clock_hz / 1e6;
  p["matrix.sustained_clock_mhz"] = m.sustained_clock_hz / 1e6;
  p["matrix.macs_per_clock"] = m.macs_per_clock;
  p["matrix.granule_m"] = m.granule_m;
  p["matrix.granule_n"] = m.granule_n;
  p["matrix.granule_k"] = m.granule_k;
  p["matrix.work_tile_m"] = m.work_tile_m;
  p["matrix.work_tile_n"] = m.work_tile_n;
  p["matrix.weight_stationary"] = m.weight_stationary;
  p["matrix.weight_load_cycles"] = m.weight_load_cycles;
  p["matrix.pipeline_latency_cycles"] = m.pipeline_latency_cycles;
  for (const auto& [t, rate] : m.dtype_rate) {
    p["matrix.dtype_rate." + std::string(dtype_name(t))] = rate;
  }
  for (const auto& [t, e] : m.dtype_efficiency) {
    p["matrix.dtype_efficiency." + std::string(dtype_name(t))] = e;
  }
  if (h.pim.present) {
    p["pim.internal_bandwidth_factor"] = h.pim.internal_bandwidth_factor;
    p["pim.flops_per_clock"] = h.pim.flops_per_clock;
    p["pim.clock_mhz"] = h.pim.clock_hz / 1e6;
    p["pim.max_rows"] = h.pim.max_rows;
    p["pim.step_bytes"] = h.pim.step_bytes;
    j["pim_peak_flops"] = h.pim_peak_flops();
    j["pim_bandwidth"] = h.pim_bandwidth();
  }
  if (h.host_launch_interval_s > 0) p["host.launch_interval_ns"] = h.host_launch_interval_s * 1e9;
  p["vector.units"] = h.vector.units;
  p["vector.clock_mhz"] = h.vector.clock_hz / 1e6;
  p["vector.flops_per_clock"] = h.vector.flops_per_clock;
  p["vector.pipeline_latency_cycles"] = h.vector.pipeline_latency_cycles;
  p["hbm.capacity_bytes"] = h.hbm.capacity_bytes;
  p["hbm.stacks"] = h.hbm.stacks;
  p["hbm.channels"] = h.hbm.channels;
  p["hbm.bandwidth_gb_per_s"] = h.hbm.bandwidth / 1e9;
  p["hbm.efficiency"] = h.hbm.efficiency;
  p["hbm.access_latency_ns"] = h.hbm.access_latency_s * 1e9;
  p["hbm.interleave_bytes"] = h.hbm.interleave_bytes;
  p["dma.max_inflight_bytes"] = h.dma.max_inflight_bytes;
  p["dma.request_bytes"] = h.dma.request_bytes;
  for (const auto& mem : h.onchip) {
    p["onchip." + mem.name + ".capacity_bytes"] = mem.capacity_bytes;
    p["onchip." + mem.name + ".bandwidth_gb_per_s"] = mem.bandwidth / 1e9;
  }
  if (h.links.count > 0) {
    p["links.kind"] = h.links.kind;
    p["links.count"] = h.links.count;
    p["links.bandwidth_gb_per_s"] = h.links.bandwidth_per_direction / 1e9;
    p["links.latency_ns"] = h.links.latency_s * 1e9;
    p["links.efficiency"] = h.links.efficiency;
    p["links.in_switch_reduction"] = h.links.in_switch_reduction;
    if (h.links.switch_reduction_rate > 0) p["links.switch_reduction_gb_per_s"] = h.links.switch_reduction_rate / 1e9;
  }
  j["parameters"] = p;
  j["provenance"] = h.provenance;
  return j;
}

}  // namespace roofsim
