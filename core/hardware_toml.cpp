#include "core/hardware_toml.hpp"

#include <filesystem>
#include <vector>

#include "core/config_reader.hpp"
#include "core/error.hpp"
#include "core/presets.hpp"

namespace roofsim {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxDepth = 8;

// Moves every key of `from` into `into`; tables present in both merge.
void merge_into(toml::table& into, toml::table&& from) {
  for (auto&& [key, value] : from) {
    toml::table* mine = into[key].as_table();
    if (toml::table* theirs = value.as_table(); mine && theirs) {
      merge_into(*mine, std::move(*theirs));
      continue;
    }
    // Moving (not copying) keeps the node's source: the file and line it came from.
    value.visit([&, k = key](auto&& node) { into.insert_or_assign(k, std::move(node)); });
  }
}

// Dotted paths of every value (not table) in a document, provenance left out.
void value_paths(const toml::table& t, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& [key, value] : t) {
    const std::string path = prefix + std::string(key.str());
    if (path == "provenance") continue;
    if (const toml::table* inner = value.as_table()) {
      value_paths(*inner, path + ".", out);
    } else {
      out.push_back(path);
    }
  }
}

toml::table read_with_base(const std::string& path, std::vector<std::string>& chain) {
  toml::table doc = ConfigTable::parse_file(path);
  const toml::node* base_node = doc.get("base");
  if (!base_node) return doc;
  ConfigTable top(doc, path, "");
  const std::string base = top.string("base");
  std::string base_path;
  // A preset name or a path, told apart as everywhere (looks_like_config_path); a path is
  // relative to this file, not to the working folder.
  if (!looks_like_config_path(base)) {
    base_path = resolve_preset("hardware", base);
  } else {
    base_path = (fs::path(path).parent_path() / base).string();
    if (!fs::is_regular_file(base_path)) top.fail("base", "'" + base + "': no such file (paths are relative to this file)");
  }
  const std::string canonical = fs::weakly_canonical(base_path).string();
  for (const std::string& seen : chain) {
    if (seen == canonical) top.fail("base", "'" + base + "' leads back to a file it is based on");
  }
  if (static_cast<int>(chain.size()) >= kMaxDepth) top.fail("base", "more than " + std::to_string(kMaxDepth) + " levels of bases");
  chain.push_back(canonical);
  toml::table merged = read_with_base(base_path, chain);
  chain.pop_back();

  doc.erase("base");
  std::vector<std::string> set_here;
  value_paths(doc, "", set_here);
  if (toml::table* prov = merged["provenance"].as_table()) {
    for (const std::string& key : set_here) prov->erase(key);
    // What this file takes over unchanged is another chip's figure here: its source says so
    // (a fit on the base chip's tables is an assumption for this one: core/provenance.hpp).
    const std::string from = "carried over from " + fs::path(base_path).stem().string() + ": ";
    for (auto&& [key, value] : *prov) {
      if (toml::value<std::string>* text = value.as_string()) text->get() = from + text->get();
    }
  }
  merge_into(merged, std::move(doc));
  return merged;
}

}  // namespace

toml::table read_hardware_toml(const std::string& path) {
  std::vector<std::string> chain{fs::weakly_canonical(path).string()};
  return read_with_base(path, chain);
}

}  // namespace roofsim
