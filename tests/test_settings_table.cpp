// The run settings' table (experiment/experiment_settings.hpp): every setting is a key of an
// experiment file, its declared default is the Experiment's own, its range is checked the same
// way by every front end, and settings apply in the table's order whatever the order given.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/inference.hpp"
#include "experiment/stack.hpp"
#include "serving/instance_routing.hpp"
#include "serving/batching_policy.hpp"
#include "serving/kv_admission.hpp"
#include "serving/kv_preemption.hpp"
#include "serving/priority_policy.hpp"
#include "serving/serving_settings.hpp"
#include "tests/test_util.hpp"

using namespace roofsim;

namespace {

// A value each setting takes (the first choice, 1 for a count).
nlohmann::json sample_value(const RunSetting& s) {
  switch (s.spec.kind) {
    case SettingKind::whole: return 1;
    case SettingKind::number:
    case SettingKind::numbers: return 0.0;
    case SettingKind::flag: return true;
    case SettingKind::choice: return s.spec.choices().front();
    case SettingKind::text: break;
  }
  if (s.spec.name == "stack") return "vllm";
  if (s.spec.name == "routing") return "balanced";
  if (s.spec.name == "topology") return "switch:1";
  return s.spec.default_text;  // hw, model
}

std::string toml_value(const nlohmann::json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_float()) return "0.0";
  return v.dump();  // integers, and strings in double quotes
}

}  // namespace

TEST_CASE("every run setting is a key of an experiment file, under its name and its aliases", "[systemc][settings]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "roofsim_settings_table";
  std::filesystem::create_directories(dir);
  for (const RunSetting& s : run_settings()) {
    std::vector<std::string> names{s.spec.name};
    names.insert(names.end(), s.spec.aliases.begin(), s.spec.aliases.end());
    for (const std::string& name : names) {
      INFO(name);
      const std::filesystem::path file = dir / (name + ".toml");
      std::ofstream(file) << "[experiment]\n" << name << " = " << toml_value(sample_value(s)) << "\n";
      const Experiment e = load_experiment_file(file.string());
      CHECK(e.set_in_file.count(s.spec.name) == 1);
      if (s.count != nullptr) CHECK(e.*(s.count) == 1);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a run setting's declared default is the Experiment's own", "[systemc][settings]") {
  const Experiment fresh;
  for (const RunSetting& s : run_settings()) {
    INFO(s.spec.name);
    if (s.count != nullptr) {
      // 0 means "chosen by the run", said in words; anything else is the number itself.
      if (fresh.*(s.count) != 0) CHECK(s.spec.default_text == std::to_string(fresh.*(s.count)));
      continue;
    }
    if (s.spec.kind == SettingKind::flag) {
      CHECK(s.spec.default_text == "false");
      Experiment e;
      s.set(e, false);  // setting the default changes nothing
      CHECK((e.ideal == fresh.ideal && e.allow_long_context == fresh.allow_long_context && e.all_layers == fresh.all_layers));
      continue;
    }
    if (s.spec.kind == SettingKind::choice) {
      const std::vector<std::string> names = s.spec.choices();
      if (std::find(names.begin(), names.end(), s.spec.default_text) == names.end()) continue;  // "the checkpoint's"
      Experiment e;
      s.set(e, s.spec.default_text);
      CHECK(e.precision.weights == fresh.precision.weights);
      CHECK(e.precision.activations == fresh.precision.activations);
      CHECK(e.precision.kv == fresh.precision.kv);
      CHECK(e.precision.scale_block_k == fresh.precision.scale_block_k);
      CHECK(e.attention.name == fresh.attention.name);
      CHECK(e.launch == fresh.launch);
      CHECK(e.allreduce == fresh.allreduce);
      CHECK(e.moe_kernel == fresh.moe_kernel);
      CHECK(e.near_memory == fresh.near_memory);
    }
  }
  CHECK(find_run_setting("hw")->spec.default_text == fresh.hw);
  CHECK(find_run_setting("model")->spec.default_text == fresh.model);
  CHECK(find_run_setting("routing")->spec.default_text == "uniform");
  CHECK(fresh.max_events == kDefaultMaxEvents);
}

TEST_CASE("a run setting refuses values outside its declared range in every front end's words", "[systemc][settings]") {
  Experiment e;
  CHECK_THROWS_WITH(set_experiment_setting(e, "batch", 0), "batch=0: expected a whole number from 1 to 1048576");
  CHECK_THROWS_WITH(set_experiment_setting(e, "tp", 2.5), "tp=2.5: expected a whole number from 1 to 65536");
  CHECK_THROWS_WITH(set_experiment_setting(e, "kv_dtype", "fp7"), Catch::Contains("kv_dtype=\"fp7\": expected fp32, tf32, bf16"));
  CHECK_THROWS_WITH(set_experiment_setting(e, "routing", "power_law:0"), Catch::Contains("routing=\"power_law:0\": expected uniform, balanced or power_law:A"));
  CHECK_THROWS_WITH(set_experiment_setting(e, "max_events", -1), "max_events=-1: expected a number >= 0");
  CHECK_THROWS_WITH(set_experiment_setting(e, "bacth", 1), "unknown setting 'bacth'");
  set_experiment_setting(e, "generate", 7.0);  // an alias, and a whole number computed as a float
  CHECK(e.generate == 7);
  // The CLI's text form goes through the same check.
  const SettingSpec& batch = find_run_setting("batch")->spec;
  CHECK(setting_text_error(batch, "8").empty());
  CHECK(setting_text_error(batch, "0") == "'0' is not a whole number from 1 to 1048576");
  CHECK(setting_text_error(batch, "x") == "'x' is not a whole number from 1 to 1048576");
  CHECK(batch.flag() == "--batch");
  CHECK(find_run_setting("decode_stride")->spec.flag() == "--decode-stride");
}

TEST_CASE("settings apply in the table's order: a kernel given overrides the stack's, whichever comes first", "[systemc][settings]") {
  for (const bool stack_first : {true, false}) {
    nlohmann::json settings = nlohmann::json::object();
    // nlohmann::json objects keep their keys sorted: the order written here does not reach
    // set_experiment_settings; the table's does.
    if (stack_first) {
      settings["stack"] = "trtllm-1.x";
      settings["allreduce"] = "nccl";
    } else {
      settings["allreduce"] = "nccl";
      settings["stack"] = "trtllm-1.x";
    }
    Experiment e;
    set_experiment_settings(e, settings);
    CHECK(e.allreduce == "nccl");  // the stack alone would set trtllm_custom
    CHECK(e.launch == Launch::prefill_per_op);  // the stack's, not given
  }
  Experiment e;
  set_experiment_settings(e, {{"stack", "trtllm-1.x"}});
  CHECK(e.allreduce == "trtllm_custom");
}

TEST_CASE("a whole-number setting keeps a 64-bit value exactly and refuses one beyond int64", "[systemc][settings]") {
  const ServingSetting* seed = find_serving_setting("seed");
  REQUIRE(seed != nullptr);
  CHECK(checked_setting_value(seed->spec, INT64_MAX, "seed").get<std::int64_t>() == INT64_MAX);
  CHECK_THROWS_WITH(checked_setting_value(seed->spec, std::uint64_t{UINT64_MAX}, "seed"),
                    Catch::Contains("expected a whole number from 0 to"));
  CHECK_THROWS_WITH(checked_setting_value(seed->spec, -1, "seed"), Catch::Contains("seed=-1: expected a whole number from 0"));
  // Every table's settings have a flag, a default and a meaning, and no two share a name.
  std::set<std::string> names;
  for (const ServingSetting& s : serving_settings()) {
    INFO(s.spec.name);
    CHECK(!s.spec.help.empty());
    CHECK(!s.spec.default_text.empty());
    CHECK(names.insert(s.spec.name).second);
    if (s.spec.kind == SettingKind::choice) CHECK(!s.spec.choices().empty());
  }
}

TEST_CASE("a result's settings object sets the same run and serving run again", "[systemc][settings]") {
  Experiment e;
  set_experiment_settings(e, {{"model", "mixtral-8x7b"}, {"stack", "trtllm-1.x"}, {"tp", 2}, {"ep", 2}, {"batch", 3},
                              {"kv_dtype", "fp8"}, {"routing", "power_law:1.2"}, {"decode_stride", 4}, {"all_layers", true}});
  const nlohmann::json recorded = experiment_settings_json(e);
  CHECK(recorded.size() == run_settings().size());  // every setting, null for a default in words
  CHECK(recorded["stack"] == "trtllm-1.x");
  CHECK(recorded["weights_dtype"].is_null());  // the checkpoint decides again
  CHECK(recorded["microbatches"].is_null());   // chosen by the run
  Experiment again;
  set_experiment_settings(again, recorded);
  CHECK(experiment_settings_json(again) == recorded);
  CHECK(again.allreduce == e.allreduce);
  CHECK(again.hardware.has_value() == e.hardware.has_value());  // the stack's kernel parameters on the chip

  ServingSettings first;
  const nlohmann::json given = {{"rate", 3.5}, {"requests", 40}, {"prompt", "normal:800:100:16:2048"}, {"output", 64},
                                {"max_batch", 32}, {"kv_admission", "on_demand"}, {"speculative_tokens", 2},
                                {"acceptance", {0.9, 0.6}}, {"iteration_overhead_ms", 0.3}, {"stack", "trtllm-1.x"}};
  for (const auto& [key, value] : given.items()) first.set(key, value);
  const ServingSetup s = first.finish(e, "test");
  const nlohmann::json serving = serving_settings_json(s);
  CHECK(serving["concurrency"].is_null());
  CHECK(serving["prompt"] == "normal:800:100:16:2048");
  CHECK(serving["iteration_overhead_ms"] == 0.3);
  ServingSettings second;
  Experiment machine;
  std::set<std::string> machine_given;
  set_experiment_settings(machine, set_serving_part(second, serving, machine_given));
  CHECK(machine_given.count("stack") == 1);  // the stack is the machine's and the server's
  CHECK(machine_given.count("max_batch") == 0);
  CHECK(serving_settings_json(second.finish(machine, "test", machine_given)) == serving);
}

TEST_CASE("a serving policy registered by its file is a choice of its setting at once", "[systemc][settings]") {
  // serving/instance_routings/*.cpp: each file registers one policy; the setting's choices are
  // the registry's names, read live, so a new file needs no other edit.
  const std::vector<std::string> names = instance_routings().names();
  CHECK(names == std::vector<std::string>{"least_loaded", "round_robin"});
  CHECK(find_serving_setting("instance_routing")->spec.choices() == names);
  std::size_t turn = 0;
  const std::vector<std::size_t> loads{3, 1, 2};
  CHECK(instance_routings().get("least_loaded", "instance_routing").pick(loads, turn) == 1);
  CHECK(instance_routings().get("round_robin", "instance_routing").pick(loads, turn) == 0);
  CHECK(instance_routings().get("round_robin", "instance_routing").pick(loads, turn) == 1);
  ServingSettings s;
  CHECK_THROWS_WITH(s.set("instance_routing", "random"), "instance_routing=\"random\": expected least_loaded or round_robin");
  // The continuous scheduler's priority likewise (serving/priorities/).
  CHECK(priorities().names() == std::vector<std::string>{"decode_first", "prefill_first"});
  CHECK(find_serving_setting("priority")->spec.choices() == priorities().names());
  CHECK(priorities().get("prefill_first", "priority").summary() == "prefills first");
  // And how a request enters the KV cache (serving/kv_admissions/): what each asks for.
  CHECK(kv_admissions().names() == std::vector<std::string>{"on_demand", "reserve"});
  CHECK(find_serving_setting("kv_admission")->spec.choices() == kv_admissions().names());
  const AdmissionAsk ask{1000, 200, 2, 64, 512};  // prompt, output left, draft keys, cached, first chunk
  CHECK(kv_admissions().get("reserve", "kv_admission").tokens_at_admission(ask) == 1202);
  CHECK(kv_admissions().get("on_demand", "kv_admission").tokens_at_admission(ask) == 576);
  // And how each iteration's batch is formed (serving/batchings/).
  CHECK(batchings().names() == std::vector<std::string>{"continuous", "static"});
  CHECK(find_serving_setting("scheduler")->spec.choices() == batchings().names());
  CHECK(batchings().get("continuous", "scheduler").iteration_level());
  CHECK_FALSE(batchings().get("static", "scheduler").iteration_level());
  // And what a preempted request's KV cache becomes (serving/kv_preemptions/).
  CHECK(kv_preemptions().names() == std::vector<std::string>{"recompute", "swap"});
  CHECK(find_serving_setting("kv_preemption")->spec.choices() == kv_preemptions().names());
  CHECK(kv_preemptions().get("recompute", "kv_preemption").preempted_kv() == PreemptedKv::dropped);
  CHECK(kv_preemptions().get("swap", "kv_preemption").preempted_kv() == PreemptedKv::copied_to_host);
  CHECK_THROWS_WITH(s.set("kv_preemption", "discard"), "kv_preemption=\"discard\": expected recompute or swap");
  // A software stack's [serving] table names them too, read by experiment/stack.cpp, which
  // cannot see these registries and keeps its own list: every registered name must load there.
  const std::string head = "[stack]\nname = \"x\"\ndescription = \"d\"\n[serving]\n";
  for (const std::string& n : priorities().names()) CHECK_NOTHROW(load_stack(roofsim::test::write_temp(head + "priority = \"" + n + "\"\n", "stack")));
  for (const std::string& n : kv_admissions().names()) CHECK_NOTHROW(load_stack(roofsim::test::write_temp(head + "kv_admission = \"" + n + "\"\n", "stack")));
}
