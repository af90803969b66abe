// The experiment file ([experiment] table) and the launch modes' names: reading settings, not
// running them (experiment/inference.cpp runs them).
#include <filesystem>
#include <optional>
#include <tuple>

#include "components/collectives.hpp"
#include "core/config_reader.hpp"
#include "core/error.hpp"
#include "core/presets.hpp"
#include "experiment/inference.hpp"

namespace roofsim {

const char* launch_name(Launch l) { return launch_names().at(static_cast<std::size_t>(l)).c_str(); }

std::optional<Launch> parse_launch(const std::string& s) {
  const std::vector<std::string>& names = launch_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == s) return static_cast<Launch>(i);
  }
  return std::nullopt;
}

namespace {

DType dtype_key(ConfigTable& t, const std::string& key, DType fallback) {
  if (!t.has(key)) return fallback;
  std::string v = t.string(key);
  DType d;
  if (!parse_dtype(v, d)) t.fail(key, "unknown dtype '" + v + "' (expected one of " + dtype_list() + ")");
  return d;
}

}  // namespace

Experiment load_experiment_file(const std::string& path) {
  toml::table doc = ConfigTable::parse_file(path);
  ConfigTable top(doc, path, "");
  ConfigTable t = top.table("experiment");
  Experiment e;
  e.source = path;
  e.hw = t.string_or("hw", e.hw);
  e.model = t.string_or("model", e.model);
  e.batch = t.positive_integer_or("batch", e.batch);
  e.prompt = t.positive_integer_or("prompt", e.prompt);
  e.generate = t.positive_integer_or("generate", e.generate);
  e.precision_given = t.has("weights_dtype") || t.has("activations_dtype") || t.has("fp8_scaling");
  e.precision.weights = dtype_key(t, "weights_dtype", e.precision.weights);
  e.precision.activations = dtype_key(t, "activations_dtype", e.precision.activations);
  e.precision.kv = dtype_key(t, "kv_dtype", e.precision.kv);
  if (t.has("attention")) {
    e.attention = parse_attention(t.one_of("attention", {"fused", "unfused", "vector"}), "attention");
  }
  e.ideal = t.boolean_or("ideal", false);
  if (t.has("launch")) e.launch = *parse_launch(t.one_of("launch", launch_names()));
  if (t.has("allreduce")) e.allreduce = t.one_of("allreduce", allreduce_kernel_names());
  e.decode_stride = t.positive_integer_or("decode_stride", 0);
  e.tp = t.positive_integer_or("tp", 1);
  e.pp = t.positive_integer_or("pp", 1);
  e.microbatches = t.positive_integer_or("microbatches", 0);
  e.ep = t.positive_integer_or("ep", 1);
  if (t.has("routing")) {
    const std::optional<MoeRouting> r = parse_moe_routing(t.string("routing"));
    if (!r) t.fail("routing", std::string("expected ") + kMoeRoutingForms + ", got \"" + t.string("routing") + "\"");
    e.routing = *r;
  }
  if (t.has("moe_kernel")) e.moe_kernel = *parse_moe_kernel(t.one_of("moe_kernel", moe_kernel_names()));
  e.moe_tp = t.positive_integer_or("moe_tp", 0);
  if (t.has("fp8_scaling")) e.precision.scale_block_k = t.one_of("fp8_scaling", {"tensor", "block"}) == "block" ? 128 : 0;
  if (t.has("near_memory")) {
    const std::string v = t.one_of("near_memory", {"off", "auto", "all"});
    e.near_memory = v == "off" ? NearMemory::off : v == "all" ? NearMemory::all : NearMemory::small_rows;
  }
  e.topology = t.string_or("topology", "");
  e.nodes = t.positive_integer_or("nodes", 0);
  e.replicas = t.positive_integer_or("replicas", 1);
  e.allow_long_context = t.boolean_or("allow_long_context", false);
  t.reject_unknown_keys();
  top.reject_unknown_keys();
  // Where each setting was given, for messages about it (the library names settings as the
  // CLI does: "gen" for the file's "generate").
  for (const auto& [name, key] : {std::pair{"batch", "batch"}, {"prompt", "prompt"}, {"gen", "generate"}, {"tp", "tp"},
                                  {"pp", "pp"}, {"ep", "ep"}, {"routing", "routing"}, {"microbatches", "microbatches"},
                                  {"decode_stride", "decode_stride"}, {"topology", "topology"}, {"nodes", "nodes"}, {"replicas", "replicas"},
                                  {"near_memory", "near_memory"}, {"allow_long_context", "allow_long_context"},
                                  {"weights_dtype", "weights_dtype"}, {"activations_dtype", "activations_dtype"},
                                  {"kv_dtype", "kv_dtype"}, {"hw", "hw"}, {"model", "model"}, {"moe_tp", "moe_tp"},
                                  {"fp8_scaling", "fp8_scaling"}}) {
    if (t.has(key)) e.set_in_file[name] = path + ":" + std::to_string(t.line_of(key)) + ": " + t.key_path(key);
  }
  // A relative path to a hardware or model file is relative to the experiment file; a name or
  // path that finds nothing is refused here, at its line.
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (const auto& [key, kind, value] : {std::tuple{"hw", "hardware", &e.hw}, {"model", "models", &e.model}}) {
    if (looks_like_config_path(*value) && std::filesystem::path(*value).is_relative()) *value = (dir / *value).lexically_normal().string();
    if (!t.has(key)) continue;
    try {
      resolve_preset(kind, *value);
    } catch (const InputError& err) {
      t.fail(key, err.what());
    }
  }
  return e;
}

}  // namespace roofsim
