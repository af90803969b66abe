#include "experiment/stack.hpp"

#include <filesystem>
#include <map>
#include <tuple>
#include <utility>

#include "components/collectives.hpp"
#include "core/config_reader.hpp"
#include "core/dtype.hpp"
#include "core/format.hpp"
#include "core/hardware_params.hpp"
#include "core/parse.hpp"
#include "core/presets.hpp"

namespace roofsim {

namespace {

std::map<std::string, std::function<std::vector<std::string>()>>& serving_choices() {
  static std::map<std::string, std::function<std::vector<std::string>()>> lookups;
  return lookups;
}

// The names `key` may take: the serving registry's where it registered its lookup, else `shipped`.
std::vector<std::string> serving_choices_of(const std::string& key, std::vector<std::string> shipped) {
  const auto it = serving_choices().find(key);
  return it != serving_choices().end() ? it->second() : shipped;
}

// The [serving] keys that state a stack's documented behaviour rather than a fitted number (no
// [provenance] entry needed): what a release (`[releases."VERSION"]`) may change too.
void read_documented_serving(ConfigTable& sv, StackServing& v) {
  if (sv.has("chunked_prefill")) v.chunked_prefill = sv.boolean("chunked_prefill");
  if (sv.has("late_release")) v.late_release = sv.boolean("late_release");
  if (sv.has("schedule_ahead")) v.schedule_ahead = sv.boolean("schedule_ahead");
  if (sv.has("prefill_schedule_ahead")) v.prefill_schedule_ahead = sv.boolean("prefill_schedule_ahead");
  if (sv.has("limits_per_rank")) v.limits_per_rank = sv.boolean("limits_per_rank");
  if (sv.has("fp8_kv_cache_with_fp8_weights")) v.fp8_kv_cache_with_fp8_weights = sv.boolean("fp8_kv_cache_with_fp8_weights");
  if (sv.has("priority")) v.priority = sv.one_of("priority", serving_choices_of("priority", {"decode_first", "prefill_first"}));
  if (sv.has("kv_admission")) v.kv_admission = sv.one_of("kv_admission", serving_choices_of("kv_admission", {"reserve", "on_demand"}));
  if (sv.has("max_num_tokens")) {
    v.max_num_tokens = sv.positive_integer("max_num_tokens");
    if (*v.max_num_tokens > (1 << 24)) sv.fail("max_num_tokens", "more than 2^24 tokens in one iteration");
  }
  if (sv.has("max_prompts")) {
    const double n = sv.non_negative_number("max_prompts");
    if (n != static_cast<double>(static_cast<std::int64_t>(n)) || n > 1e6) sv.fail("max_prompts", "expected a whole number from 0 to 1e6");
    v.max_prompts = static_cast<std::int64_t>(n);
  }
}

// Sets in `into` every value `release` sets.
void merge_serving(StackServing& into, const StackServing& release) {
  auto take = [](auto& to, const auto& from) {
    if (from) to = from;
  };
  take(into.chunked_prefill, release.chunked_prefill);
  take(into.priority, release.priority);
  take(into.max_num_tokens, release.max_num_tokens);
  take(into.kv_admission, release.kv_admission);
  take(into.max_prompts, release.max_prompts);
  take(into.late_release, release.late_release);
  take(into.schedule_ahead, release.schedule_ahead);
  take(into.prefill_schedule_ahead, release.prefill_schedule_ahead);
  take(into.limits_per_rank, release.limits_per_rank);
  take(into.fp8_kv_cache_with_fp8_weights, release.fp8_kv_cache_with_fp8_weights);
}

// "vllm@0.12.0" -> {"vllm", "0.12.0"}; a path or name without a version -> {it, ""}.
std::pair<std::string, std::string> split_version(const std::string& name_or_path) {
  const auto at = name_or_path.rfind('@');
  std::error_code ec;
  if (at == std::string::npos || name_or_path.find('/', at) != std::string::npos || std::filesystem::exists(name_or_path, ec)) {
    return {name_or_path, ""};  // a file whose name holds an '@' is that file
  }
  const std::string version = name_or_path.substr(at + 1);
  if (version_numbers(version).empty()) {
    throw InputError("--stack " + name_or_path + ": '" + version + "' is not a version (NAME@VERSION, the version starting with its number, e.g. vllm@0.12.0)");
  }
  return {name_or_path.substr(0, at), version};
}

}  // namespace

void set_stack_serving_choices(const std::string& key, std::function<std::vector<std::string>()> names) {
  serving_choices()[key] = std::move(names);
}

SoftwareStack load_stack(const std::string& name_or_path) {
  SoftwareStack s;
  s.given = name_or_path;
  std::string preset;
  std::tie(preset, s.version) = split_version(name_or_path);
  s.file = resolve_preset("stacks", preset);
  const toml::table doc = ConfigTable::parse_file(s.file);
  ConfigTable top(doc, s.file, "");
  ConfigTable stack = top.table("stack");
  s.name = stack.string("name");
  s.description = stack.string("description");
  if (stack.has("attention")) {
    const std::string a = stack.string("attention");
    if (!attention_kernels().find(a)) stack.fail("attention", "unknown kernel '" + a + "' (expected one of " + attention_kernels().list() + ")");
    s.attention = AttentionImpl{a};
  }
  if (stack.has("launch")) s.launch = *parse_launch(stack.one_of("launch", launch_names()));
  if (stack.has("allreduce")) s.allreduce = stack.one_of("allreduce", allreduce_kernel_names());
  if (stack.has("moe")) s.moe = *parse_moe_kernel(stack.one_of("moe", moe_kernel_names()));
  if (stack.has("fp8_input_quantize")) s.fp8_input_quantize = stack.boolean("fp8_input_quantize");
  if (stack.has("fp8_linear")) s.fp8_linear = parse_fp8_linear_kernel(stack.one_of("fp8_linear", fp8_linear_kernel_names()));
  if (stack.has("weight_only_gemv")) s.weight_only_gemv = stack.boolean("weight_only_gemv");
  if (stack.has("fuse")) {
    const std::string f = stack.string("fuse");
    const std::optional<Fusion> fusion = parse_fusion(f);
    if (!fusion) stack.fail("fuse", "expected " + std::string(kFusionForms) + ", got \"" + f + "\"");
    s.fusion = fusion;
  }
  stack.reject_unknown_keys();
  std::optional<ConfigTable> provenance = top.optional_table("provenance");
  // A fitted number says where it comes from: its [provenance] entry ("serving.KEY" for [serving]).
  auto sourced = [&](ConfigTable& table, const std::string& key, const std::string& entry) {
    if (!provenance || !provenance->has(entry)) table.fail(key, "has no entry \"" + entry + "\" in [provenance]: say where the value comes from");
    provenance->string(entry);
  };
  if (std::optional<ConfigTable> sv = top.optional_table("serving")) {
    StackServing& v = s.serving;
    read_documented_serving(*sv, v);
    if (sv->has("batch_offset")) {
      const double n = sv->finite_number("batch_offset");
      if (n != static_cast<double>(static_cast<std::int64_t>(n)) || n < -1000 || n > 1000) sv->fail("batch_offset", "expected a whole number from -1000 to 1000");
      v.batch_offset = static_cast<std::int64_t>(n);
      sourced(*sv, "batch_offset", "serving.batch_offset");
    }
    for (auto [key, field] : {std::pair{"iteration_overhead_us", &v.iteration_overhead_us}, {"sequence_overhead_us", &v.sequence_overhead_us},
                              {"frontend_request_us", &v.frontend_request_us}, {"frontend_response_us", &v.frontend_response_us}}) {
      if (!sv->has(key)) continue;
      const double us = sv->non_negative_number(key);
      if (us > 1e6) sv->fail(key, "more than a second of host time");
      *field = us;
      sourced(*sv, key, std::string("serving.") + key);
    }
    sv->reject_unknown_keys();
  }
  for (auto [table, field] : {std::pair{"eager_calls", &s.eager_call_us}, {"profiled_layers", &s.profiled_layer_us}}) {
    std::optional<ConfigTable> calls = top.optional_table(table);
    if (!calls) continue;
    for (const std::string& key : calls->keys_in_file_order()) {
      const double us = calls->non_negative_number(key);
      if (us > 1e6) calls->fail(key, "more than a second of host time per call");
      (*field)[key] = us;
      sourced(*calls, key, std::string(table) + "." + key);
    }
    calls->reject_unknown_keys();
  }
  if (std::optional<ConfigTable> hw = top.optional_table("hardware")) {
    for (const std::string& key : hw->keys_in_file_order()) {
      s.hardware.push_back({key, hw->finite_number(key), false});
      // Every number a stack sets says where it comes from.
      if (!provenance || !provenance->has(key)) hw->fail(key, "has no entry in [provenance]: say where the value comes from");
      provenance->string(key);
    }
    hw->reject_unknown_keys();
  }
  // Releases whose documented defaults differ, oldest first: a run of a version takes every one
  // up to it; without a version, all of them (the newest documented behaviour).
  if (std::optional<ConfigTable> releases = top.optional_table("releases")) {
    std::string previous;
    for (const std::string& from : releases->keys_in_file_order()) {
      if (version_numbers(from).empty()) releases->fail(from, "a release is named by the version it starts with, e.g. \"0.14\"");
      if (!previous.empty() && version_at_least(previous, from)) releases->fail(from, "releases go oldest first: it follows " + previous);
      previous = from;
      ConfigTable r = releases->table(from);
      const std::string note = r.string("note");
      StackServing changed;
      read_documented_serving(r, changed);
      r.reject_unknown_keys();
      if (s.version.empty() || version_at_least(s.version, from)) {
        merge_serving(s.serving, changed);
        s.releases.push_back(from + ": " + note);
      }
    }
    releases->reject_unknown_keys();
  }
  if (provenance) provenance->reject_unknown_keys();
  top.reject_unknown_keys();
  return s;
}

namespace {
// A stack's per-dtype parameters: for a data type the chip has no rate for (fp8 kernels on an
// A100) they have nothing to act on and are left out.
const std::string kDtypeEfficiency = "matrix.dtype_efficiency.";

bool has_number(const HardwareDocument& doc, const std::string& key) {
  try {
    doc.get(key);
    return true;
  } catch (const InputError&) {
    return false;
  }
}
}  // namespace

HardwareSpec stack_hardware(const SoftwareStack& stack, const std::string& hw) {
  HardwareDocument doc = HardwareDocument::load(hw);
  std::vector<HardwareEdit> edits;
  for (const HardwareEdit& edit : stack.hardware) {
    if (edit.key.rfind(kDtypeEfficiency, 0) == 0 && !has_number(doc, "matrix.dtype_rate." + edit.key.substr(kDtypeEfficiency.size()))) continue;
    edits.push_back(edit);
  }
  apply_edits(doc, edits, stack.file);
  HardwareSpec spec = doc.spec();  // checked as the hardware file would be
  if (!stack.hardware.empty()) spec.name += " + " + stack.name;
  return spec;
}

namespace {
// A stack's kernel parameters on a chip already built (a sweep point's or the Python module's
// edited hardware): each key set on the spec in its SI unit, range-checked as the loader does;
// a per-dtype efficiency for a dtype the chip has no rate for is left out, as above.
void set_stack_parameters(const SoftwareStack& stack, HardwareSpec& hw) {
  for (const HardwareEdit& edit : stack.hardware) {
    const std::string where = stack.file + ": [hardware] " + edit.key;
    if (edit.key.rfind(kDtypeEfficiency, 0) == 0) {
      DType d{};
      if (!parse_dtype(edit.key.substr(kDtypeEfficiency.size()), d)) throw InputError(where + ": unknown data type");
      if (!hw.matrix_supports(d)) continue;
      if (!(edit.value > 0 && edit.value <= 1)) throw InputError(where + ": expected a fraction in (0, 1]");
      hw.matrix.dtype_efficiency[d] = edit.value;
      continue;
    }
    const HardwareParam* param = find_hardware_param(edit.key);
    if (!param) throw InputError(where + ": not a hardware key");
    const ParamRange range = param_range(*param);
    if (!range.contains(edit.value)) throw InputError(where + ": " + format_general(edit.value) + " is outside " + range.text(param->unit));
    const ParamField field = param->field(hw);
    if (double* const* x = std::get_if<double*>(&field)) {
      **x = edit.value * param->to_si;
    } else if (std::int64_t* const* n = std::get_if<std::int64_t*>(&field)) {
      if (edit.value != static_cast<double>(static_cast<std::int64_t>(edit.value))) throw InputError(where + ": expected a whole number");
      **n = static_cast<std::int64_t>(edit.value);
    } else {
      throw InputError(where + ": not a numeric hardware key");
    }
  }
  if (!stack.hardware.empty()) hw.name += " + " + stack.name;
}
}  // namespace

void apply_stack_hardware(const SoftwareStack& stack, Experiment& e) {
  if (stack.hardware.empty()) return;
  if (e.hardware) {
    set_stack_parameters(stack, *e.hardware);
  } else {
    e.hardware = stack_hardware(stack, e.hw);
  }
}

void apply_stack(const SoftwareStack& stack, Experiment& e, bool keep_attention, bool keep_launch) {
  apply_stack_hardware(stack, e);
  if (stack.attention && !keep_attention) e.attention = *stack.attention;
  if (stack.launch && !keep_launch) e.launch = *stack.launch;
  if (stack.allreduce) e.allreduce = *stack.allreduce;
  if (stack.moe) e.moe_kernel = *stack.moe;
  // Its weight-only experts' call, if the stack runs it outside the CUDA graph.
  if (auto eager = stack.eager_call_us.find(kWeightOnlyMoeEagerCall); eager != stack.eager_call_us.end()) {
    e.weight_only_moe_eager_host_s = eager->second * 1e-6;
  }
  if (stack.fp8_input_quantize) e.precision.fp8_input_quantize = *stack.fp8_input_quantize;
  if (stack.fp8_linear) e.precision.fp8_linear = *stack.fp8_linear;
  if (stack.weight_only_gemv) e.precision.weight_only_gemv = *stack.weight_only_gemv;
  if (stack.fusion) e.fusion = *stack.fusion;
  e.stack = stack.given;
  e.source += ", stack " + stack.name;
}

}  // namespace roofsim
