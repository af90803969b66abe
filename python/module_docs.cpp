#include "python/module_docs.hpp"

#include "core/error.hpp"
#include "experiment/collective_settings.hpp"
#include "experiment/experiment_settings.hpp"
#include "serving/serving_settings.hpp"

namespace roofsim::python_docs {

namespace {

// run()'s keywords as the settings table gives them (experiment/experiment_settings.hpp).
std::string run_keywords_doc() {
  std::string out;
  for (const RunSetting& r : run_settings()) {
    const SettingSpec& s = r.spec;
    if (s.name == "hw" || s.name == "model") continue;
    const std::string help = render_setting_names(s.help, SettingNames::key);
    const std::string first = help.substr(0, help.find_first_of(":(\n"));
    out += "  " + s.name + (s.aliases.empty() ? "" : " (or " + s.aliases.front() + ")") + ": " +
           (s.kind == SettingKind::text ? std::string("text") : s.expected()) + (s.unit.empty() ? "" : " " + s.unit) +
           ", default " + render_setting_names(s.default_text, SettingNames::key) + ". " + first + "\n";
  }
  return out;
}

// serve()'s own keywords, by the serving settings' groups.
std::string serve_keywords_doc() {
  std::string out, group;
  for (const ServingSetting& r : serving_settings()) {
    const SettingSpec& s = r.spec;
    if (s.group != group) out += (out.empty() ? "" : "\n") + s.group + ":";
    group = s.group;
    out += " " + s.name + (s.kind == SettingKind::choice ? " (" + s.expected() + ")" : "");
    out += ",";
  }
  out.pop_back();
  return out + "\n";
}

}  // namespace

// The defaults of the hw and model arguments: the settings table's.
std::string default_hw() { return find_run_setting("hw")->spec.default_text; }
std::string default_model() { return find_run_setting("model")->spec.default_text; }

const char* serve_doc() {
  static const std::string doc =
      "Simulate serving: requests arrive over time and a scheduler batches them iteration by iteration.\n\n"
      "Keyword arguments as `roofsim serve`'s flags, dashes as underscores (`roofsim settings serving` gives each one's "
      "values, default and meaning): the machine's as for run() (hw, model, dtypes, attention, tp, pp, ep, topology, "
      "stack, ...) and\n" +
      serve_keywords_doc() +
      "stack also puts the stack's [serving] scheduler and host costs on the server, except the keyword arguments given.\n"
      "progress(done, total, what) is called as requests finish. Returns the dict `roofsim serve --json` writes, plus "
      "'requests' and 'iteration_records': one dict per request and per iteration (the columns of --requests-csv and "
      "--iterations-csv).";
  return doc.c_str();
}

const char* collective_doc() {
  static const std::string doc = [] {
    std::string d = "Simulate a collective link by link beside its closed form (as `roofsim collective --json`).\n\n"
                    "hw: preset, path or Hardware. Keyword arguments as `roofsim collective`'s flags (`roofsim settings "
                    "collective` says more):\n";
    for (const CollectiveSetting& c : collective_settings()) {
      if (c.spec.name == "hw") continue;
      d += "  " + c.spec.name + ": " + c.spec.expected() + ", default " + c.spec.default_text + "\n";
    }
    return d;
  }();
  return doc.c_str();
}

const char* run_doc() {
  static const std::string doc =
      "Simulate inference: prefill of the prompts, then decode token by token.\n\n"
      "hw: preset, path or Hardware; model: preset, path, Hugging Face config.json, hub id or Model.\n"
      "Keyword arguments as `roofsim run`'s flags, dashes as underscores (`roofsim settings run` says more):\n" +
      run_keywords_doc() +
      "progress(done, total, what) is called after each simulated phase (prefill, decode steps).\n"
      "Returns the dict `roofsim run --json` writes (docs/schema.md).";
  return doc.c_str();
}



const char* analyze_doc() {
  return R"(The analytic side of run() at once, without simulating.

Same keyword arguments as run(). Returns the ridge (FLOP/B) of the activations dtype with its
peak_flops and bandwidth, hardware_summary (peaks and ridge per dtype), memory_bytes per chip and
fits, prefill and decode (flops, bytes, intensity, bound_s; decode per mean step, with
speed_of_light_s), bound_ttft_s, bound_tpot_s, bound_total_s, bound_throughput_tok_s,
bound_decode_tok_s, and ops named and summed as run()'s (each with intensity, bound_time_s and
its binding roof): the bounds run() reports, collectives included. A model that does not fit
is not refused: fits is false.)";
}

}  // namespace roofsim::python_docs
