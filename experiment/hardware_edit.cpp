#include "experiment/hardware_edit.hpp"

#include <filesystem>
#include <functional>
#include <sstream>

#include "core/config_reader.hpp"
#include "core/error.hpp"
#include "core/hardware_params.hpp"
#include "core/hardware_toml.hpp"
#include "core/parse.hpp"
#include "core/presets.hpp"

namespace roofsim {

namespace {
// Shortest text that reads back as the same number (labels, provenance).
std::string number_text(double v) {
  std::ostringstream os;
  os.precision(12);
  os << v;
  return os.str();
}
}  // namespace

HardwareDocument HardwareDocument::load(const std::string& name_or_path) {
  HardwareDocument d;
  d.path_ = resolve_preset("hardware", name_or_path);
  d.name_ = std::filesystem::path(d.path_).stem().string();
  d.doc_ = read_hardware_toml(d.path_);
  return d;
}

double HardwareDocument::get(const std::string& key) const {
  const toml::node* node = doc_.at_path(key).node();
  if (!node || !(node->is_integer() || node->is_floating_point())) {
    throw InputError(name_ + ": the hardware file has no number at '" + key + "'");
  }
  return node->is_integer() ? static_cast<double>(node->as_integer()->get()) : node->as_floating_point()->get();
}

namespace {
// Keys that state one quantity in two units, of which a file gives one: setting either drops the other.
const char* other_unit_key(const std::string& key) {
  if (key == "chip.op_overhead_ns") return "chip.op_overhead_cycles";
  if (key == "chip.op_overhead_cycles") return "chip.op_overhead_ns";
  return nullptr;
}
}  // namespace

void HardwareDocument::put(const std::string& key, double value, const std::string& why, bool listed) {
  toml::node* node = doc_.at_path(key).node();
  const auto dot = key.rfind('.');
  toml::table* parent = dot == std::string::npos ? &doc_ : doc_.at_path(key.substr(0, dot)).as_table();
  if (const char* other = other_unit_key(key)) {
    const std::string o = other;
    if (toml::table* table = doc_.at_path(o.substr(0, o.rfind('.'))).as_table()) table->erase(o.substr(o.rfind('.') + 1));
    if (toml::table* prov = doc_["provenance"].as_table()) prov->erase(o);
  }
  const HardwareParam* declared = find_hardware_param(key);
  if (!node && parent && declared && declared->kind != ParamKind::text && declared->kind != ParamKind::flag) {
    // A declared parameter the file leaves at its default: set it.
    parent->insert_or_assign(key.substr(dot + 1), value);
  } else if (!node || !(node->is_integer() || node->is_floating_point())) {
    throw InputError(name_ + ": the hardware file has no number at '" + key + "' (hardware keys: docs/hardware-keys.md)");
  } else if (node->is_integer() && value == static_cast<double>(static_cast<std::int64_t>(value))) {
    *node->as_integer() = static_cast<std::int64_t>(value);
  } else {
    // An integer becomes a float when the new value is fractional.
    parent->insert_or_assign(dot == std::string::npos ? key : key.substr(dot + 1), value);
  }
  if (toml::table* prov = doc_["provenance"].as_table()) prov->insert_or_assign(key, "what-if: " + why);
  if (listed) edits_ += (edits_.empty() ? "" : ", ") + key + " " + why;
}

bool HardwareDocument::has_number(const std::string& key) const {
  const toml::node* node = doc_.at_path(key).node();
  return node && (node->is_integer() || node->is_floating_point());
}

namespace {
// Keys a hardware file bounds by another (docs/hardware-keys.md: "at most efficiency").
const std::map<std::string, std::vector<std::string>>& bounded_keys() {
  static const std::map<std::string, std::vector<std::string>> keys = {
      {"hbm.efficiency", {"hbm.tile_efficiency", "hbm.write_efficiency"}}};
  return keys;
}
}  // namespace

void HardwareDocument::take_over(const std::string& key) {
  if (!edited_by_user_.insert(key).second) return;
  auto it = original_.find(key);
  if (it != original_.end()) put(key, it->second, "as in the file");  // carried before: the user's edit applies to the file's value
  else if (has_number(key)) original_[key] = get(key);
}

void HardwareDocument::carry_dependents(const std::string& key) {
  auto deps = bounded_keys().find(key);
  auto before = original_.find(key);
  if (deps == bounded_keys().end() || before == original_.end() || before->second <= 0) return;
  const double ratio = get(key) / before->second;
  std::vector<std::string> carried;
  for (const std::string& d : deps->second) {
    if (edited_by_user_.count(d) || !has_number(d)) continue;
    const double file_value = original_.emplace(d, get(d)).first->second;
    put(d, file_value * ratio, "carried with " + key + " (x" + number_text(ratio) + ")", false);
    carried.push_back(d);
  }
  // Named once, after the edit that moved them (the provenance keeps each one's factor):
  // " (carrying a, b and c along)".
  if (carried.empty()) return;
  edits_ += " (carrying " + carried.front();
  for (std::size_t i = 1; i < carried.size(); ++i) edits_ += (i + 1 == carried.size() ? " and " : ", ") + carried[i];
  edits_ += " along)";
}

void HardwareDocument::set(const std::string& key, double value) {
  take_over(key);
  put(key, value, "set to " + number_text(value));
  carry_dependents(key);
}

void HardwareDocument::scale(const std::string& key, double factor) {
  take_over(key);
  put(key, get(key) * factor, "scaled by " + number_text(factor));
  carry_dependents(key);
}

std::vector<std::string> HardwareDocument::numeric_keys() const {
  std::vector<std::string> keys;
  std::function<void(const toml::table&, const std::string&)> walk = [&](const toml::table& t, const std::string& prefix) {
    for (const auto& [k, v] : t) {
      const std::string key = prefix + std::string(k.str());
      if (key == "provenance") continue;
      if (const toml::table* inner = v.as_table()) {
        walk(*inner, key + ".");
      } else if (v.is_integer() || v.is_floating_point()) {
        keys.push_back(key);
      }
    }
  };
  walk(doc_, "");
  return keys;
}

HardwareSpec HardwareDocument::spec() const {
  const std::string where = edits_.empty() ? path_ : path_ + " with " + edits_;
  HardwareSpec hw = load_hardware_document(doc_, where, name_);
  return hw;
}

std::string HardwareDocument::toml_text() const {
  std::ostringstream os;
  os << doc_ << "\n";
  return os.str();
}

std::vector<std::string> hardware_key_paths(const std::string& key) {
  if (key == "compute") return {"matrix.macs_per_clock", "vector.flops_per_clock"};
  if (key == "hbm.bandwidth" || key == "bandwidth") return {"hbm.bandwidth_gb_per_s"};
  if (key == "links.bandwidth") return {"links.bandwidth_gb_per_s"};
  if (key == "hbm.capacity") return {"hbm.capacity_bytes"};
  return {key};
}

std::vector<HardwareEdit> parse_hardware_edits(const std::string& text, bool scale, const std::string& flag) {
  std::vector<HardwareEdit> edits;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw InputError(flag + " '" + item + "': expected KEY=" + (scale ? "FACTOR" : "VALUE"));
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    const auto parsed = parse_number(value);
    if (!parsed) throw InputError(flag + " '" + item + "': '" + value + "' is not a number");
    if (scale && !(*parsed > 0)) throw InputError(flag + " '" + item + "': the factor must be positive");
    edits.push_back({key, *parsed, scale});
  }
  return edits;
}

std::string apply_edits(HardwareDocument& doc, const std::vector<HardwareEdit>& edits, const std::string& flag) {
  std::string label;
  for (const HardwareEdit& e : edits) {
    for (const std::string& path : hardware_key_paths(e.key)) {
      try {
        if (e.scale) {
          doc.scale(path, e.value);
        } else {
          doc.set(path, e.value);
        }
      } catch (const InputError&) {
        throw InputError(flag + " '" + e.key + "=" + number_text(e.value) + "': the hardware file has no number at '" + path + "'");
      }
    }
    label += (label.empty() ? "" : ", ") + e.key + (e.scale ? " x" : " = ") + number_text(e.value);
  }
  return label;
}

}  // namespace roofsim
