#pragma once
// Every hardware parameter declared once: its key in the TOML file, its unit there, what it
// means, whether it is required and its default. The same table reads hardware files
// (core/hardware.cpp), writes them back for `hw show` and JSON (experiment/hardware_json),
// tells `--set/--scale` and the Python module which keys exist, and generates
// docs/hardware-keys.md (`roofsim hw keys`). A new parameter is one row here plus the field it
// fills in HardwareSpec.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/hardware.hpp"

namespace roofsim {

enum class ParamKind {
  positive,      // a number > 0
  non_negative,  // a number >= 0
  fraction,      // a number in (0, 1]
  count,         // an integer > 0
  flag,          // true or false
  text,          // a string
};

// Where a parameter's value lives in a HardwareSpec (SI units there).
using ParamField = std::variant<double*, std::int64_t*, bool*, std::string*>;

struct HardwareParam {
  const char* key;      // dotted path in the file: "hbm.bandwidth_gb_per_s"
  const char* unit;     // unit in the file ("" for counts, flags and text)
  double to_si;         // file unit -> the HardwareSpec's SI unit (GB/s -> B/s: 1e9)
  ParamKind kind;
  bool required;        // within its table; optional tables ([links], [pim], [host]) may be absent
  double fallback;      // default when optional, in the file's unit
  const char* meaning;
  ParamField (*field)(HardwareSpec&);
  // Shown in `hw show` and JSON even when it has its default (false: only when set).
  bool always_shown = true;
  // The default in words when it is not a number ("clock_mhz"), for the docs.
  const char* default_text = nullptr;
};

// The physically meaningful range of a numeric parameter, in the file's unit, set by what it
// measures (a clock between 1 MHz and 100 GHz, a bandwidth between 1 MB/s and 10 PB/s, sizes of
// 1 byte to 256 TiB, latencies up to 1 s, ...). Values are checked against it as read, so that
// nothing downstream meets an inf, a sub-byte size or a duration beyond what time can hold.
struct ParamRange {
  double lo = 0, hi = 0;  // lo <= value <= hi
  bool zero_ok = false;   // non-negative parameters: 0 means "none" and is allowed besides
  bool contains(double v) const { return (zero_ok && v == 0) || (v >= lo && v <= hi); }
  std::string text(const std::string& unit) const;  // "1 to 1e+05 MHz" (or "0, or ...")
};
ParamRange param_range(const HardwareParam& p);

// The declared parameters, table by table, in the order the docs list them. Parameters per
// dtype (matrix.dtype_rate.DTYPE, matrix.dtype_efficiency.DTYPE) and per on-chip memory
// (onchip.NAME.*) have one row each with the variable part written in capitals.
const std::vector<HardwareParam>& hardware_params();
// The row for a concrete key ("matrix.dtype_rate.fp8" finds matrix.dtype_rate.DTYPE), or null.
const HardwareParam* find_hardware_param(const std::string& key);
// Tables a file may leave out, and what their absence means.
struct OptionalTable {
  const char* name;
  const char* when_absent;
};
const std::vector<OptionalTable>& optional_hardware_tables();

// docs/hardware-keys.md: every key with its unit, default and meaning.
std::string hardware_keys_markdown();

}  // namespace roofsim
