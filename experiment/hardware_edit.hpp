#pragma once
// A hardware description as its TOML document, editable key by key before it becomes a
// HardwareSpec: what-if variants, sweep points and the Python module's Hardware objects all
// edit the same document the files hold, so every edit passes the loader's checks again.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "core/hardware.hpp"

namespace roofsim {

class HardwareDocument {
 public:
  // A preset name or a path to a hardware .toml.
  static HardwareDocument load(const std::string& name_or_path);

  // The number at a dotted key path ("hbm.bandwidth_gb_per_s"); throws InputError when the
  // document has no number there.
  double get(const std::string& key) const;
  // Sets (or multiplies) the number at `key`; the provenance of the key records the edit.
  // Keys bounded by the one edited move with it in proportion unless edited themselves
  // (hbm.efficiency carries hbm.tile_efficiency and hbm.write_efficiency, which may not exceed
  // it): halving the HBM's efficiency halves all three.
  void set(const std::string& key, double value);
  void scale(const std::string& key, double factor);
  // Every numeric key path of the document (provenance aside), sorted.
  std::vector<std::string> numeric_keys() const;
  // The edits so far, for people ("hbm.bandwidth_gb_per_s x2").
  const std::string& edits() const { return edits_; }

  // Checked as a file would be (throws ConfigError naming the key).
  HardwareSpec spec() const;
  std::string toml_text() const;
  const std::string& name() const { return name_; }

 private:
  // `listed`: the edit is named in edits() (keys carried along are named after the one edited).
  void put(const std::string& key, double value, const std::string& why, bool listed = true);
  bool has_number(const std::string& key) const;
  // Before an edit of `key` by the user: a value carried along earlier goes back to the file's.
  void take_over(const std::string& key);
  // After it: the keys bounded by `key` follow its change from the file's value.
  void carry_dependents(const std::string& key);
  toml::table doc_;
  std::map<std::string, double> original_;  // the file's values of keys edited or carried
  std::set<std::string> edited_by_user_;
  std::string path_, name_, edits_;
};

// Friendly names of the knobs people turn most: compute -> the matrix and vector units' work
// per clock, hbm.bandwidth (or bandwidth) -> hbm.bandwidth_gb_per_s, links.bandwidth,
// hbm.capacity; any other key is a path of the document.
std::vector<std::string> hardware_key_paths(const std::string& key);

// One edit of a what-if or sweep: KEY=VALUE (set) or KEY=FACTOR (scale).
struct HardwareEdit {
  std::string key;
  double value = 0;
  bool scale = false;
};
// "key=value[,key=value]"; `flag` names the source in messages.
std::vector<HardwareEdit> parse_hardware_edits(const std::string& text, bool scale, const std::string& flag);
// Applies the edits (friendly names expanded); returns a label such as "hbm.bandwidth x2".
std::string apply_edits(HardwareDocument& doc, const std::vector<HardwareEdit>& edits, const std::string& flag);

}  // namespace roofsim
