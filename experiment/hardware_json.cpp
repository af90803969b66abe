#include "experiment/hardware_json.hpp"

#include <cstdio>
#include <cstdlib>

#include <variant>

#include "core/hardware_params.hpp"
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
    j["ridge"][std::string(dtype_name(t))] = p / h.memory_bandwidth();
  }
  j["bandwidth"] = h.hbm.bandwidth;
  j["hbm_capacity_bytes"] = h.hbm.capacity_bytes;
  j["vector_peak_flops"] = h.vector_peak_flops();
  return j;
}

namespace {

// The table a parameter belongs to is in the description: [links] only when the chip has
// links, [network] only when it has a scale-out network, [pim] only when it has near-memory units,
// [energy] only when it has an energy model, [area] and [cost] only when it has those models.
bool table_present(const HardwareSpec& h, const std::string& key) {
  if (key.rfind("links.", 0) == 0) return h.links.count > 0;
  if (key.rfind("pim.", 0) == 0) return h.pim.present;
  if (key.rfind("energy.", 0) == 0) return h.energy.present;
  if (key.rfind("area.", 0) == 0) return h.area.present;
  if (key.rfind("cost.", 0) == 0) return h.cost.present;
  if (key.rfind("network.", 0) == 0) return h.network.present;
  return true;
}

// A value in the file's unit, rounded to 12 significant digits: 500e-9 s / 1e-9 reads 500, not
// 500.00000000000006.
double in_file_units(double si, double to_si) {
  char text[32];
  std::snprintf(text, sizeof text, "%.12g", si / to_si);
  return std::strtod(text, nullptr);
}

nlohmann::json value_in_file_units(const HardwareParam& p, HardwareSpec& h) {
  const ParamField field = p.field(h);
  if (auto d = std::get_if<double*>(&field)) return in_file_units(**d, p.to_si);
  if (auto i = std::get_if<std::int64_t*>(&field)) return **i;
  if (auto b = std::get_if<bool*>(&field)) return **b;
  return *std::get<std::string*>(field);
}

}  // namespace

nlohmann::json hardware_json(const HardwareSpec& h) {
  nlohmann::json j = hardware_summary_json(h);
  nlohmann::json p;
  HardwareSpec copy = h;  // fields are reached through non-const accessors
  for (const HardwareParam& param : hardware_params()) {
    if (!param.field || !table_present(h, param.key)) continue;
    const nlohmann::json v = value_in_file_units(param, copy);
    // A default is left out unless it is always shown (an optional text's default is "").
    if (!param.always_shown && v.is_number() && v.get<double>() == param.fallback) continue;
    if (!param.always_shown && v.is_string() && v.get<std::string>().empty()) continue;
    if (!param.always_shown && v.is_boolean() && v.get<bool>() == (param.fallback != 0)) continue;
    p[param.key] = v;
  }
  // A clock the power limit holds down is the run's, not the file's: the description keeps the
  // fitted sustained clock, so that a file written from it and read again (an edit in the UI,
  // `run --from`) meets the same limit, and one whose TDP was raised does not keep the cap.
  if (h.energy.power_limited_clock_hz > 0) {
    p["matrix.sustained_clock_mhz"] = in_file_units(h.energy.unlimited_clock_hz, find_hardware_param("matrix.sustained_clock_mhz")->to_si);
  }
  for (const auto& [t, rate] : h.matrix.dtype_rate) p["matrix.dtype_rate." + std::string(dtype_name(t))] = rate;
  for (const auto& [t, e] : h.matrix.dtype_efficiency) p["matrix.dtype_efficiency." + std::string(dtype_name(t))] = e;
  for (const auto& mem : h.onchip) {
    p["onchip." + mem.name + ".capacity_bytes"] = in_file_units(mem.capacity_bytes, find_hardware_param("onchip.NAME.capacity_bytes")->to_si);
    p["onchip." + mem.name + ".bandwidth_gb_per_s"] = in_file_units(mem.bandwidth, find_hardware_param("onchip.NAME.bandwidth_gb_per_s")->to_si);
    p["onchip." + mem.name + ".latency_ns"] = in_file_units(mem.latency_s, find_hardware_param("onchip.NAME.latency_ns")->to_si);
    p["onchip." + mem.name + ".resident_share"] = mem.resident_share;
  }
  // The memory model's own parameters the file sets (their defaults are the model's to say).
  for (const auto& [key, given] : h.memory.params) p["memory." + key] = given.value;
  if (h.pim.present) {
    j["pim_peak_flops"] = h.pim_peak_flops();
    j["pim_bandwidth"] = h.pim_bandwidth();
  }
  j["parameters"] = p;
  j["provenance"] = h.provenance.entries();
  return j;
}

}  // namespace roofsim
