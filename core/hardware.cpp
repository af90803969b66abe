#include "core/hardware.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>

#include "core/config_reader.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/hardware_params.hpp"
#include "core/hardware_toml.hpp"
#include "core/presets.hpp"

namespace roofsim {

namespace {

// A number as read, checked against its parameter's range (in the file's unit, before the
// conversion to SI, so the message shows what the file says).
double in_range(ConfigTable& t, const std::string& key, const HardwareParam& p, double value) {
  const ParamRange range = param_range(p);
  if (!range.contains(value)) {
    std::ostringstream v;
    v << value;
    t.fail(key, v.str() + (*p.unit ? std::string(" ") + p.unit : std::string()) + " is outside the range roofsim accepts (" +
                    range.text(p.unit) + ")");
  }
  return value;
}

// Reads the declared parameters of one table (core/hardware_params) into `hw`.
void read_declared(ConfigTable& t, HardwareSpec& hw) {
  const std::string prefix = t.path() + ".";
  for (const HardwareParam& p : hardware_params()) {
    const std::string key_path = p.key;
    if (!p.field || key_path.rfind(prefix, 0) != 0 || key_path.find('.', prefix.size()) != std::string::npos) continue;
    const std::string key = key_path.substr(prefix.size());
    const ParamField field = p.field(hw);
    const bool present = t.has(key);
    switch (p.kind) {
      case ParamKind::positive: {
        const double v = p.required ? t.positive_number(key) : t.positive_number_or(key, p.fallback);
        *std::get<double*>(field) = (present ? in_range(t, key, p, v) : v) * p.to_si;
        break;
      }
      case ParamKind::non_negative: {
        const double v = p.required ? t.non_negative_number(key) : t.non_negative_number_or(key, p.fallback);
        *std::get<double*>(field) = (present ? in_range(t, key, p, v) : v) * p.to_si;
        break;
      }
      case ParamKind::fraction: {
        const double v = p.required ? t.fraction(key) : t.fraction_or(key, p.fallback);
        *std::get<double*>(field) = (present ? in_range(t, key, p, v) : v) * p.to_si;
        break;
      }
      case ParamKind::count: {
        const std::int64_t v = p.required ? t.positive_integer(key) : t.positive_integer_or(key, static_cast<std::int64_t>(p.fallback));
        if (present) in_range(t, key, p, static_cast<double>(v));
        *std::get<std::int64_t*>(field) = v;
        break;
      }
      case ParamKind::flag:
        *std::get<bool*>(field) = p.required ? t.boolean(key) : t.boolean_or(key, p.fallback != 0);
        break;
      case ParamKind::text:
        *std::get<std::string*>(field) = p.required ? t.string(key) : t.string_or(key, "");
        break;
    }
  }
}

// Parameters per dtype: "bf16 = 1.0" rows of a table, every key a dtype.
std::map<DType, double> read_per_dtype(ConfigTable t, bool fractions) {
  std::map<DType, double> out;
  for (const std::string& key : t.keys()) {
    DType d;
    if (!parse_dtype(key, d)) t.fail(key, "unknown dtype (expected one of " + dtype_list() + ")");
    const HardwareParam& p = *find_hardware_param(t.path() + "." + key);
    out[d] = in_range(t, key, p, fractions ? t.fraction(key) : t.positive_number(key));
  }
  t.reject_unknown_keys();
  return out;
}

// Kernel keys that describe a kernel built on an instruction the chip must have ([arch]).
void check_kernel_instructions(ConfigTable& t, const MatrixSpec& m) {
  const auto needs = [&](const char* key, bool present, const char* what) {
    if (t.has(key) && !present) t.fail(key, std::string("describes ") + what);
  };
  // (Keys a software stack sets for every chip it runs on - XQA's mha_sm90 cycles, the mixed-input
  // GEMM's conversion - are not checked here: a chip without the instruction runs another kernel.)
  needs("block_scaled_oob_row_cycles", m.arch.tma, "DeepGEMM's TMA loads: needs arch.tma = true");
  if (m.exp_exposed_share < 1) {
    needs("exp_exposed_share", m.arch.async_mma(),
          "softmax hidden under another warpgroup's MMAs, which needs an asynchronous MMA: arch.wgmma or arch.tcgen05 = true");
  }
  if (m.mma_sync_rate < 1) {
    needs("mma_sync_rate", m.arch.mma_sync && m.arch.async_mma(),
          "mma.sync beside a newer native MMA: needs arch.mma_sync and arch.wgmma or arch.tcgen05 = true");
  }
}

void read_matrix(ConfigTable t, HardwareSpec& hw) {
  MatrixSpec& m = hw.matrix;
  read_declared(t, hw);
  t.one_of("kind", {"systolic", "tensor_core"});
  if (!t.has("sustained_clock_mhz")) m.sustained_clock_hz = m.clock_hz;
  if (m.sustained_clock_hz > m.clock_hz) {
    t.fail("sustained_clock_mhz", "must not exceed clock_mhz (the datasheet clock)");
  }
  if (t.has("dataflow")) {
    t.one_of("dataflow", {"weight_stationary", "output_stationary", "input_stationary"});
    if (m.kind != "systolic") t.fail("dataflow", "is for kind = \"systolic\" (tensor cores have none)");
    if (m.weight_stationary && m.dataflow != "weight_stationary") {
      t.fail("weight_stationary", "is true, but dataflow is \"" + m.dataflow + "\" (leave weight_stationary out)");
    }
  } else if (m.weight_stationary) {
    m.dataflow = "weight_stationary";
  }
  if ((m.dataflow == "weight_stationary" || m.dataflow == "input_stationary") && !t.has("weight_load_cycles")) {
    t.fail("weight_load_cycles", "missing: required for dataflow = \"" + m.dataflow + "\" (the stationary operand's load)");
  }
  if (t.has("weight_load_overlap") && m.dataflow.empty()) {
    t.fail("weight_load_overlap", "is for a systolic array with a dataflow (matrix.dataflow)");
  }
  // Tile rows below the MMA's granule: a whole number of rows, 0 (none) to granule_m.
  const double rows = m.weight_only_moe_min_tile_rows;
  if (rows != std::floor(rows) || rows > static_cast<double>(m.granule_m)) {
    t.fail("weight_only_moe_min_tile_rows", "expected a whole number of rows from 0 (the granule) to granule_m (" +
                                                std::to_string(m.granule_m) + "), got " + format_general(rows));
  }
  check_kernel_instructions(t, m);
  m.dtype_rate = read_per_dtype(t.table("dtype_rate"), false);
  if (!m.dtype_rate.count(DType::bf16)) {
    t.fail("dtype_rate", "must list bf16 (macs_per_clock is the bf16 rate)");
  }
  if (auto eff = t.optional_table("dtype_efficiency")) {
    m.dtype_efficiency = read_per_dtype(*eff, true);
    for (const auto& [d, e] : m.dtype_efficiency) {
      if (!m.dtype_rate.count(d)) eff->fail(std::string(dtype_name(d)), "efficiency for a dtype that dtype_rate does not list");
    }
  }
  t.reject_unknown_keys();
}

// A table of declared parameters only.
void read_table(ConfigTable t, HardwareSpec& hw) {
  read_declared(t, hw);
  t.reject_unknown_keys();
}

// Does `dotted` ("matrix.dtype_rate.bf16") name a value in the document?
bool document_has(const toml::table& doc, const std::string& dotted) {
  return static_cast<bool>(doc.at_path(dotted));
}

// Installed by the memory models (components/memory_model.cpp): core does not know them.
std::atomic<MemoryBandwidthOf> memory_bandwidth_of{nullptr};

}  // namespace

void set_memory_bandwidth_of(MemoryBandwidthOf of) { memory_bandwidth_of.store(of); }

double HardwareSpec::memory_bandwidth() const {
  // "hbm" is the channels themselves (the default model): no lookup on this path of every bound.
  const MemoryBandwidthOf of = memory_bandwidth_of.load();
  return memory.model == "hbm" || !of ? hbm.bandwidth : of(*this);
}

const OnChipMemory& HardwareSpec::tile_buffer_memory() const {
  for (const auto& m : onchip) {
    if (m.name == tile_buffer) return m;
  }
  throw InputError(source_file + ": chip.tile_buffer '" + tile_buffer + "' is not an onchip memory");
}

namespace {
std::atomic<UnitPeakOf> unit_peak_of{nullptr};
}  // namespace

void set_unit_peak_of(UnitPeakOf of) { unit_peak_of.store(of); }

double HardwareSpec::matrix_peak_flops(DType t) const {
  // "array" is the file's rates (the default model): no lookup on this path of every bound.
  const UnitPeakOf of = unit_peak_of.load();
  return matrix.model.name == "array" || !of ? array_matrix_peak_flops(t) : of(*this, true, t);
}

double HardwareSpec::vector_peak_flops() const {
  const UnitPeakOf of = unit_peak_of.load();
  return vector.model.name == "array" || !of ? array_vector_peak_flops() : of(*this, false, DType::fp32);
}

double HardwareSpec::array_matrix_peak_flops(DType t) const {
  auto it = matrix.dtype_rate.find(t);
  if (it == matrix.dtype_rate.end()) return 0;
  return static_cast<double>(matrix.units) * matrix.macs_per_clock * it->second * 2.0 *
         matrix.clock_hz;
}

double HardwareSpec::power_roof_flops(DType t) const {
  auto it = matrix.dtype_rate.find(t);
  if (!energy.present || energy.tdp_w <= 0 || energy.matrix_j_per_flop <= 0 || it == matrix.dtype_rate.end()) return 0;
  return (energy.tdp_w - energy.static_w) * it->second / energy.matrix_j_per_flop;
}

double HardwareSpec::array_vector_peak_flops() const {
  return static_cast<double>(vector.units) * vector.flops_per_clock * vector.clock_hz;
}

HardwareSpec load_hardware_file(const std::string& path) {
  return load_hardware_document(read_hardware_toml(path), path, std::filesystem::path(path).stem().string());
}

namespace {

// A third roof (issue 52): the matrix units at their full 16-bit rate draw energy per FLOP x
// FLOP/s on top of the static power. Where that passes the TDP at the fitted sustained clock,
// the clock falls to where it does not, as the GPU's power management lowers it; below the
// limit the fitted clock (which also stands for stalls the model lacks) is kept.
void apply_power_limit(HardwareSpec& hw) {
  const double flops_per_clock = static_cast<double>(hw.matrix.units) * hw.matrix.macs_per_clock * 2.0;
  if (flops_per_clock <= 0 || hw.energy.matrix_j_per_flop <= 0) return;
  const double clock = (hw.energy.tdp_w - hw.energy.static_w) / (flops_per_clock * hw.energy.matrix_j_per_flop);
  if (clock >= hw.matrix.sustained_clock_hz) return;
  hw.energy.unlimited_clock_hz = hw.matrix.sustained_clock_hz;
  hw.energy.power_limited_clock_hz = clock;
  hw.matrix.sustained_clock_hz = clock;
}

}  // namespace

HardwareSpec load_hardware_document(const toml::table& doc, const std::string& path, const std::string& name) {
  ConfigTable top(doc, path, "");
  HardwareSpec hw;
  hw.source_file = path;
  hw.name = name;

  ConfigTable chip = top.table("chip");
  read_table(chip, hw);
  std::optional<ConfigTable> arch = top.optional_table("arch");
  if (arch) read_table(*arch, hw);  // before [matrix]: its kernel keys need these instructions
  ConfigTable matrix = top.table("matrix");
  read_matrix(matrix, hw);
  if (arch && hw.matrix.kind != "tensor_core") {
    for (const std::string& key : arch->keys()) {
      if (arch->boolean(key)) arch->fail(key, "is a GPU kernel instruction: for matrix.kind = \"tensor_core\"");
    }
  }
  ConfigTable vector = top.table("vector");
  read_table(vector, hw);
  // Where the file names the units' models, for the error of an unknown one (components/unit_model.hpp).
  for (auto [table, choice] : {std::pair{&matrix, &hw.matrix.model}, {&vector, &hw.vector.model}}) {
    if (table->has("model") && choice->name.empty()) table->fail("model", "empty: name a model (array, the built-in, or a library's)");
    if (choice->name.empty()) choice->name = "array";
    if (!table->has("model")) continue;
    choice->line = static_cast<int>(table->line_of("model"));
    choice->file = table->file_of("model");
  }
  // A kernel's start and drain in the chip's own cycles (issue 48): another clock, another time.
  if (chip.has("op_overhead_cycles")) {
    if (chip.has("op_overhead_ns")) chip.fail("op_overhead_cycles", "given with op_overhead_ns: give one of them");
    hw.op_overhead_s = hw.op_overhead_cycles / hw.vector.clock_hz;
  }
  ConfigTable hbm = top.table("hbm");
  read_table(hbm, hw);
  if (!hbm.has("tile_efficiency")) hw.hbm.tile_efficiency = hw.hbm.efficiency;
  if (hw.hbm.tile_efficiency > hw.hbm.efficiency) hbm.fail("tile_efficiency", "must not exceed efficiency");
  if (!hbm.has("write_efficiency")) hw.hbm.write_efficiency = hw.hbm.efficiency;
  if (hw.hbm.write_efficiency > hw.hbm.efficiency) hbm.fail("write_efficiency", "must not exceed efficiency");
  ConfigTable dma = top.table("dma");
  read_table(dma, hw);
  if (hw.dma.request_bytes > hw.dma.max_inflight_bytes) dma.fail("request_bytes", "must not exceed max_inflight_bytes");

  ConfigTable onchip = top.table("onchip");
  for (const std::string& name : onchip.keys()) {
    ConfigTable mem = onchip.table(name);
    OnChipMemory m;
    m.name = name;
    const HardwareParam& capacity = *find_hardware_param("onchip.NAME.capacity_bytes");
    const HardwareParam& bandwidth = *find_hardware_param("onchip.NAME.bandwidth_gb_per_s");
    m.capacity_bytes = in_range(mem, "capacity_bytes", capacity, mem.positive_number("capacity_bytes")) * capacity.to_si;
    m.bandwidth = in_range(mem, "bandwidth_gb_per_s", bandwidth, mem.positive_number("bandwidth_gb_per_s")) * bandwidth.to_si;
    const HardwareParam& latency = *find_hardware_param("onchip.NAME.latency_ns");
    m.latency_s = mem.has("latency_ns") ? in_range(mem, "latency_ns", latency, mem.non_negative_number("latency_ns")) * latency.to_si
                                        : hw.hbm.access_latency_s;
    const HardwareParam& share = *find_hardware_param("onchip.NAME.resident_share");
    if (mem.has("resident_share")) m.resident_share = in_range(mem, "resident_share", share, mem.positive_number("resident_share"));
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

  if (auto memory = top.optional_table("memory")) {
    read_declared(*memory, hw);
    // The rest are the model's own parameters: numbers here, checked against its declaration
    // where the model is built (memory_model_of).
    for (const std::string& key : memory->keys()) {
      if (find_hardware_param("memory." + key)) continue;
      if (!memory->node(key).is_number()) {
        memory->fail(key, "unknown key: [memory] holds model, hit_rate and numbers of the model's own");
      }
      hw.memory.params[key] = {memory->finite_number(key), memory->file_of(key), static_cast<int>(memory->line_of(key))};
    }
    if (hw.memory.model.empty()) hw.memory.model = "hbm";
    if (memory->has("model")) {
      hw.memory.model_line = static_cast<int>(memory->line_of("model"));
      hw.memory.model_file = memory->file_of("model");
    }
    if (memory->has("hit_rate") && hw.memory.model != "l2_hit_rate") memory->fail("hit_rate", "is for model = \"l2_hit_rate\"");
    if (!memory->has("hit_rate") && hw.memory.model == "l2_hit_rate") {
      memory->fail("hit_rate", "missing: model = \"l2_hit_rate\" serves this share of each read from the tile buffer");
    }
  }
  if (auto links = top.optional_table("links")) {
    read_table(*links, hw);
    if (links->has("model") && hw.links.model.name.empty()) links->fail("model", "empty: name a model (array, the built-in, or a library's)");
    if (links->has("model")) {
      hw.links.model.line = static_cast<int>(links->line_of("model"));
      hw.links.model.file = links->file_of("model");
    }
    if (links->has("fabric")) links->one_of("fabric", {"switch", "mesh", "torus"});
    if (hw.links.switch_reduction_rate > 0 && !hw.links.in_switch_reduction) {
      links->fail("switch_reduction_gb_per_s", "given, but in_switch_reduction is false");
    }
  }
  if (hw.links.model.name.empty()) hw.links.model.name = "array";  // with or without [links]
  if (auto net = top.optional_table("network")) {
    hw.network.present = true;
    read_table(*net, hw);
    if (hw.network.shape.empty()) hw.network.shape = "rail";
    if (net->has("shape")) net->one_of("shape", {"rail", "fat_tree"});
    if (net->has("oversubscription") && hw.network.shape != "fat_tree") {
      net->fail("oversubscription", "is for shape = \"fat_tree\" (a rail-optimised network has no spine in its path)");
    }
    if (hw.links.count <= 0) net->fail("chips_per_node", "a node's chips need [links] (their NVLink switch)");
  }
  if (auto pim = top.optional_table("pim")) {
    hw.pim.present = true;
    read_table(*pim, hw);
  }
  if (auto energy = top.optional_table("energy")) {
    hw.energy.present = true;
    read_table(*energy, hw);
    if (!energy->has("near_memory_pj_per_bit")) hw.energy.near_memory_j_per_bit = hw.energy.hbm_j_per_bit;
    if (hw.energy.tdp_w > 0) {
      if (hw.energy.tdp_w <= hw.energy.static_w) {
        energy->fail("tdp_w", "expected more than static_w (" + format_general(hw.energy.static_w) + " W, the board's idle power), got " +
                                  format_general(hw.energy.tdp_w));
      }
      apply_power_limit(hw);
    }
  }
  if (auto area = top.optional_table("area")) {
    hw.area.present = true;
    read_table(*area, hw);
  }
  if (auto cost = top.optional_table("cost")) {
    // The die's price follows from its area.
    if (!hw.area.present) cost->fail("wafer_usd", "prices a die whose area the file does not give: add [area]");
    hw.cost.present = true;
    read_table(*cost, hw);
  }
  if (auto host = top.optional_table("host")) read_table(*host, hw);
  if (auto coll = top.optional_table("collectives")) read_table(*coll, hw);

  if (auto prov = top.optional_table("provenance")) {
    for (const std::string& key : prov->keys()) {
      if (!document_has(doc, key)) {
        prov->fail(key, "provenance for a key that the file does not have");
      }
      hw.provenance.set(key, prov->string(key));
    }
    prov->reject_unknown_keys();
  }
  // The time a cycle count gives has the count's source (hw show --provenance lists both).
  if (hw.op_overhead_cycles > 0) {
    auto cycles = hw.provenance.find("chip.op_overhead_cycles");
    if (cycles != hw.provenance.end()) hw.provenance.set("chip.op_overhead_ns", cycles->second + " [chip.op_overhead_cycles at vector.clock_mhz]");
  }
  top.reject_unknown_keys();
  return hw;
}

HardwareSpec load_hardware(const std::string& name_or_path) {
  return load_hardware_file(resolve_preset("hardware", name_or_path));
}

const std::vector<NonIdealCost>& non_ideal_costs() {
  static const std::vector<NonIdealCost> costs = {
      {"launch", "a fixed cost per kernel: the host's launch, the kernel's start and drain (and split-K's second kernel, which reduces the partial tiles)",
       [](HardwareSpec& hw) {
         hw.op_overhead_s = 0;
         hw.op_overhead_cycles = 0;
         hw.matrix.split_k_reduce_min_parts = 0;
         hw.host_launch_interval_s = 0;
       }},
      {"clock", "the matrix units run at their sustained clock, below the one behind the peak (power, stalls)",
       [](HardwareSpec& hw) { hw.matrix.sustained_clock_hz = hw.matrix.clock_hz; }},
      {"dtype", "a data type's kernels reach less of its peak than bf16's (fp8 kernel efficiency), and a fused-MoE kernel's tiles less than a dense GEMM's",
       [](HardwareSpec& hw) {
         hw.matrix.dtype_efficiency.clear();
         hw.matrix.fused_moe_mma_share = 1;
         hw.matrix.weight_only_moe_mma_share = 1;
         hw.matrix.mixed_input_convert_cycles = 0;
       }},
      {"memory", "HBM delivers less than its peak bandwidth (refresh, page misses, short rows of operand tiles, writes)",
       [](HardwareSpec& hw) {
         hw.hbm.efficiency = 1.0;
         hw.hbm.tile_efficiency = 1.0;
         hw.hbm.write_efficiency = 1.0;
       }},
      {"latency", "memory latency and the units' pipeline fill and drain (a systolic array's per fold where its folds do not overlap, an attention CTA's prologue and epilogue too, a block-scaled kernel's loads past the matrix's edge, an fp8 sliding-window FMHA's extra cycles per key step, and a CUDA-core GEMV's conversion chain), where nothing hides them",
       [](HardwareSpec& hw) {
         hw.hbm.access_latency_s = 0;
         for (OnChipMemory& m : hw.onchip) m.latency_s = 0;
         hw.matrix.pipeline_latency_cycles = 0;
         hw.matrix.weight_load_overlap = true;  // a systolic array's folds pipeline: no fill and drain each
         hw.matrix.attention_cta_cycles = 0;
         hw.matrix.decode_attention_cta_cycles = 0;
         hw.matrix.gqa_decode_cta_cycles = 0;
         hw.matrix.gqa_decode_qgmma_cta_cycles = 0;
         hw.matrix.gqa_decode_cycles_per_query_element = 0;
         hw.matrix.gqa_decode_merge_cycles_per_block = 0;
         hw.matrix.block_scaled_oob_row_cycles = 0;
         hw.matrix.fp8_window_key_tile_cycles = 0;
         hw.vector.pipeline_latency_cycles = 0;
         hw.vector.token_cta_cycles = 0;
         hw.vector.gemv_convert_cycles = 0;
         hw.vector.gemv_cta_cycles = 0;
       }},
      {"links", "collective kernels: protocol flags, per-step synchronisation, launch, link and network efficiency and latency",
       [](HardwareSpec& hw) {
         hw.links.latency_s = 0;
         hw.links.efficiency = 1.0;
         hw.links.switch_reduction_rate = 0;
         hw.network.latency_s = 0;
         hw.network.efficiency = 1.0;
         hw.collectives = CollectiveKernelSpec{};  // the links alone
       }},
  };
  return costs;
}

HardwareSpec make_ideal(HardwareSpec hw) {
  for (const NonIdealCost& c : non_ideal_costs()) c.remove(hw);
  hw.name += " (ideal)";
  return hw;
}

}  // namespace roofsim
