#include "core/setting.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/parse.hpp"

namespace roofsim {

namespace {

// A bound as people write it: 16777216, 0.5.
std::string bound_text(double v) {
  std::ostringstream o;
  if (v == std::floor(v) && std::fabs(v) < 1e20) {
    o << std::fixed << std::setprecision(0) << v;  // counts in full: 1099511627776, not 1.1e+12
  } else {
    o << std::setprecision(12) << v;
  }
  return o.str();
}

bool bounded_below(const SettingSpec& s) { return std::isfinite(s.lo); }
bool bounded_above(const SettingSpec& s) { return std::isfinite(s.hi); }

std::string range_text(const SettingSpec& s) {
  if (s.above_lo && bounded_above(s)) return "in (" + bound_text(s.lo) + ", " + bound_text(s.hi) + "]";
  if (bounded_below(s) && bounded_above(s)) return "from " + bound_text(s.lo) + " to " + bound_text(s.hi);
  if (s.above_lo) return "> " + bound_text(s.lo);
  if (bounded_below(s)) return ">= " + bound_text(s.lo);
  if (bounded_above(s)) return "<= " + bound_text(s.hi);
  return "";
}

const char* kind_name(SettingKind k) {
  switch (k) {
    case SettingKind::whole: return "whole";
    case SettingKind::number: return "number";
    case SettingKind::flag: return "flag";
    case SettingKind::text: return "text";
    case SettingKind::choice: return "choice";
    case SettingKind::numbers: return "numbers";
  }
  return "text";
}

// A finite number within the setting's range.
bool in_range(const SettingSpec& s, const nlohmann::json& v) {
  if (!v.is_number() || !std::isfinite(v.get<double>())) return false;
  const double d = v.get<double>();
  return d >= s.lo && d <= s.hi && !(s.above_lo && d == s.lo);
}

[[noreturn]] void refuse(const std::string& label, const nlohmann::json& value, const std::string& expected) {
  throw InputError(label + "=" + value.dump() + ": expected " + expected);
}

}  // namespace

std::string SettingSpec::flag() const {
  std::string f = "--" + name;
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

std::string SettingSpec::flag_names() const {
  std::string names = flag();
  for (const std::string& a : aliases) {
    std::string f = "--" + a;
    std::replace(f.begin(), f.end(), '_', '-');
    names += "," + f;
  }
  return names;
}

std::string SettingSpec::expected() const {
  const std::string range = range_text(*this);
  switch (kind) {
    case SettingKind::whole: return "a whole number" + (range.empty() ? "" : " " + range);
    case SettingKind::number: return "a number" + (range.empty() ? "" : " " + range);
    case SettingKind::flag: return "true or false";
    case SettingKind::choice: return or_list(choices());
    case SettingKind::numbers: return "a number" + (range.empty() ? "" : " " + range) + ", or a list of them";
    case SettingKind::text: return form.empty() ? "a string" : form;
  }
  return "a string";
}

bool SettingSpec::named(const std::string& key) const {
  return key == name || std::find(aliases.begin(), aliases.end(), key) != aliases.end();
}

nlohmann::json checked_setting_value(const SettingSpec& s, const nlohmann::json& value, const std::string& label) {
  switch (s.kind) {
    case SettingKind::whole: {
      std::int64_t n = 0;
      if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
        refuse(label, value, s.expected());
      } else if (value.is_number_integer()) {
        n = value.get<std::int64_t>();
      } else if (value.is_number_float() && std::isfinite(value.get<double>()) &&
                 value.get<double>() == std::floor(value.get<double>()) && std::fabs(value.get<double>()) < 9e15) {
        n = static_cast<std::int64_t>(value.get<double>());  // 8.0 from a computed value is 8
      } else {
        refuse(label, value, s.expected());
      }
      const long double d = static_cast<long double>(n);
      if (d < static_cast<long double>(s.lo) || d > static_cast<long double>(s.hi)) refuse(label, value, s.expected());
      return n;
    }
    case SettingKind::number:
      if (!in_range(s, value)) refuse(label, value, s.expected());
      return value.get<double>();
    case SettingKind::numbers: {
      if (value.is_number()) {
        if (!in_range(s, value)) refuse(label, value, s.expected());
        return value.get<double>();
      }
      if (!value.is_array() || value.empty()) refuse(label, value, s.expected());
      nlohmann::json out = nlohmann::json::array();
      for (const nlohmann::json& v : value) {
        if (!in_range(s, v)) refuse(label, value, s.expected());
        out.push_back(v.get<double>());
      }
      return out;
    }
    case SettingKind::flag:
      if (!value.is_boolean()) refuse(label, value, s.expected());
      return value;
    case SettingKind::choice: {
      if (!value.is_string()) refuse(label, value, s.expected());
      const std::vector<std::string> names = s.choices();
      if (std::find(names.begin(), names.end(), value.get<std::string>()) == names.end()) refuse(label, value, s.expected());
      return value;
    }
    case SettingKind::text: {
      if (s.whole_as_text && value.is_number_integer()) return checked_setting_value(s, std::to_string(value.get<std::int64_t>()), label);
      if (!value.is_string() || (s.accepts && !s.accepts(value.get<std::string>()))) refuse(label, value, s.expected());
      return value;
    }
  }
  return value;
}

nlohmann::json setting_value_from_text(const SettingSpec& s, const std::string& text) {
  switch (s.kind) {
    case SettingKind::whole:
      if (const auto v = parse_integer(text)) return *v;
      break;
    case SettingKind::number:
      if (const auto v = parse_number(text)) return *v;
      break;
    case SettingKind::flag:
      if (text == "true" || text == "1") return true;
      if (text == "false" || text == "0") return false;
      break;
    case SettingKind::numbers: {
      nlohmann::json out = nlohmann::json::array();
      for (const std::string& part : split_commas(text)) {
        const auto v = parse_number(part);
        if (!v) return nullptr;
        out.push_back(*v);
      }
      return out.size() == 1 ? out[0] : out;
    }
    case SettingKind::choice:
    case SettingKind::text: return text;
  }
  return nullptr;  // not a value of this kind: checked_setting_value refuses it
}

std::string setting_text_error(const SettingSpec& s, const std::string& text) {
  const nlohmann::json v = setting_value_from_text(s, text);
  try {
    checked_setting_value(s, v, s.flag());
  } catch (const InputError&) {
    return "'" + text + "' is not " + s.expected();
  }
  return "";
}

nlohmann::json setting_json(const SettingSpec& s) {
  nlohmann::json j = {{"name", s.name},
                      {"flag", s.flag()},
                      {"kind", kind_name(s.kind)},
                      {"unit", s.unit},
                      {"default", render_setting_names(s.default_text, SettingNames::key)},
                      {"help", render_setting_names(s.help, SettingNames::key)},
                      {"aliases", s.aliases}};
  if (bounded_below(s)) j[s.above_lo ? "above" : "min"] = s.lo;
  if (bounded_above(s)) j["max"] = s.hi;
  if (s.kind == SettingKind::choice) j["choices"] = s.choices();
  if (!s.group.empty()) j["group"] = s.group;
  return j;
}

std::string settings_markdown_table(const std::vector<const SettingSpec*>& specs) {
  std::string out = "| key | flag | values | default | meaning |\n|---|---|---|---|---|\n";
  std::string group;
  auto cell = [](std::string t) {
    for (std::size_t at = t.find('|'); at != std::string::npos; at = t.find('|', at + 2)) t.replace(at, 1, "\\|");
    std::replace(t.begin(), t.end(), '\n', ' ');
    return t;
  };
  for (const SettingSpec* s : specs) {
    if (s->group != group && !s->group.empty()) out += "| **" + s->group + "** | | | | |\n";
    group = s->group;
    std::string name = "`" + s->name + "`";
    for (const std::string& a : s->aliases) name += ", `" + a + "`";
    std::string values = s->kind == SettingKind::text && s->form.empty() ? "text" : s->expected();
    if (!s->unit.empty()) values += " (" + s->unit + ")";
    out += "| " + name + " | `" + s->flag() + "` | " + cell(values) + " | " +
           cell(render_setting_names(s->default_text, SettingNames::key)) + " | " + cell(render_setting_names(s->help, SettingNames::key)) +
           " |\n";
  }
  return out;
}

}  // namespace roofsim
