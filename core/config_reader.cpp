#include "core/config_reader.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/error.hpp"

namespace roofsim {

namespace {
std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    default: return "a date/time";
  }
}
std::string show(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
}  // namespace

ConfigTable::ConfigTable(const toml::table& table, std::string file, std::string path)
    : table_(&table), file_(std::move(file)), path_(std::move(path)) {}

toml::table ConfigTable::parse_file(const std::string& file) {
  // A device or pipe (/dev/zero) is no settings file: TOML read from one is empty or endless.
  std::error_code ec;
  if (std::filesystem::exists(file, ec) && !std::filesystem::is_regular_file(file, ec)) {
    throw InputError(file + ": not a regular file");
  }
  try {
    return toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    std::string what(e.description());
    if (what.find("unable to open") != std::string::npos ||
        what.find("File could not be opened") != std::string::npos) {
      throw InputError(file + ": cannot open file");
    }
    throw ConfigError(file, static_cast<long>(e.source().begin.line), "",
                      "TOML syntax error: " + what);
  }
}

bool ConfigTable::has(const std::string& key) const { return table_->contains(key); }

std::string ConfigTable::key_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

long ConfigTable::line_of(const std::string& key) const {
  if (const toml::node* n = table_->get(key)) {
    if (n->source().begin.line > 0) return static_cast<long>(n->source().begin.line);
  }
  return static_cast<long>(table_->source().begin.line);
}

std::string ConfigTable::file_of(const std::string& key) const {
  // A key merged in from another file (a hardware file's base) names that file.
  const toml::node* n = table_->get(key);
  if (!n) n = table_;
  if (n->source().path && !n->source().path->empty()) return *n->source().path;
  return file_;
}

void ConfigTable::fail(const std::string& key, const std::string& problem) const {
  throw ConfigError(file_of(key), line_of(key), key_path(key), problem);
}

const toml::node& ConfigTable::required(const std::string& key) {
  const toml::node* n = table_->get(key);
  if (!n) {
    throw ConfigError(file_of(key), static_cast<long>(table_->source().begin.line), key_path(key),
                      "missing required key" +
                          (path_.empty() ? std::string() : " in table [" + path_ + "]"));
  }
  used_.insert(key);
  return *n;
}

const toml::node& ConfigTable::node(const std::string& key) { return required(key); }
double ConfigTable::finite_number(const std::string& key) { return number(key); }

double ConfigTable::number(const std::string& key) {
  const toml::node& n = required(key);
  if (auto i = n.as_integer()) return static_cast<double>(i->get());
  if (auto f = n.as_floating_point()) {
    if (!std::isfinite(f->get())) fail(key, "expected a finite number, got " + show(f->get()));
    return f->get();
  }
  fail(key, "expected a number, got " + type_name(n));
}

double ConfigTable::positive_number(const std::string& key) {
  double v = number(key);
  if (!(v > 0)) fail(key, "expected a positive number, got " + show(v));
  return v;
}

double ConfigTable::non_negative_number(const std::string& key) {
  double v = number(key);
  if (v < 0) fail(key, "expected a number >= 0, got " + show(v));
  return v;
}

double ConfigTable::fraction(const std::string& key) {
  double v = number(key);
  if (!(v > 0 && v <= 1)) fail(key, "expected a fraction in (0, 1], got " + show(v));
  return v;
}

std::int64_t ConfigTable::positive_integer(const std::string& key) {
  const toml::node& n = required(key);
  auto i = n.as_integer();
  if (!i) fail(key, "expected a positive integer, got " + type_name(n));
  if (i->get() <= 0) fail(key, "expected a positive integer, got " + std::to_string(i->get()));
  return i->get();
}

std::string ConfigTable::string(const std::string& key) {
  const toml::node& n = required(key);
  auto s = n.as_string();
  if (!s) fail(key, "expected a string, got " + type_name(n));
  return s->get();
}

std::string ConfigTable::one_of(const std::string& key, std::initializer_list<const char*> allowed) {
  return one_of(key, std::vector<std::string>(allowed.begin(), allowed.end()));
}

std::string ConfigTable::one_of(const std::string& key, const std::vector<std::string>& allowed) {
  std::string v = string(key);
  std::string list;
  for (const std::string& a : allowed) {
    if (v == a) return v;
    list += (list.empty() ? "" : ", ") + std::string("\"") + a + "\"";
  }
  fail(key, "expected one of " + list + ", got \"" + v + "\"");
}

bool ConfigTable::boolean(const std::string& key) {
  const toml::node& n = required(key);
  auto b = n.as_boolean();
  if (!b) fail(key, "expected true or false, got " + type_name(n));
  return b->get();
}

ConfigTable ConfigTable::table(const std::string& key) {
  const toml::node& n = required(key);
  auto t = n.as_table();
  if (!t) fail(key, "expected a table, got " + type_name(n));
  return ConfigTable(*t, file_, key_path(key));
}

double ConfigTable::positive_number_or(const std::string& key, double fallback) {
  return has(key) ? positive_number(key) : fallback;
}
double ConfigTable::non_negative_number_or(const std::string& key, double fallback) {
  return has(key) ? non_negative_number(key) : fallback;
}
double ConfigTable::fraction_or(const std::string& key, double fallback) {
  return has(key) ? fraction(key) : fallback;
}
std::int64_t ConfigTable::positive_integer_or(const std::string& key, std::int64_t fallback) {
  return has(key) ? positive_integer(key) : fallback;
}
std::string ConfigTable::string_or(const std::string& key, const std::string& fallback) {
  return has(key) ? string(key) : fallback;
}
bool ConfigTable::boolean_or(const std::string& key, bool fallback) {
  return has(key) ? boolean(key) : fallback;
}
std::optional<ConfigTable> ConfigTable::optional_table(const std::string& key) {
  if (!has(key)) return std::nullopt;
  return table(key);
}

std::vector<std::string> ConfigTable::keys() const {
  std::vector<std::string> out;
  for (auto&& [k, v] : *table_) out.emplace_back(k.str());
  return out;
}

std::vector<std::string> ConfigTable::keys_in_file_order() const {
  // TOML++ iterates keys sorted by name; the file's order is their source positions (keys of a
  // table built in memory have none and keep the name order).
  std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, std::string>> found;
  for (auto&& [k, v] : *table_) found.push_back({{k.source().begin.line, k.source().begin.column}, std::string(k.str())});
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& [position, key] : found) out.push_back(std::move(key));
  return out;
}

void ConfigTable::reject_unknown_keys() const {
  for (auto&& [k, v] : *table_) {
    std::string key(k.str());
    if (!used_.count(key)) {
      long line = k.source().begin.line > 0 ? static_cast<long>(k.source().begin.line)
                                             : line_of(key);
      throw ConfigError(file_of(key), line, key_path(key), "unknown key");
    }
  }
}

nlohmann::json toml_scalar(const ConfigTable& t, const std::string& key, const toml::node& n) {
  if (auto i = n.as_integer()) return i->get();
  if (auto f = n.as_floating_point()) {
    if (!std::isfinite(f->get())) t.fail(key, "expected a finite number");
    return f->get();
  }
  if (auto s = n.as_string()) return s->get();
  if (auto b = n.as_boolean()) return b->get();
  t.fail(key, "expected a number, a string or a boolean");
}

}  // namespace roofsim
