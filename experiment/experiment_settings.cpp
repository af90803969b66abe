#include "experiment/experiment_settings.hpp"

#include <algorithm>
#include <cmath>

#include "components/collectives.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/format.hpp"

namespace roofsim {

namespace {

// The counts, by name: what a whole-number setting changes.
const std::pair<const char*, std::int64_t Experiment::*> kCounts[] = {
    {"batch", &Experiment::batch},       {"prompt", &Experiment::prompt}, {"gen", &Experiment::generate},
    {"generate", &Experiment::generate}, {"tp", &Experiment::tp},         {"pp", &Experiment::pp},
    {"ep", &Experiment::ep},             {"microbatches", &Experiment::microbatches}, {"moe_tp", &Experiment::moe_tp},
    {"decode_stride", &Experiment::decode_stride}, {"nodes", &Experiment::nodes},
    {"replicas", &Experiment::replicas}};

const char* const kOthers[] = {"hw",         "model",      "weights_dtype", "activations_dtype", "kv_dtype",
                               "attention",  "ideal",      "launch",        "allreduce",         "routing",       "moe_kernel",    "fp8_scaling",
                               "near_memory", "topology",  "allow_long_context", "max_events",   "all_layers"};

std::int64_t Experiment::* count_field(const std::string& key) {
  for (const auto& [name, field] : kCounts) {
    if (key == name) return field;
  }
  return nullptr;
}

DType dtype(const std::string& key, const nlohmann::json& value) {
  DType t;
  if (!parse_dtype(setting_text(key, value), t)) setting_refused(key, value, "one of " + dtype_list());
  return t;
}

}  // namespace

void setting_refused(const std::string& key, const nlohmann::json& value, const std::string& expected) {
  throw InputError(key + "=" + value.dump() + ": expected " + expected);
}

std::string setting_text(const std::string& key, const nlohmann::json& value) {
  if (!value.is_string()) setting_refused(key, value, "a string");
  return value.get<std::string>();
}

bool setting_flag(const std::string& key, const nlohmann::json& value) {
  if (!value.is_boolean()) setting_refused(key, value, "true or false");
  return value.get<bool>();
}

double setting_number(const std::string& key, const nlohmann::json& value, const std::string& expected) {
  if (!value.is_number()) setting_refused(key, value, expected);
  return value.get<double>();
}

std::int64_t setting_whole(const std::string& key, const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  // 8.0 from a computed value is 8; 8.5 is not a count.
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return static_cast<std::int64_t>(d);
  }
  setting_refused(key, value, "a whole number");
}

bool is_experiment_setting(const std::string& key) {
  if (count_field(key)) return true;
  for (const char* k : kOthers) {
    if (key == k) return true;
  }
  return false;
}

std::vector<std::string> experiment_setting_names() {
  std::vector<std::string> out;
  for (const auto& [name, field] : kCounts) out.emplace_back(name);
  for (const char* k : kOthers) out.emplace_back(k);
  return out;
}

std::optional<double> experiment_number(const Experiment& e, const std::string& key) {
  if (auto field = count_field(key)) return static_cast<double>(e.*field);
  if (key == "max_events") return e.max_events;
  return std::nullopt;
}

void set_experiment_setting(Experiment& e, const std::string& key, const nlohmann::json& value) {
  if (auto field = count_field(key)) {
    e.*field = setting_whole(key, value);
  } else if (key == "hw") {
    e.hw = setting_text(key, value);
    e.hardware.reset();
  } else if (key == "model") {
    e.model = setting_text(key, value);
    e.model_config.reset();
    if (!e.precision_source.empty()) {  // the old model's checkpoint formats go with it
      const DType kv = e.precision.kv;
      e.precision = Precision{};
      e.precision.kv = kv;
      e.precision_given = false;
      e.precision_source.clear();
    }
  } else if (key == "weights_dtype") {
    e.precision.weights = dtype(key, value);
    e.precision_given = true;
  } else if (key == "activations_dtype") {
    e.precision.activations = dtype(key, value);
    e.precision_given = true;
  } else if (key == "kv_dtype") {
    e.precision.kv = dtype(key, value);
  } else if (key == "attention") {
    e.attention = parse_attention(setting_text(key, value), key);
  } else if (key == "ideal") {
    e.ideal = setting_flag(key, value);
  } else if (key == "allow_long_context") {
    e.allow_long_context = setting_flag(key, value);
  } else if (key == "all_layers") {
    e.all_layers = setting_flag(key, value);
  } else if (key == "max_events") {
    if (!value.is_number() || !(value.get<double>() >= 0) || !std::isfinite(value.get<double>())) {
      setting_refused(key, value, "a number >= 0 (0: no limit)");
    }
    e.max_events = value.get<double>();
  } else if (key == "launch") {
    const std::optional<Launch> l = parse_launch(setting_text(key, value));
    if (!l) setting_refused(key, value, or_list(launch_names()));
    e.launch = *l;
  } else if (key == "routing") {
    const std::optional<MoeRouting> r = parse_moe_routing(setting_text(key, value));
    if (!r) setting_refused(key, value, kMoeRoutingForms);
    e.routing = *r;
  } else if (key == "fp8_scaling") {
    const std::string v = setting_text(key, value);
    if (v != "tensor" && v != "block") setting_refused(key, value, "tensor or block");
    e.precision.scale_block_k = v == "block" ? 128 : 0;
    e.precision_given = true;
  } else if (key == "moe_kernel") {
    const std::optional<MoeKernel> k = parse_moe_kernel(setting_text(key, value));
    if (!k) setting_refused(key, value, or_list(moe_kernel_names()));
    e.moe_kernel = *k;
  } else if (key == "allreduce") {
    const std::string v = setting_text(key, value);
    const std::vector<std::string>& names = allreduce_kernel_names();
    if (std::find(names.begin(), names.end(), v) == names.end()) setting_refused(key, value, or_list(names));
    e.allreduce = v;
  } else if (key == "near_memory") {
    const std::string v = setting_text(key, value);
    if (v != "off" && v != "auto" && v != "all") setting_refused(key, value, "off, auto or all");
    e.near_memory = v == "off" ? NearMemory::off : v == "all" ? NearMemory::all : NearMemory::small_rows;
  } else if (key == "topology") {
    e.topology = setting_text(key, value);
  } else {
    throw InputError("unknown setting '" + key + "'");
  }
}

}  // namespace roofsim
