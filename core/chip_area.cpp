#include "core/chip_area.hpp"

#include <cmath>

#include "core/format.hpp"

namespace roofsim {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kPi = 3.14159265358979323846;
}  // namespace

AreaParts chip_area(const HardwareSpec& hw) {
  AreaParts a;
  const AreaSpec& k = hw.area;
  if (!k.present) return a;
  const double units = static_cast<double>(hw.matrix.units);
  a.matrix = units * hw.matrix.macs_per_clock * k.matrix_mm2_per_mac;
  a.vector = static_cast<double>(hw.vector.units) * hw.vector.flops_per_clock * k.vector_mm2_per_flop;
  a.unit_overhead = units * k.unit_overhead_mm2;
  double sram_bytes = 0;
  for (const OnChipMemory& m : hw.onchip) sram_bytes += m.capacity_bytes;
  a.sram = sram_bytes / kMiB * k.sram_mm2_per_mib;
  a.hbm_interface = static_cast<double>(hw.hbm.stacks) * k.hbm_interface_mm2;
  a.link_interface = static_cast<double>(hw.links.count) * k.link_interface_mm2;
  a.other = k.other_mm2;
  return a;
}

ChipCost chip_cost(const HardwareSpec& hw) {
  ChipCost c;
  if (!hw.area.present || !hw.cost.present) return c;
  const CostSpec& k = hw.cost;
  const double die = chip_area(hw).total();
  // Whole dies on a round wafer: its area over the die's, less the partial dies along the edge
  // (the usual first-order count: pi d / sqrt(2 A) of them).
  const double d = k.wafer_diameter_mm;
  c.dies_per_wafer = std::floor(kPi * d * d / 4.0 / die - kPi * d / std::sqrt(2.0 * die));
  if (c.dies_per_wafer < 1) {
    c.not_priced = "a die of " + format_fixed(die, 0) + " mm2 does not fit a " + format_fixed(d, 0) + " mm wafer (cost.wafer_diameter_mm)";
    c.dies_per_wafer = 0;
    return c;
  }
  // Negative-binomial yield: defects cluster, so a big die loses less than Poisson's exp(-A D).
  c.yield = std::pow(1.0 + die * k.defect_density_per_mm2 / k.yield_cluster, -k.yield_cluster);
  c.die_usd = k.wafer_usd / (c.dies_per_wafer * c.yield);
  c.hbm_usd = hw.hbm.capacity_bytes * k.hbm_usd_per_byte;
  c.package_usd = k.package_usd;
  c.modelled = true;
  return c;
}

std::string area_text(const AreaParts& a) {
  const double total = a.total();
  auto share = [&](const char* name, double part) {
    return part > 0 ? std::string(", ") + name + " " + format_fixed(100.0 * part / total, 0) + "%" : std::string();
  };
  std::string parts = share("matrix", a.matrix) + share("vector", a.vector) + share("per-unit control", a.unit_overhead) +
                      share("SRAM", a.sram) + share("HBM interfaces", a.hbm_interface) + share("links", a.link_interface) +
                      share("other", a.other);
  return format_fixed(total, 0) + " mm2 (" + parts.substr(2) + ")";
}

std::string cost_text(const ChipCost& c) {
  return "USD " + format_fixed(c.total_usd(), 0) + " per chip: die " + format_fixed(c.die_usd, 0) + " (" +
         format_fixed(c.dies_per_wafer, 0) + " per wafer, " + format_fixed(100.0 * c.yield, 0) + "% yield), HBM " +
         format_fixed(c.hbm_usd, 0) + (c.package_usd > 0 ? ", package " + format_fixed(c.package_usd, 0) : std::string());
}

}  // namespace roofsim
