#include "core/hardware.hpp"

#include <filesystem>

#include "core/config_reader.hpp"
#include "core/error.hpp"
#include "core/presets.hpp"

namespace roofsim {

namespace {

constexpr double kMHz = 1e6;
constexpr double kGBps = 1e9;
constexpr double kNs = 1e-9;

MatrixSpec read_matrix(ConfigTable t) {
  MatrixSpec m;
  m.kind = t.one_of("kind", {"systolic", "tensor_core"});
  m.units = t.positive_integer("units");
  m.clock_hz = t.positive_number("clock_mhz") * kMHz;
  m.sustained_clock_hz = t.positive_number_or("sustained_clock_mhz", m.clock_hz / kMHz) * kMHz;
  if (m.sustained_clock_hz > m.clock_hz) {
    t.fail("sustained_clock_mhz", "must not exceed clock_mhz (the datasheet clock)");
  }
  m.macs_per_clock = t.positive_number("macs_per_clock");
  m.granule_m = t.positive_integer("granule_m");
  m.granule_n = t.positive_integer("granule_n");
  m.granule_k = t.positive_integer("granule_k");
  m.work_tile_m = t.positive_integer("work_tile_m");
  m.work_tile_n = t.positive_integer("work_tile_n");
  m.weight_stationary = t.boolean_or("weight_stationary", false);
  m.weight_load_cycles = t.non_negative_number_or("weight_load_cycles", 0);
  if (m.weight_stationary && !t.has("weight_load_cycles")) {
    t.fail("weight_load_cycles", "missing: required when weight_stationary = true");
  }
  m.pipeline_latency_cycles = t.non_negative_number_or("pipeline_latency_cycles", 0);
  ConfigTable rates = t.table("dtype_rate");
  for (const std::string& key : rates.keys()) {
    DType d;
    if (!parse_dtype(key, d)) rates.fail(key, "unknown dtype (expected one of " + dtype_list() + ")");
    m.dtype_rate[d] = rates.positive_number(key);
  }
  if (!m.dtype_rate.count(DType::bf16)) {
    t.fail("dtype_rate", "must list bf16 (macs_per_clock is the bf16 rate)");
  }
  rates.reject_unknown_keys();
  if (auto eff = t.optional_table("dtype_efficiency")) {
    for (const std::string& key : eff->keys()) {
      DType d;
      if (!parse_dtype(key, d)) eff->fail(key, "unknown dtype (expected one of " + dtype_list() + ")");
      if (!m.dtype_rate.count(d)) eff->fail(key, "efficiency for a dtype that dtype_rate does not list");
      m.dtype_efficiency[d] = eff->fraction(key);
    }
    eff->reject_unknown_keys();
  }
  t.reject_unknown_keys();
  return m;
}

VectorSpec read_vector(ConfigTable t) {
  VectorSpec v;
  v.units = t.positive_integer("units");
  v.clock_hz = t.positive_number("clock_mhz") * kMHz;
  v.flops_per_clock = t.positive_number("flops_per_clock");
  v.pipeline_latency_cycles = t.non_negative_number_or("pipeline_latency_cycles", 0);
  t.reject_unknown_keys();
  return v;
}

HbmSpec read_hbm(ConfigTable t) {
  HbmSpec h;
  h.capacity_bytes = t.positive_number("capacity_bytes");
  h.stacks = t.positive_integer("stacks");
  h.channels = t.positive_integer("channels");
  h.bandwidth = t.positive_number("bandwidth_gb_per_s") * kGBps;
  h.efficiency = t.fraction_or("efficiency", 1.0);
  h.access_latency_s = t.non_negative_number_or("access_latency_ns", 0) * kNs;
  h.interleave_bytes = t.positive_integer("interleave_bytes");
  t.reject_unknown_keys();
  return h;
}

DmaSpec read_dma(ConfigTable t) {
  DmaSpec d;
  d.max_inflight_bytes = t.positive_number("max_inflight_bytes");
  d.request_bytes = t.positive_number("request_bytes");
  if (d.request_bytes > d.max_inflight_bytes) {
    t.fail("request_bytes", "must not exceed max_inflight_bytes");
  }
  t.reject_unknown_keys();
  return d;
}

LinkSpec read_links(ConfigTable t) {
  LinkSpec l;
  l.kind = t.string("kind");
  l.count = t.positive_integer("count");
  l.bandwidth_per_direction = t.positive_number("bandwidth_gb_per_s") * kGBps;
  l.efficiency = t.fraction_or("efficiency", 1.0);
  l.in_switch_reduction = t.boolean_or("in_switch_reduction", false);
  l.switch_reduction_rate = t.positive_number_or("switch_reduction_gb_per_s", 0) * kGBps;
  if (l.switch_reduction_rate > 0 && !l.in_switch_reduction) {
    t.fail("switch_reduction_gb_per_s", "given, but in_switch_reduction is false");
  }
  l.latency_s = t.non_negative_number_or("latency_ns", 0) * kNs;
  t.reject_unknown_keys();
  return l;
}

// Does `dotted` ("matrix.dtype_rate.bf16") name a value in the document?
bool document_has(const toml::table& doc, const std::string& dotted) {
  return static_cast<bool>(doc.at_path(dotted));
}

}  // namespace

const OnChipMemory& HardwareSpec::tile_buffer_memory() const {
  for (const auto& m : onchip) {
    if (m.name == tile_buffer) return m;
  }
  throw InputError(source_file + ": chip.tile_buffer '" + tile_buffer + "' is not an onchip memory");
}

double HardwareSpec::matrix_peak_flops(DType t) const {
  auto it = matrix.dtype_rate.find(t);
  if (it == matrix.dtype_rate.end()) return 0;
  return static_cast<double>(matrix.units) * matrix.macs_per_clock * it->second * 2.0 *
         matrix.clock_hz;
}

double HardwareSpec::vector_peak_flops() const {
  return static_cast<double>(vector.units) * vector.flops_per_clock * vector.clock_hz;
}

HardwareSpec load_hardware_file(const std::string& path) {
  return load_hardware_document(ConfigTable::parse_file(path), path, std::filesystem::path(path).stem().string());
}

HardwareSpec load_hardware_document(const toml::table& doc, const std::string& path, const std::string& name) {
  ConfigTable top(doc, path, "");
  HardwareSpec hw;
  hw.source_file = path;
  hw.name = name;

  ConfigTable chip = top.table("chip");
  hw.description = chip.string("description");
  hw.tile_buffer = chip.string("tile_buffer");
  hw.op_overhead_s = chip.non_negative_number_or("op_overhead_ns", 0) * kNs;
  chip.reject_unknown_keys();

  hw.matrix = read_matrix(top.table("matrix"));
  hw.vector = read_vector(top.table("vector"));
  hw.hbm = read_hbm(top.table("hbm"));
  hw.dma = read_dma(top.table("dma"));

  ConfigTable onchip = top.table("onchip");
  for (const std::string& name : onchip.keys()) {
    ConfigTable mem = onchip.table(name);
    OnChipMemory m;
    m.name = name;
    m.capacity_bytes = mem.positive_number("capacity_bytes");
    m.bandwidth = mem.positive_number("bandwidth_gb_per_s") * kGBps;
    mem.reject_unknown_keys();
    hw.onchip.push_back(m);
  }
  onchip.reject_unknown_keys();
  bool buffer_found = false;
  for (const auto& m : hw.onchip) buffer_found = buffer_found || m.name == hw.tile_buffer;
  if (!buffer_found) {
    throw ConfigError(path, chip.line_of("tile_buffer"), "chip.tile_buffer",
                      "names '" + hw.tile_buffer + "', which is not a table under [onchip]");
  }

  if (auto links = top.optional_table("links")) hw.links = read_links(*links);
  if (auto pim = top.optional_table("pim")) {
    hw.pim.present = true;
    hw.pim.internal_bandwidth_factor = pim->positive_number("internal_bandwidth_factor");
    hw.pim.flops_per_clock = pim->positive_number("flops_per_clock");
    hw.pim.clock_hz = pim->positive_number("clock_mhz") * kMHz;
    hw.pim.max_rows = pim->positive_integer("max_rows");
    hw.pim.step_bytes = pim->positive_number("step_bytes");
    pim->reject_unknown_keys();
  }
  if (auto host = top.optional_table("host")) {
    hw.host_launch_interval_s = host->non_negative_number("launch_interval_ns") * kNs;
    host->reject_unknown_keys();
  }

  if (auto prov = top.optional_table("provenance")) {
    for (const std::string& key : prov->keys()) {
      if (!document_has(doc, key)) {
        prov->fail(key, "provenance for a key that the file does not have");
      }
      hw.provenance[key] = prov->string(key);
    }
    prov->reject_unknown_keys();
  }
  top.reject_unknown_keys();
  return hw;
}

HardwareSpec load_hardware(const std::string& name_or_path) {
  return load_hardware_file(resolve_preset("hardware", name_or_path));
}

HardwareSpec make_ideal(HardwareSpec hw) {
  hw.matrix.sustained_clock_hz = hw.matrix.clock_hz;
  hw.matrix.pipeline_latency_cycles = 0;
  hw.vector.pipeline_latency_cycles = 0;
  hw.hbm.efficiency = 1.0;
  hw.hbm.access_latency_s = 0;
  hw.links.latency_s = 0;
  hw.links.efficiency = 1.0;
  hw.links.switch_reduction_rate = 0;
  hw.op_overhead_s = 0;
  hw.host_launch_interval_s = 0;
  hw.matrix.dtype_efficiency.clear();
  hw.name += " (ideal)";
  return hw;
}

}  // namespace roofsim
